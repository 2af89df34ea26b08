-- Two-factor sign-in (operations.md §15): a TOTP seed per user (sealed with SECRET), ten
-- single-use recovery codes (SHA-256: they are random, not chosen), the logins waiting for their
-- second step, and wrong codes per account (at most 20 an hour).
CREATE TABLE user_totp (
  user_id uuid PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  seed_sealed text NOT NULL,
  -- Null while enrolment waits for its first code.
  confirmed_at timestamptz,
  -- The last 30-second step whose code was used: each code works once, on every instance.
  last_step bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL
);

CREATE TABLE recovery_codes (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  code_hash bytea NOT NULL,
  used_at timestamptz
);
CREATE INDEX recovery_codes_user_idx ON recovery_codes (user_id);

-- A password accepted, the second factor awaited: the lt_mfa cookie names it (its SHA-256 here).
CREATE TABLE mfa_pending (
  token_hash bytea PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  failures integer NOT NULL DEFAULT 0,
  expires_at timestamptz NOT NULL
);

CREATE TABLE mfa_failures (
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  at timestamptz NOT NULL
);
CREATE INDEX mfa_failures_user_idx ON mfa_failures (user_id, at);
