-- Passkeys (issue 26): the same table as Migrations/0007_passkeys.sql, each private key sealed
-- like a password record and found through keyed blind indexes of its RP ID and credential ID.
CREATE TABLE passkeys (
    -- random, fixed for the life of the passkey
    id bytea NOT NULL PRIMARY KEY CHECK (length(id) = 16),
    -- keyed BLAKE2b of the RP ID (purpose "passkey-rp"): every passkey of a relying party in one lookup
    rp_index bytea NOT NULL CHECK (length(rp_index) = 32),
    -- keyed BLAKE2b of the credential ID (purpose "passkey-credential")
    credential_index bytea NOT NULL UNIQUE CHECK (length(credential_index) = 32),
    sealed bytea NOT NULL,
    -- 1 when created; bound into the associated data and the record commitment
    version bigint NOT NULL CHECK (version >= 1)
);

CREATE INDEX passkeys_rp ON passkeys (rp_index);
