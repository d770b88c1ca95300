-- Browsers' identification keys stored as keyed hashes: the same change as
-- Migrations/0011_browser_key_hashes.sql (its comments say why the associations stored so far
-- are ended rather than re-keyed, and what each column holds).

CREATE TABLE browser_associations_ended (
    id text COLLATE "C" NOT NULL PRIMARY KEY
);
INSERT INTO browser_associations_ended (id) SELECT id FROM browser_associations;
DROP TABLE browser_associations;

CREATE TABLE browser_associations (
    id text COLLATE "C" NOT NULL PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64),
    key_hash bytea NOT NULL CHECK (length(key_hash) = 32),
    fingerprint text COLLATE "C" NOT NULL CHECK (length(fingerprint) = 39),
    allow_http bigint NOT NULL CHECK (allow_http IN (0, 1)),
    consent text COLLATE "C" NOT NULL CHECK (consent IN ('none', 'ask')),
    created_at bigint NOT NULL,
    mac bytea NOT NULL CHECK (length(mac) = 32)
);
