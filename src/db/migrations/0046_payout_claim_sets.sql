-- A payout's claim as one row per partner: the payout, the partner and the ids of the commissions
-- claimed for them, oldest first (operations.md §18 "Payouts"). One row per commission
-- (payout_claims, 0044) cost a heap row and a primary-key entry each: 2.4 s of a payout of
-- 1,000,000 commissions was that insert alone (BENCHMARKS.md). first_id and last_id bound the ids
-- (time-ordered) so that "which payout is this commission in" reads an array only when its id is
-- in range. payout_claims is no longer written or read; it stays until the next release
-- (migrations are additive within a release) and its rows are copied here.
CREATE TABLE payout_claim_sets (
  payout_id uuid NOT NULL,
  partner_id uuid NOT NULL,
  first_id uuid NOT NULL,
  last_id uuid NOT NULL,
  commission_ids uuid[] NOT NULL,
  PRIMARY KEY (payout_id, partner_id)
);
CREATE INDEX payout_claim_sets_partner ON payout_claim_sets (partner_id, last_id);
INSERT INTO payout_claim_sets (payout_id, partner_id, first_id, last_id, commission_ids)
  SELECT k.payout_id, k.partner_id, min(k.commission_id::text COLLATE "C")::uuid, max(k.commission_id::text COLLATE "C")::uuid,
    array_agg(k.commission_id ORDER BY c.created_at, c.seq)
  FROM payout_claims k JOIN commissions c ON c.id = k.commission_id
  GROUP BY k.payout_id, k.partner_id;
