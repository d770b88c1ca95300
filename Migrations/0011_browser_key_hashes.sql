-- A browser's identification key is no longer stored, only a keyed hash of it (BLAKE2b under the
-- app-token subkey, as an app token's hash is) and its fingerprint for display: a copy of the
-- vault file holds nothing that `test-associate` asks for.
--
-- A keyed hash cannot be computed here, and a key that was stored in the clear may be in any copy
-- or backup of the file made before: the associations stored so far are ended, not re-keyed.
-- Their names wait in browser_associations_ended until the first unlock appends a
-- `browser-revoke` entry for each and deletes them (the owner then associates each browser again).

CREATE TABLE browser_associations_ended (
    -- the name of an association stored before this migration
    id TEXT NOT NULL PRIMARY KEY
) STRICT, WITHOUT ROWID;
INSERT INTO browser_associations_ended (id) SELECT id FROM browser_associations;
DROP TABLE browser_associations;

CREATE TABLE browser_associations (
    -- the name the owner gave it in `swcred consent` (what the extension shows and sends back)
    id TEXT NOT NULL PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64),
    -- keyed BLAKE2b (app-token subkey) of the browser's identification public key, which it
    -- proves in each session
    key_hash BLOB NOT NULL CHECK (length(key_hash) = 32),
    -- the first 16 bytes of the key's BLAKE2b-256 as 8 groups of 4 hexadecimal digits, for display
    fingerprint TEXT NOT NULL CHECK (length(fingerprint) = 39),
    -- 1: pages served over http:// get this association's logins too (off unless the owner allows it)
    allow_http INTEGER NOT NULL CHECK (allow_http IN (0, 1)),
    -- 'ask': the first release for each host waits for the owner in `swcred consent`
    consent TEXT NOT NULL CHECK (consent IN ('none', 'ask')),
    -- seconds since 1970
    created_at INTEGER NOT NULL,
    -- keyed BLAKE2b (gate-state subkey) over the table name and every column above
    mac BLOB NOT NULL CHECK (length(mac) = 32)
) STRICT, WITHOUT ROWID;
