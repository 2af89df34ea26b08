-- Stripe and the partner program (operations.md §12 amended): disputes are listed as their own
-- outcome, an unattributed event says why (no_customer, no_lead, no_sale), and invoice.paid
-- may find its customer by e-mail (compared by local part here, normalized in the code).
ALTER TABLE stripe_events DROP CONSTRAINT stripe_events_outcome_check;
ALTER TABLE stripe_events
  ADD CONSTRAINT stripe_events_outcome_check
    CHECK (outcome IN ('sale', 'renewal', 'refund', 'dispute', 'duplicate', 'unattributed', 'test_mode', 'ignored')),
  ADD COLUMN reason text;
CREATE INDEX customers_email_local ON customers (workspace_id, lower(split_part(email, '@', 1))) WHERE deleted_at IS NULL AND email IS NOT NULL;
