-- Per-app bearer tokens for the vault service (`swcred serve`): which app a request acts for.
-- The token itself is never stored: only its keyed BLAKE2b hash under a subkey of the vault key.
-- Every row carries a MAC under the gate-state subkey over all its other columns, so that
-- editing the file (another app, more permissions, a later expiry, no consent) fails closed.

CREATE TABLE app_tokens (
    -- random, shown by `swcred app token list` and used by `revoke`: 16 lowercase hex digits
    id TEXT NOT NULL PRIMARY KEY CHECK (length(id) = 16),
    -- keyed BLAKE2b of the token's random bytes
    token_hash BLOB NOT NULL UNIQUE CHECK (length(token_hash) = 32),
    app TEXT NOT NULL REFERENCES apps(application_identifier) ON DELETE CASCADE,
    -- the operations granted, comma-separated in a fixed order: request,add,delete,generate
    permissions TEXT NOT NULL,
    -- 'ask': every change and release waits for the owner in `swcred consent`
    consent TEXT NOT NULL CHECK (consent IN ('none', 'ask')),
    -- seconds since 1970
    created_at INTEGER NOT NULL,
    -- seconds since 1970; NULL: never expires
    expires_at INTEGER,
    -- keyed BLAKE2b (gate-state subkey) over the table name and every column above
    mac BLOB NOT NULL CHECK (length(mac) = 32)
) STRICT, WITHOUT ROWID;

CREATE INDEX app_tokens_app ON app_tokens (app);
