-- Browsers the owner approved (the KeePassXC-Browser bridge): a third kind of caller, beside apps
-- (tokens) and the owner. Like a token's, each row carries a MAC under the gate-state key over
-- every other column, and its MAC is in the sealed grant set (`vault_meta.grant_set`), so a row
-- edited, forged or put back from an older copy grants nothing.

CREATE TABLE browser_associations (
    -- the name the owner gave it in `swcred consent` (what the extension shows and sends back)
    id TEXT NOT NULL PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64),
    -- the browser's identification public key (X25519, 32 bytes), which it proves in each session
    identification_key BLOB NOT NULL CHECK (length(identification_key) = 32),
    -- 1: pages served over http:// get this association's logins too (off unless the owner allows it)
    allow_http INTEGER NOT NULL CHECK (allow_http IN (0, 1)),
    -- 'ask': the first release for each host waits for the owner in `swcred consent`
    consent TEXT NOT NULL CHECK (consent IN ('none', 'ask')),
    -- seconds since 1970
    created_at INTEGER NOT NULL,
    -- keyed BLAKE2b (gate-state subkey) over the table name and every column above
    mac BLOB NOT NULL CHECK (length(mac) = 32)
) STRICT, WITHOUT ROWID;
