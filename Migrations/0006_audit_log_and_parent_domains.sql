-- The audit log and the parent-domain index (format 3, issue 13).
-- Nothing here is filled by SQL: the code that holds the vault key writes the entries, their tags,
-- the sealed head and anchor and the index, in the same transaction as what they record. A vault of
-- an older format gets its empty log and its index in one transaction at its first unlock after
-- this migration.

-- One entry per operation done for an app and per change the owner makes, oldest first.
CREATE TABLE audit_log (
    -- 1 for the first entry ever written, one more for each after; never reused
    seq INTEGER PRIMARY KEY CHECK (seq > 0),
    -- milliseconds since 1970
    at INTEGER NOT NULL,
    -- 'owner' or an app identifier
    actor TEXT NOT NULL,
    operation TEXT NOT NULL,
    outcome TEXT NOT NULL CHECK (outcome IN ('done', 'refused')),
    -- the error code of a refusal
    error_code TEXT CHECK ((outcome = 'refused') = (error_code IS NOT NULL)),
    -- domain, account, app and released credentials, sealed; associated data binds seq
    sealed BLOB NOT NULL,
    -- keyed BLAKE2b (state key) over every column above and the previous entry's tag
    tag BLOB NOT NULL CHECK (length(tag) = 32)
) STRICT;

-- The last entry (sequence number, tag) and where the kept entries start after a prune, each
-- followed by a MAC bound to the key id: truncating the log is caught even at its end.
ALTER TABLE vault_meta ADD COLUMN audit_head BLOB CHECK (audit_head IS NULL OR length(audit_head) = 72);
ALTER TABLE vault_meta ADD COLUMN audit_anchor BLOB CHECK (audit_anchor IS NULL OR length(audit_anchor) = 72);

-- For every server (and port) with credentials, the blind index of the server and of each of its
-- parent domains, so that a wildcard entry *.example.com finds every server under example.com,
-- and example.com itself, in one lookup.
CREATE TABLE credential_domains (
    -- keyed BLAKE2b of the server or a parent domain
    domain_index BLOB NOT NULL CHECK (length(domain_index) = 32),
    -- credentials.server_index of the server
    server_index BLOB NOT NULL CHECK (length(server_index) = 32),
    PRIMARY KEY (domain_index, server_index)
) STRICT, WITHOUT ROWID;

CREATE INDEX credential_domains_server ON credential_domains (server_index);
