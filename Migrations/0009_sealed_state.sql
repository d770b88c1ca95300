-- Rollback protection for everything that grants access, not only the records (format 3 with a
-- sealed state). Nothing here is filled by SQL: the code that holds the vault key writes these
-- columns in the same transaction as the rows they cover, and a vault made before this migration
-- gets them at its first unlock after it.

-- The vault key's epoch: 1 when the state was first sealed, one more at every change of the
-- passphrase or the key. Bound into the wrapped key's associated data (so it cannot be edited
-- without the passphrase or key file) and into `state_seal`; a vault whose epoch is lower than one
-- this process already saw was rolled back. 0 only before the first unlock after this migration.
ALTER TABLE vault_meta ADD COLUMN key_epoch INTEGER NOT NULL DEFAULT 0 CHECK (key_epoch >= 0);
-- The MACs of every authentic row of `apps`, `associations` and `app_tokens`, sorted, after a tag
-- (keyed BLAKE2b under the state key over them): a row put back from an older copy is not among
-- them, and one removed behind swcred's back is missing from the tables.
ALTER TABLE vault_meta ADD COLUMN grant_set BLOB CHECK (grant_set IS NULL OR (length(grant_set) >= 32 AND length(grant_set) % 32 = 0));
-- Keyed BLAKE2b (the state key) binding the key id, `key_epoch`, `record_commitment`, the tag of
-- `grant_set` and `audit_head` together, so that none of them is rolled back alone.
ALTER TABLE vault_meta ADD COLUMN state_seal BLOB CHECK (state_seal IS NULL OR length(state_seal) = 32);
