-- The whole vault schema for PostgreSQL: the tables, columns and constraints that SQLite's
-- Migrations/0001 to 0006 make, in one step (a PostgreSQL vault starts at format 3).
-- BLOB is bytea, INTEGER bigint, TEXT text with the C collation (text compares and sorts by its
-- bytes, as SQLite's BINARY does, whatever the database's locale). Nothing here is filled by SQL:
-- the code that holds the vault key writes every sealed blob, MAC, tag and commitment, and the
-- vault's MACs cover the same bytes on both engines. No trigger, rule, view or function: the
-- schema check refuses any.

-- One row: how the vault key is protected, the record-set commitment and the audit log's head.
CREATE TABLE vault_meta (
    id bigint PRIMARY KEY CHECK (id = 1),
    format_version bigint NOT NULL,
    kdf_algorithm text COLLATE "C" NOT NULL CHECK (kdf_algorithm IN ('argon2id13', 'raw-key')),
    kdf_salt bytea,
    kdf_opslimit bigint,
    kdf_memlimit bigint,
    key_id bytea NOT NULL CHECK (length(key_id) = 16),
    wrapped_key bytea NOT NULL,
    record_commitment bytea CHECK (record_commitment IS NULL OR length(record_commitment) = 64),
    audit_head bytea CHECK (audit_head IS NULL OR length(audit_head) = 72),
    audit_anchor bytea CHECK (audit_anchor IS NULL OR length(audit_anchor) = 72),
    CHECK (
        (kdf_algorithm = 'argon2id13' AND kdf_salt IS NOT NULL AND kdf_opslimit IS NOT NULL AND kdf_memlimit IS NOT NULL)
        OR (kdf_algorithm = 'raw-key' AND kdf_salt IS NULL AND kdf_opslimit IS NULL AND kdf_memlimit IS NULL)
    )
);

-- One row per (server, port, account); `sealed` holds everything else.
CREATE TABLE credentials (
    id bytea NOT NULL CHECK (length(id) = 16),
    server_index bytea NOT NULL CHECK (length(server_index) = 32),
    account_index bytea NOT NULL UNIQUE CHECK (length(account_index) = 32),
    sealed bytea NOT NULL,
    version bigint NOT NULL DEFAULT 0 CHECK (version >= 0),
    PRIMARY KEY (server_index, account_index)
);

-- Hosts the owner marked "Never for this website".
CREATE TABLE never_save (
    host_index bytea PRIMARY KEY CHECK (length(host_index) = 32),
    sealed_host bytea NOT NULL,
    created_at bigint NOT NULL
);

-- Registered apps (Apple application identifiers and android:PACKAGE).
CREATE TABLE apps (
    application_identifier text COLLATE "C" NOT NULL PRIMARY KEY
        CHECK (
            (length(application_identifier) >= 12 AND substr(application_identifier, 11, 1) = '.')
            OR (length(application_identifier) >= 11 AND substr(application_identifier, 1, 8) = 'android:')
        ),
    entitlements text COLLATE "C" NOT NULL CHECK (left(entitlements, 1) = '[' AND right(entitlements, 1) = ']'),
    registered_at text COLLATE "C" NOT NULL,
    mac bytea CHECK (mac IS NULL OR length(mac) = 32),
    certificate_fingerprints text COLLATE "C"
        CHECK (
            (substr(application_identifier, 1, 8) = 'android:')
            = (certificate_fingerprints IS NOT NULL AND left(certificate_fingerprints, 1) = '['
                AND right(certificate_fingerprints, 1) = ']')
        )
);

-- One verdict per (service, app, entitlement domain).
CREATE TABLE associations (
    service text COLLATE "C" NOT NULL,
    app text COLLATE "C" NOT NULL REFERENCES apps (application_identifier) ON DELETE CASCADE,
    domain text COLLATE "C" NOT NULL,
    verdict text COLLATE "C" NOT NULL CHECK (verdict IN ('approved', 'denied', 'unverified')),
    checked_at text COLLATE "C",
    next_check text COLLATE "C" NOT NULL,
    last_error text COLLATE "C",
    retry_count bigint NOT NULL DEFAULT 0 CHECK (retry_count >= 0),
    document_digest bytea CHECK (document_digest IS NULL OR length(document_digest) = 32),
    approved_at text COLLATE "C",
    mac bytea CHECK (mac IS NULL OR length(mac) = 32),
    PRIMARY KEY (service, app, domain)
);

CREATE INDEX associations_next_check ON associations (next_check);

-- Per-app bearer tokens for the vault service, stored only as keyed hashes.
CREATE TABLE app_tokens (
    id text COLLATE "C" NOT NULL PRIMARY KEY CHECK (length(id) = 16),
    token_hash bytea NOT NULL UNIQUE CHECK (length(token_hash) = 32),
    app text COLLATE "C" NOT NULL REFERENCES apps (application_identifier) ON DELETE CASCADE,
    permissions text COLLATE "C" NOT NULL,
    consent text COLLATE "C" NOT NULL CHECK (consent IN ('none', 'ask')),
    created_at bigint NOT NULL,
    expires_at bigint,
    mac bytea NOT NULL CHECK (length(mac) = 32)
);

CREATE INDEX app_tokens_app ON app_tokens (app);

-- The hash-chained audit log, oldest first.
CREATE TABLE audit_log (
    seq bigint PRIMARY KEY CHECK (seq > 0),
    at bigint NOT NULL,
    actor text COLLATE "C" NOT NULL,
    operation text COLLATE "C" NOT NULL,
    outcome text COLLATE "C" NOT NULL CHECK (outcome IN ('done', 'refused')),
    error_code text COLLATE "C" CHECK ((outcome = 'refused') = (error_code IS NOT NULL)),
    sealed bytea NOT NULL,
    tag bytea NOT NULL CHECK (length(tag) = 32)
);

-- The blind index of every server with credentials and of each of its parent domains.
CREATE TABLE credential_domains (
    domain_index bytea NOT NULL CHECK (length(domain_index) = 32),
    server_index bytea NOT NULL CHECK (length(server_index) = 32),
    PRIMARY KEY (domain_index, server_index)
);

CREATE INDEX credential_domains_server ON credential_domains (server_index);
