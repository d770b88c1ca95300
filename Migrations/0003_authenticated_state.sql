-- Authenticated gate state and rollback detection (format 2).
-- Nothing here is filled by SQL: the code that holds the vault key writes the MACs, the versions and
-- the commitment, in the same transaction as the rows they cover. A vault of format 1 gets them all
-- in one transaction at its first unlock after this migration.

-- The version of a credential, bound into its sealed blob's associated data: 1 when it is added,
-- one more at every update. 0 only in a format-1 vault that has not been upgraded yet.
ALTER TABLE credentials ADD COLUMN version INTEGER NOT NULL DEFAULT 0 CHECK (version >= 0);

-- Keyed BLAKE2b (the vault's state key) over the table, the row's identity and every other column.
-- NULL only in a format-1 vault that has not been upgraded yet; a row without a valid MAC is never
-- trusted.
ALTER TABLE apps ADD COLUMN mac BLOB CHECK (mac IS NULL OR length(mac) = 32);
ALTER TABLE associations ADD COLUMN mac BLOB CHECK (mac IS NULL OR length(mac) = 32);

-- The sum mod 2^256 of a keyed hash of every live record (credential id and version, never-save
-- host index), followed by a MAC binding that sum to the key id and the format version.
ALTER TABLE vault_meta ADD COLUMN record_commitment BLOB CHECK (record_commitment IS NULL OR length(record_commitment) = 64);
