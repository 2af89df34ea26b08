-- The audit log (operations.md §15): one entry per request that changed a workspace's data or
-- settings, written in that request's transaction, and one per member's sign-in in each of
-- their workspaces. `id` is the request's entry: a request whose change spans several
-- transactions adds to the same row. No foreign keys: an entry outlives the key, token, app or
-- person it names, and a workspace's entries go only by AUDIT_RETENTION_DAYS.
CREATE TABLE audit_entries (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL,
  at timestamptz NOT NULL,
  -- user (a session), key (an API key), token (a human token), app (an OAuth app's token).
  actor_kind text NOT NULL,
  actor_id text NOT NULL,
  -- The person behind a token, an app's token or a session.
  actor_user_id uuid,
  action text NOT NULL,
  -- Up to 10,000 ids of the records the request changed.
  target_ids text[] NOT NULL DEFAULT '{}',
  counts jsonb NOT NULL DEFAULT '{}',
  ip text,
  user_agent text,
  seq bigint GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX audit_entries_workspace_idx ON audit_entries (workspace_id, at DESC, seq DESC);
CREATE INDEX audit_entries_at_idx ON audit_entries (at);

-- A person's own sign-ins, failed ones included (GET /api/me/security-log).
CREATE TABLE sign_ins (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  at timestamptz NOT NULL,
  -- password, totp, recovery_code (later: passkey, sso).
  method text NOT NULL,
  -- succeeded, failed, or second_factor_required (the password was right, the second step awaits).
  outcome text NOT NULL,
  ip text,
  user_agent text,
  seq bigint GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX sign_ins_user_idx ON sign_ins (user_id, at DESC, seq DESC);
CREATE INDEX sign_ins_at_idx ON sign_ins (at);
