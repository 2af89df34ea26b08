-- Workspaces, their plan and per-workspace overrides of the plan's limits.
CREATE TABLE workspaces (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  plan text NOT NULL CHECK (plan IN ('free', 'pro', 'business', 'enterprise')),
  rate_limit_override integer CHECK (rate_limit_override > 0),
  max_bulk_items_override integer CHECK (max_bulk_items_override BETWEEN 1 AND 10000),
  created_at timestamptz NOT NULL DEFAULT now(),
  seq bigint GENERATED ALWAYS AS IDENTITY
);

-- API keys are kept only as SHA-256 hashes; the prefix lets people recognise a key.
CREATE TABLE api_keys (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  name text NOT NULL,
  scopes text[] NOT NULL,
  prefix text NOT NULL,
  key_hash bytea NOT NULL UNIQUE,
  expires_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  seq bigint GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX api_keys_workspace_idx ON api_keys (workspace_id, seq);
