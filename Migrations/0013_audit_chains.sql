-- Audit chains of their own for running instances (`swcred serve`), so that a request's entry
-- is appended without writing a row that every request of every instance writes (the head in
-- `vault_meta`). The vault's chain (`audit_log`, head and anchor in `vault_meta`) keeps every
-- entry written with a change; an instance chain takes the entries its process group-commits
-- for operations that change no record. See docs/security.md, "The audit log".

-- One row per instance chain: its name (16 random bytes, chosen by the process that appends to
-- it), and its head and anchor as `vault_meta` holds the vault chain's (sequence number, tag,
-- MAC bound to the key id and the chain's name).
CREATE TABLE audit_chains (
    chain BLOB NOT NULL PRIMARY KEY CHECK (length(chain) = 16),
    head BLOB NOT NULL CHECK (length(head) = 72),
    anchor BLOB NOT NULL CHECK (length(anchor) = 72)
) STRICT, WITHOUT ROWID;

-- The entries of the instance chains: the columns of `audit_log`, numbered per chain from 1;
-- the tag also covers the chain's name, and the sealed part is bound to the chain and number.
CREATE TABLE audit_chain_log (
    chain BLOB NOT NULL CHECK (length(chain) = 16),
    seq INTEGER NOT NULL CHECK (seq > 0),
    at INTEGER NOT NULL,
    actor TEXT NOT NULL,
    operation TEXT NOT NULL,
    outcome TEXT NOT NULL CHECK (outcome IN ('done', 'refused')),
    error_code TEXT CHECK ((outcome = 'refused') = (error_code IS NOT NULL)),
    sealed BLOB NOT NULL,
    tag BLOB NOT NULL CHECK (length(tag) = 32),
    PRIMARY KEY (chain, seq)
) STRICT, WITHOUT ROWID;

-- Each instance chain's head (name, sequence number, tag) as the last write of the vault's
-- chain read it, which the state seal covers: a chain's head set back behind it is caught.
-- NULL until the first such write after an instance chain exists.
ALTER TABLE vault_meta ADD COLUMN audit_checkpoint BLOB;
