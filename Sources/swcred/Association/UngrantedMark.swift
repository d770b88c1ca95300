/// What `app token list` and `browser list` print after a row that the sealed grant set does not
/// hold: it grants nothing, and any revocation deletes it.
let ungrantedMark = "GRANTS NOTHING (not in the sealed grant set: put back behind swcred's back; revoke it)"
