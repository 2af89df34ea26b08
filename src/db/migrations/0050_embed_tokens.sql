-- Embedded referrals (operations.md §18): a token lets one partner's referral page be shown inside
-- the workspace's own product for at most 2 hours. As with invitations, the token is shown once
-- and only its SHA-256 is kept. Who issued it is kept too: a payouts invitation the page asks
-- for is written in the audit log under them.
CREATE TABLE embed_tokens (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  partner_id uuid NOT NULL REFERENCES partners(id),
  token_hash bytea NOT NULL UNIQUE,
  issued_by_kind text NOT NULL,
  issued_by_id text NOT NULL,
  issued_by_user_id uuid,
  expires_at timestamptz NOT NULL,
  -- When this page mailed the partner an invitation to set up payouts (at most one a partner per 15 minutes).
  payouts_invited_at timestamptz,
  created_at timestamptz NOT NULL
);
CREATE INDEX embed_tokens_partner_invited ON embed_tokens (workspace_id, partner_id, payouts_invited_at) WHERE payouts_invited_at IS NOT NULL;
