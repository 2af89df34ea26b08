-- Invitations of partners to their portal (operations.md §18 "Invitations"): as §7's invites,
-- the token is shown once and only its SHA-256 is kept; valid 7 days, used once. One pending
-- invitation per partner: a new one revokes the older.
CREATE TABLE partner_invites (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  partner_id uuid NOT NULL REFERENCES partners(id),
  email text NOT NULL,
  token_hash bytea NOT NULL UNIQUE,
  invited_by uuid REFERENCES users(id),
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL
);
CREATE INDEX partner_invites_pending ON partner_invites (workspace_id, partner_id) WHERE accepted_at IS NULL AND revoked_at IS NULL;
