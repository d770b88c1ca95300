-- Passkeys (issue 26): WebAuthn credentials the vault's authenticator made for apps.
-- Nothing here is filled by SQL: the code that holds the vault key seals the passkey, computes the
-- blind indexes and updates the record commitment in the same transaction as the row.

-- One row per passkey. `sealed` holds the PasskeyPayload (credential ID, RP ID, user handle and
-- names, private key, creation date); its associated data binds it to `id`, both indexes, the
-- version and the format version, so a blob moved to another row or rolled back does not open.
CREATE TABLE passkeys (
    -- random, fixed for the life of the passkey
    id BLOB NOT NULL PRIMARY KEY CHECK (length(id) = 16),
    -- keyed BLAKE2b of the RP ID (purpose "passkey-rp"): every passkey of a relying party in one lookup
    rp_index BLOB NOT NULL CHECK (length(rp_index) = 32),
    -- keyed BLAKE2b of the credential ID (purpose "passkey-credential")
    credential_index BLOB NOT NULL UNIQUE CHECK (length(credential_index) = 32),
    sealed BLOB NOT NULL,
    -- 1 when created; bound into the associated data and the record commitment
    version INTEGER NOT NULL CHECK (version >= 1)
) STRICT, WITHOUT ROWID;

CREATE INDEX passkeys_rp ON passkeys (rp_index);
