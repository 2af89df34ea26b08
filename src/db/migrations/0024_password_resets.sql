-- Password reset (operations.md §15): a single-use link valid one hour, mailed (or made by the
-- operator). Only the SHA-256 of its token is kept. Rows also count the mails of the last hour
-- (at most 3 per address).
CREATE TABLE password_resets (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  token_hash bytea NOT NULL UNIQUE,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL
);
CREATE INDEX password_resets_user_idx ON password_resets (user_id, created_at);
