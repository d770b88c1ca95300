-- The sealed grant set as rows: the same change as Migrations/0012_grant_members.sql (its
-- comments say what the rows are and what `vault_meta.grant_set` holds from then on).

CREATE TABLE grant_members (
    mac bytea NOT NULL PRIMARY KEY CHECK (length(mac) = 32)
);
