-- The throttle of guesses at the vault's secret: the same columns as Migrations/0008_guess_throttle.sql,
-- shared by every service instance on this database.

-- guesses since the last right one
ALTER TABLE vault_meta ADD COLUMN failed_guesses bigint NOT NULL DEFAULT 0 CHECK (failed_guesses >= 0);
-- milliseconds since 1970: the earliest moment the next guess may be checked
ALTER TABLE vault_meta ADD COLUMN next_guess_at bigint NOT NULL DEFAULT 0 CHECK (next_guess_at >= 0);
