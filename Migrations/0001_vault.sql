-- The encrypted vault: key metadata, credentials and "never save" markers.
-- Nothing secret is stored in plaintext: accounts, passwords and hosts live in XChaCha20-Poly1305
-- sealed blobs; lookups use keyed BLAKE2b blind indexes.

-- One row: how the vault key is protected.
CREATE TABLE vault_meta (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    -- The record format version bound into every sealed blob's associated data.
    format_version INTEGER NOT NULL,
    -- 'argon2id13' (passphrase) or 'raw-key' (a 32-byte key file).
    kdf_algorithm TEXT NOT NULL CHECK (kdf_algorithm IN ('argon2id13', 'raw-key')),
    kdf_salt BLOB,
    kdf_opslimit INTEGER,
    kdf_memlimit INTEGER,
    -- Random id of the current vault key; changes on rotation so stale openers notice.
    key_id BLOB NOT NULL CHECK (length(key_id) = 16),
    -- nonce || XChaCha20-Poly1305(vault key) under the passphrase-derived or raw key.
    wrapped_key BLOB NOT NULL,
    CHECK (
        (kdf_algorithm = 'argon2id13' AND kdf_salt IS NOT NULL AND kdf_opslimit IS NOT NULL AND kdf_memlimit IS NOT NULL)
        OR (kdf_algorithm = 'raw-key' AND kdf_salt IS NULL AND kdf_opslimit IS NULL AND kdf_memlimit IS NULL)
    )
) STRICT;

-- One row per (server, port, account). `sealed` holds server, port, account, password, label and
-- dates; its associated data binds it to `id`, both indexes and the format version.
-- The primary key clusters a server's credentials together, so a lookup is one B-tree search.
CREATE TABLE credentials (
    -- random, fixed for the life of the credential
    id BLOB NOT NULL CHECK (length(id) = 16),
    -- keyed BLAKE2b of the normalised server and port
    server_index BLOB NOT NULL CHECK (length(server_index) = 32),
    -- keyed BLAKE2b of the normalised server, port and account
    account_index BLOB NOT NULL UNIQUE CHECK (length(account_index) = 32),
    sealed BLOB NOT NULL,
    PRIMARY KEY (server_index, account_index)
) STRICT, WITHOUT ROWID;

-- Hosts the owner marked "Never for this website".
CREATE TABLE never_save (
    -- keyed BLAKE2b of the normalised host
    host_index BLOB PRIMARY KEY NOT NULL CHECK (length(host_index) = 32),
    -- the host, sealed; associated data binds it to host_index and the format version
    sealed_host BLOB NOT NULL,
    -- seconds since 1970
    created_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
