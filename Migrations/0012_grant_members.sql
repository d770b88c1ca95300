-- The sealed grant set as rows: the MAC of every row of `apps`, `associations`, `app_tokens` and
-- `browser_associations` that swcred wrote and has not deleted since, one row each, so that a
-- write of grants adds and deletes the rows it touched instead of rewriting a list of them all.
--
-- From the first unlock after this migration, `vault_meta.grant_set` no longer holds the list: it
-- holds the sum of these MACs' keyed elements (an incremental multiset hash under the state key,
-- as the record commitment is) and a MAC of the sum, which the state seal covers. The list it
-- held until then is moved here at that unlock (a keyed sum cannot be computed in SQL).
CREATE TABLE grant_members (
    -- the MAC of a granted row, as its table's `mac` column holds it
    mac BLOB NOT NULL PRIMARY KEY CHECK (length(mac) = 32)
) STRICT, WITHOUT ROWID;
