-- Authenticated gate state and rollback detection (format 2).
-- Nothing here is filled by SQL: the code that holds the vault key writes the MACs, the versions and
-- the commitment, in the same transaction as the rows they cover. A vault of format 1 gets them all
-- in one transaction at its first unlock after this migration.

-- The version of a credential, bound into its sealed blob's associated data: 1 when it is added,
-- one more at every update. 0 only in a format-1 vault that has not been upgraded yet.
ALTER TABLE credentials ADD COLUMN version INTEGER NOT NULL DEFAULT 0 CHECK (version >= 0);

-- `apps` is rebuilt rather than altered: its CHECK called json_valid() and json_type(), which
-- SQLite 3.40 does not mark innocuous, so with trusted_schema=OFF no row could be written. swcred
-- writes the entitlements with a JSON encoder and decodes them on every read, and the MAC covers
-- them. (Migrations run with foreign keys off, so dropping the old table deletes no verdict.)
CREATE TABLE apps_authenticated (
    application_identifier TEXT NOT NULL PRIMARY KEY
        CHECK (length(application_identifier) >= 12 AND substr(application_identifier, 11, 1) = '.'),
    -- The associated-domains entitlement: a JSON array of canonical entry strings.
    entitlements TEXT NOT NULL CHECK (substr(entitlements, 1, 1) = '[' AND substr(entitlements, -1, 1) = ']'),
    registered_at TEXT NOT NULL,
    -- Keyed BLAKE2b (the vault's state key) over the table, the row's identity and every other
    -- column. NULL only in a format-1 vault that has not been upgraded yet; a row without a valid
    -- MAC is never trusted.
    mac BLOB CHECK (mac IS NULL OR length(mac) = 32)
) STRICT;
INSERT INTO apps_authenticated (application_identifier, entitlements, registered_at)
    SELECT application_identifier, entitlements, registered_at FROM apps;
DROP TABLE apps;
ALTER TABLE apps_authenticated RENAME TO apps;

-- The same MAC for every stored verdict.
ALTER TABLE associations ADD COLUMN mac BLOB CHECK (mac IS NULL OR length(mac) = 32);

-- The sum mod 2^256 of a keyed hash of every live record (credential id and version, never-save
-- host index), followed by a MAC binding that sum to the key id and the format version.
ALTER TABLE vault_meta ADD COLUMN record_commitment BLOB CHECK (record_commitment IS NULL OR length(record_commitment) = 64);
