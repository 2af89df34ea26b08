-- Required two-factor per workspace (operations.md §15): while on, a member without a second
-- factor is refused in the workspace (403 mfa_required), with their human and OAuth tokens.
ALTER TABLE workspaces ADD COLUMN require_mfa boolean NOT NULL DEFAULT false;
