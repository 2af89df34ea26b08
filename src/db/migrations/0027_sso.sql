-- Single sign-on (operations.md §15): one OpenID Connect connection per workspace, its e-mail
-- domains (each verified before it admits anyone), the identities (iss, sub) it has signed in,
-- and the sign-ins on their way through the identity provider (shared by every instance).
CREATE TABLE sso_connections (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL UNIQUE REFERENCES workspaces(id) ON DELETE CASCADE,
  issuer text NOT NULL,
  client_id text NOT NULL,
  client_secret_sealed text NOT NULL,
  role text NOT NULL,
  require_sso boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

CREATE TABLE sso_domains (
  id uuid PRIMARY KEY,
  connection_id uuid NOT NULL REFERENCES sso_connections(id) ON DELETE CASCADE,
  domain text NOT NULL,
  -- The value the TXT record `_linktrail.<domain>` must hold (random per connection and domain).
  txt_value text NOT NULL,
  verified_at timestamptz,
  verified_by text,
  UNIQUE (connection_id, domain)
);
-- A verified domain belongs to one connection: `?email=` finds it, and no other workspace's
-- identity provider may speak for it.
CREATE UNIQUE INDEX sso_domains_verified_idx ON sso_domains (domain) WHERE verified_at IS NOT NULL;

CREATE TABLE sso_identities (
  id uuid PRIMARY KEY,
  connection_id uuid NOT NULL REFERENCES sso_connections(id) ON DELETE CASCADE,
  issuer text NOT NULL,
  subject text NOT NULL,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  UNIQUE (connection_id, issuer, subject)
);
CREATE INDEX sso_identities_user_idx ON sso_identities (user_id);

-- A sign-in sent to the identity provider: the SHA-256 of its `state` and of the browser's
-- lt_sso cookie (the PKCE verifier and the nonce are derived from that cookie, so this table
-- alone cannot finish a sign-in). Single use, 10 minutes.
CREATE TABLE sso_pending (
  state_hash bytea PRIMARY KEY,
  browser_hash bytea NOT NULL,
  connection_id uuid NOT NULL REFERENCES sso_connections(id) ON DELETE CASCADE,
  -- Set when a signed-in person links their account (POST /api/me/sso/link).
  link_user_id uuid REFERENCES users(id) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL
);
CREATE INDEX sso_pending_expires_idx ON sso_pending (expires_at);
