-- Rollback protection for everything that grants access: the same columns as
-- Migrations/0009_sealed_state.sql (its comments say what each one binds).

ALTER TABLE vault_meta ADD COLUMN key_epoch bigint NOT NULL DEFAULT 0 CHECK (key_epoch >= 0);
ALTER TABLE vault_meta ADD COLUMN grant_set bytea CHECK (grant_set IS NULL OR (length(grant_set) >= 32 AND length(grant_set) % 32 = 0));
ALTER TABLE vault_meta ADD COLUMN state_seal bytea CHECK (state_seal IS NULL OR length(state_seal) = 32);
