-- The partner portal (operations.md §18 "Partner portal"): a partner's commissions and payouts
-- are read by partner, newest first; and how a session was signed in, so a change of payout
-- details may follow a passkey or SSO sign-in of the last 5 minutes instead of the password.
CREATE INDEX commissions_partner_created ON commissions (workspace_id, partner_id, created_at, seq);
CREATE INDEX payout_items_partner ON payout_items (partner_id);
ALTER TABLE sessions ADD COLUMN signed_in_by text;
