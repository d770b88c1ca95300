-- The throttle of guesses at the vault's secret (a wrong unlock, a wrong owner proof), kept in the
-- vault so that every service of the vault shares it and a restart does not reset it. A guess
-- reserves its turn before it is checked: it counts as a failure until a right one resets the count.
-- Plaintext and unauthenticated on purpose: whoever can write this row can read the wrapped key
-- beside it and guess offline, unthrottled, anyway.

-- guesses since the last right one
ALTER TABLE vault_meta ADD COLUMN failed_guesses INTEGER NOT NULL DEFAULT 0 CHECK (failed_guesses >= 0);
-- milliseconds since 1970: the earliest moment the next guess may be checked
ALTER TABLE vault_meta ADD COLUMN next_guess_at INTEGER NOT NULL DEFAULT 0 CHECK (next_guess_at >= 0);
