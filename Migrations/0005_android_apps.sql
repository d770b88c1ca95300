-- Android apps (issue 15): an app named `android:PACKAGE` with the SHA-256 fingerprints of its
-- signing certificates. `apps` is rebuilt because its CHECK allowed only Apple application
-- identifiers. (Migrations run with foreign keys off, so dropping the old table deletes no
-- verdict and no token.)
CREATE TABLE apps_with_android (
    -- `TEAMID1234.bundle.id` (Apple) or `android:package.name` (Android)
    application_identifier TEXT NOT NULL PRIMARY KEY
        CHECK (
            (length(application_identifier) >= 12 AND substr(application_identifier, 11, 1) = '.')
            OR (length(application_identifier) >= 11 AND substr(application_identifier, 1, 8) = 'android:')
        ),
    -- The declared domains: a JSON array of canonical entry strings (webcredentials: for Apple
    -- apps, get_login_creds: for Android apps).
    entitlements TEXT NOT NULL CHECK (substr(entitlements, 1, 1) = '[' AND substr(entitlements, -1, 1) = ']'),
    registered_at TEXT NOT NULL,
    -- Keyed BLAKE2b (the vault's state key) over the table, the row's identity and every other
    -- column; `certificate_fingerprints` is left out while it is NULL, so the MACs of rows
    -- written before this migration stay valid. A row without a valid MAC is never trusted.
    mac BLOB CHECK (mac IS NULL OR length(mac) = 32),
    -- Android apps only: a JSON array of the signing certificates' SHA-256 fingerprints,
    -- canonical (upper-case hex, colons). NULL for Apple apps.
    certificate_fingerprints TEXT
        CHECK (
            (substr(application_identifier, 1, 8) = 'android:')
            = (certificate_fingerprints IS NOT NULL AND substr(certificate_fingerprints, 1, 1) = '['
                AND substr(certificate_fingerprints, -1, 1) = ']')
        )
) STRICT;
INSERT INTO apps_with_android (application_identifier, entitlements, registered_at, mac)
    SELECT application_identifier, entitlements, registered_at, mac FROM apps;
DROP TABLE apps;
ALTER TABLE apps_with_android RENAME TO apps;
