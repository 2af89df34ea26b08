-- OAuth 2.1 (operations.md §9): apps registered by a workspace's owners, consents (grants) of a
-- user for one workspace, authorization codes, and access and refresh tokens. Every secret,
-- code and token is kept only as its SHA-256.
CREATE TABLE oauth_apps (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  name text NOT NULL,
  client_id text NOT NULL UNIQUE,
  secret_hash bytea,
  redirect_uris text[] NOT NULL,
  confidential boolean NOT NULL,
  scopes text[] NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  seq bigint GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX oauth_apps_workspace_idx ON oauth_apps (workspace_id, seq);

-- One consent: a user let an app act in one workspace with these scopes. Revoking it ends
-- every token issued under it.
CREATE TABLE oauth_grants (
  id uuid PRIMARY KEY,
  app_id uuid NOT NULL REFERENCES oauth_apps(id),
  user_id uuid NOT NULL REFERENCES users(id),
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  scopes text[] NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz,
  seq bigint GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX oauth_grants_workspace_idx ON oauth_grants (workspace_id, seq);
CREATE INDEX oauth_grants_user_idx ON oauth_grants (user_id, workspace_id);

CREATE TABLE oauth_codes (
  code_hash bytea PRIMARY KEY,
  grant_id uuid NOT NULL REFERENCES oauth_grants(id),
  redirect_uri text NOT NULL,
  code_challenge text NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);

CREATE TABLE oauth_tokens (
  id uuid PRIMARY KEY,
  grant_id uuid NOT NULL REFERENCES oauth_grants(id),
  kind text NOT NULL CHECK (kind IN ('access', 'refresh')),
  token_hash bytea NOT NULL UNIQUE,
  expires_at timestamptz NOT NULL,
  -- A refresh token exchanged for a new pair; presenting it again revokes the grant.
  spent_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz
);
CREATE INDEX oauth_tokens_grant_idx ON oauth_tokens (grant_id);
