-- Registered apps and the verdicts their sites gave them (SPEC.md §1-§3).
-- Dates are stored as GRDB's default text format (UTC "YYYY-MM-DD HH:MM:SS.SSS").

-- An app registered by the vault owner: the analogue of installing it.
CREATE TABLE apps (
    application_identifier TEXT NOT NULL PRIMARY KEY
        CHECK (length(application_identifier) >= 12 AND substr(application_identifier, 11, 1) = '.'),
    -- The associated-domains entitlement: a JSON array of canonical entry strings.
    entitlements TEXT NOT NULL CHECK (json_valid(entitlements) AND json_type(entitlements) = 'array'),
    registered_at TEXT NOT NULL
) STRICT;

-- One verdict per (service, app, entitlement domain), like `swcutil show`.
-- domain is the entry's host as written in the entitlement, with "*." and ":port" when present.
CREATE TABLE associations (
    service TEXT NOT NULL,
    app TEXT NOT NULL REFERENCES apps(application_identifier) ON DELETE CASCADE,
    domain TEXT NOT NULL,
    verdict TEXT NOT NULL CHECK (verdict IN ('approved', 'denied', 'unverified')),
    checked_at TEXT,
    next_check TEXT NOT NULL,
    last_error TEXT,
    retry_count INTEGER NOT NULL DEFAULT 0 CHECK (retry_count >= 0),
    -- SHA-256 of the AASA file that decided the last successful fetch.
    document_digest BLOB CHECK (document_digest IS NULL OR length(document_digest) = 32),
    -- When the site last approved the app; an approval older than 30 days is stale.
    approved_at TEXT,
    PRIMARY KEY (service, app, domain)
) STRICT;

CREATE INDEX associations_next_check ON associations (next_check);
