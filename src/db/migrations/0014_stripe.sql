-- Stripe (operations.md §12): a workspace's connection, the events it received, which Stripe
-- customer is which of our customers, and refunds that arrived before their sale. Sales stay in
-- sale_events (the conversions module's table), which learns the Stripe ids that tie a later
-- invoice or refund to them, and how much of them was refunded.

-- One live connection per workspace. Its id is random (v4, 122 random bits), not time-ordered:
-- it is the only thing that names the connection in the webhook URL Stripe posts to.
CREATE TABLE stripe_connections (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  status text NOT NULL CHECK (status IN ('pending', 'connected')),
  -- The endpoint's signing secret (whsec_…), sealed (core/sealed.ts, purpose 'stripe-secret');
  -- null until connected, and cleared when the connection is deleted.
  secret_sealed text,
  test_mode boolean NOT NULL DEFAULT false,
  -- The Stripe API version the event shapes are read as (the one the fixtures use).
  api_version text NOT NULL DEFAULT '2024-06-20',
  connected_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  seq bigint GENERATED ALWAYS AS IDENTITY
);
CREATE UNIQUE INDEX stripe_connections_workspace ON stripe_connections (workspace_id) WHERE deleted_at IS NULL;

-- Every event received with a valid signature, and what became of it.
CREATE TABLE stripe_events (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  connection_id uuid NOT NULL REFERENCES stripe_connections(id),
  stripe_id text NOT NULL,
  type text NOT NULL,
  livemode boolean NOT NULL,
  outcome text NOT NULL CHECK (outcome IN ('sale', 'renewal', 'refund', 'duplicate', 'unattributed', 'test_mode', 'ignored')),
  sale_id uuid,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  seq bigint GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX stripe_events_list_idx ON stripe_events (workspace_id, created_at, seq);

-- The event ids a connection has acted on: the first delivery claims the id (a second one,
-- concurrent or later, finds it taken), and a claim older than 30 days may be taken again.
CREATE TABLE stripe_event_ids (
  connection_id uuid NOT NULL REFERENCES stripe_connections(id),
  stripe_id text NOT NULL,
  seen_at timestamptz NOT NULL,
  PRIMARY KEY (connection_id, stripe_id)
);

-- The Stripe customer (cus_…) a completed checkout named, as our customer's external id, and
-- the click its checkout carried (a renewal of a customer without a lead is attributed to it).
CREATE TABLE stripe_customers (
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  stripe_customer_id text NOT NULL,
  customer_external_id text NOT NULL,
  click_id uuid,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, stripe_customer_id)
);

-- charge.refunded for a payment intent no sale holds yet: applied when that sale is recorded.
CREATE TABLE stripe_pending_refunds (
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  payment_intent_id text NOT NULL,
  amount_refunded bigint NOT NULL CHECK (amount_refunded >= 0),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, payment_intent_id)
);

-- Sales: the refunded part (analytics count amount - refunded_amount, in the sale's period), and
-- the Stripe invoice and payment intent that paid them. An invoice is one sale at most.
ALTER TABLE sale_events
  ADD COLUMN refunded_amount bigint NOT NULL DEFAULT 0 CHECK (refunded_amount >= 0),
  ADD COLUMN stripe_invoice_id text,
  ADD COLUMN stripe_payment_intent_id text;
CREATE UNIQUE INDEX sale_events_stripe_invoice ON sale_events (workspace_id, stripe_invoice_id) WHERE stripe_invoice_id IS NOT NULL;
CREATE INDEX sale_events_stripe_payment_intent ON sale_events (workspace_id, stripe_payment_intent_id) WHERE stripe_payment_intent_id IS NOT NULL;
