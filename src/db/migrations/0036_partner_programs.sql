-- Partner programs (operations.md §18): one program per workspace, its groups and their rewards,
-- partners' standing in it, the commissions they earn and the payouts that pay them. Amounts are
-- bigint in the currency's minor unit; sums are read as numeric, exact past 2^53.

CREATE TABLE programs (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL UNIQUE REFERENCES workspaces(id),
  name text NOT NULL,
  -- Unique on the server: the public application page is BASE_URL/apply/{slug}.
  slug text NOT NULL UNIQUE,
  currency text NOT NULL,
  holding_days integer NOT NULL CHECK (holding_days BETWEEN 0 AND 90),
  attribution_days integer NOT NULL CHECK (attribution_days BETWEEN 1 AND 365),
  -- The program's collection: partners' default links and the links partners make.
  collection_id uuid NOT NULL REFERENCES collections(id),
  -- The rest of PUT /api/program's body (landingUrl, minPayout, linkPrefixes, maxPartnerLinks,
  -- linkHost, applications, embedOrigins, termsUrl, fraudRules, trustClientEvents).
  settings jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Groups, ordered by `position`; the one with is_default holds partners whose group_id is null.
CREATE TABLE partner_groups (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  name text NOT NULL,
  is_default boolean NOT NULL DEFAULT false,
  rewards jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  seq bigint GENERATED ALWAYS AS IDENTITY
);
CREATE UNIQUE INDEX partner_groups_name ON partner_groups (workspace_id, lower(name));
CREATE UNIQUE INDEX partner_groups_default ON partner_groups (workspace_id) WHERE is_default;

-- A partner's standing. status defaults to approved: partners that exist when a program is made
-- are approved, and so is one an owner creates unless the body says otherwise. group_id null:
-- the default group.
ALTER TABLE partners
  ADD COLUMN status text NOT NULL DEFAULT 'approved'
    CHECK (status IN ('invited', 'pending', 'approved', 'rejected', 'banned', 'archived')),
  ADD COLUMN group_id uuid REFERENCES partner_groups(id) ON DELETE SET NULL,
  ADD COLUMN referral_key text,
  ADD COLUMN tenant_id text,
  ADD COLUMN user_id uuid REFERENCES users(id),
  ADD COLUMN default_link_id uuid,
  ADD COLUMN payout_method text CHECK (payout_method IN ('paypal', 'wise', 'bank')),
  -- Sealed with SECRET: { email?, holderName?, details? }; the masked form lists show beside it.
  ADD COLUMN payout_details_sealed text,
  ADD COLUMN payout_destination_masked text,
  -- Set when details are replaced (a partner's first setting is no change) or set by an import.
  ADD COLUMN payout_details_changed_at timestamptz;
CREATE UNIQUE INDEX partners_referral_key ON partners (workspace_id, lower(referral_key)) WHERE referral_key IS NOT NULL;
CREATE UNIQUE INDEX partners_tenant ON partners (workspace_id, tenant_id) WHERE tenant_id IS NOT NULL;
CREATE INDEX partners_user ON partners (user_id) WHERE user_id IS NOT NULL;

-- Coupon codes a partner holds: unique in the workspace ignoring case.
CREATE TABLE partner_coupon_codes (
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  code text NOT NULL,
  partner_id uuid NOT NULL REFERENCES partners(id) ON DELETE CASCADE,
  position integer NOT NULL
);
CREATE UNIQUE INDEX partner_coupon_codes_code ON partner_coupon_codes (workspace_id, lower(code));
CREATE INDEX partner_coupon_codes_partner ON partner_coupon_codes (partner_id, position);

-- The partner who won a customer (the first earning one), and an invoice id a sale names.
ALTER TABLE customers ADD COLUMN partner_id uuid;
ALTER TABLE sale_events ADD COLUMN invoice_id text;
CREATE INDEX sale_events_invoice ON sale_events (workspace_id, invoice_id) WHERE invoice_id IS NOT NULL;

CREATE TABLE payouts (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  status text NOT NULL CHECK (status IN ('pending', 'completed', 'cancelled')),
  currency text NOT NULL,
  method text,
  total numeric NOT NULL,
  skipped jsonb NOT NULL DEFAULT '[]',
  reference text,
  failed_partner_ids uuid[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz,
  seq bigint GENERATED ALWAYS AS IDENTITY
);
-- One pending payout per (workspace, currency): the loser of a race is 409 payout_pending.
CREATE UNIQUE INDEX payouts_one_pending ON payouts (workspace_id, currency) WHERE status = 'pending';
CREATE INDEX payouts_list_idx ON payouts (workspace_id, created_at, seq);

-- A payout's items, frozen when it is made (amount: the sum of its commissions then).
CREATE TABLE payout_items (
  payout_id uuid NOT NULL REFERENCES payouts(id),
  partner_id uuid NOT NULL,
  position integer NOT NULL,
  amount numeric NOT NULL,
  commission_count integer NOT NULL,
  method text,
  destination text,
  details_changed_at timestamptz,
  PRIMARY KEY (payout_id, partner_id)
);
CREATE INDEX payout_items_order ON payout_items (payout_id, position);

CREATE TABLE commissions (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  partner_id uuid NOT NULL REFERENCES partners(id),
  type text NOT NULL CHECK (type IN ('click', 'lead', 'sale', 'custom')),
  link_id uuid,
  customer_id uuid,
  event_id uuid,
  sale_amount bigint,
  currency text NOT NULL,
  -- What the event earned when stored; `earnings` follows refunds from it.
  original_earnings bigint NOT NULL,
  earnings bigint NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'held', 'reversed', 'paid')),
  hold_reasons text[] NOT NULL DEFAULT '{}',
  reversed_reason text,
  -- A change to a commission inside a pending payout, settled when the payout ends.
  adjustment bigint,
  payout_id uuid REFERENCES payouts(id),
  description text,
  -- The UTC day a click commission counts.
  click_day date,
  created_at timestamptz NOT NULL DEFAULT now(),
  payable_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  seq bigint GENERATED ALWAYS AS IDENTITY
);
-- A lead or sale earns once: a replayed batch or a retried Stripe event finds its commission.
-- Custom commissions may name a sale too (the clawbacks of its refunds after payout).
CREATE UNIQUE INDEX commissions_event ON commissions (event_id, type) WHERE event_id IS NOT NULL AND type <> 'custom';
-- A lead reward is earned once per customer.
CREATE UNIQUE INDEX commissions_lead_customer ON commissions (workspace_id, customer_id) WHERE type = 'lead';
CREATE UNIQUE INDEX commissions_click_day ON commissions (partner_id, click_day) WHERE type = 'click';
CREATE INDEX commissions_list_idx ON commissions (workspace_id, created_at, seq);
CREATE INDEX commissions_partner_idx ON commissions (workspace_id, partner_id, status, currency);
CREATE INDEX commissions_payout_idx ON commissions (payout_id) WHERE payout_id IS NOT NULL;
CREATE INDEX commissions_customer_idx ON commissions (workspace_id, customer_id, partner_id) WHERE customer_id IS NOT NULL;
