-- Browsers the owner approved: the same table as Migrations/0010_browser_associations.sql (its
-- comments say what each column holds).

CREATE TABLE browser_associations (
    id text COLLATE "C" NOT NULL PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64),
    identification_key bytea NOT NULL CHECK (length(identification_key) = 32),
    allow_http bigint NOT NULL CHECK (allow_http IN (0, 1)),
    consent text COLLATE "C" NOT NULL CHECK (consent IN ('none', 'ask')),
    created_at bigint NOT NULL,
    mac bytea NOT NULL CHECK (length(mac) = 32)
);
