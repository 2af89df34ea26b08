-- A payout's commissions, one narrow row each, written by the payout's claim (operations.md §18
-- "Payouts"). Setting commissions.payout_id rewrote each claimed commission's wide row and every
-- index of its table: 38 s for a payout of 1,000,000 commissions (BENCHMARKS.md). Inserting these
-- rows in id order takes a few seconds. commissions.payout_id is no longer written or read; it
-- stays until the next release (migrations are additive within a release).
-- No foreign keys: each would cost a lookup per claimed row, and only payouts' own transactions
-- (which hold the commissions' row locks) write here.
CREATE TABLE payout_claims (
  commission_id uuid PRIMARY KEY,
  payout_id uuid NOT NULL,
  partner_id uuid NOT NULL
);
-- A payout's claims are written by one statement, appended together: a BRIN range index finds
-- them at almost no cost to that insert (a b-tree would add an index entry per claimed row).
CREATE INDEX payout_claims_payout ON payout_claims USING brin (payout_id);
INSERT INTO payout_claims (commission_id, payout_id, partner_id)
  SELECT id, payout_id, partner_id FROM commissions WHERE payout_id IS NOT NULL;
