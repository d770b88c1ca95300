-- Audit chains of their own for running instances: the same change as
-- Migrations/0013_audit_chains.sql (its comments say what the tables hold).

CREATE TABLE audit_chains (
    chain bytea NOT NULL PRIMARY KEY CHECK (length(chain) = 16),
    head bytea NOT NULL CHECK (length(head) = 72),
    anchor bytea NOT NULL CHECK (length(anchor) = 72)
);

CREATE TABLE audit_chain_log (
    chain bytea NOT NULL CHECK (length(chain) = 16),
    seq bigint NOT NULL CHECK (seq > 0),
    at bigint NOT NULL,
    actor text COLLATE "C" NOT NULL,
    operation text COLLATE "C" NOT NULL,
    outcome text COLLATE "C" NOT NULL CHECK (outcome IN ('done', 'refused')),
    error_code text COLLATE "C" CHECK ((outcome = 'refused') = (error_code IS NOT NULL)),
    sealed bytea NOT NULL,
    tag bytea NOT NULL CHECK (length(tag) = 32),
    PRIMARY KEY (chain, seq)
);

ALTER TABLE vault_meta ADD COLUMN audit_checkpoint bytea;
