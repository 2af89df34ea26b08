-- A customer is upserted by external id on every conversion; one active customer per id.
CREATE TABLE customers (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  external_id text NOT NULL,
  name text,
  email text,
  avatar text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  seq bigint GENERATED ALWAYS AS IDENTITY
);
-- The conflict target of the upsert: concurrent first events create exactly one customer.
CREATE UNIQUE INDEX customers_external_active ON customers (workspace_id, external_id) WHERE deleted_at IS NULL;
CREATE INDEX customers_list_idx ON customers (workspace_id, created_at, seq) WHERE deleted_at IS NULL;

CREATE TABLE lead_events (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  event_name text NOT NULL,
  click_id uuid NOT NULL,
  link_id uuid NOT NULL REFERENCES links(id),
  customer_id uuid NOT NULL REFERENCES customers(id),
  metadata jsonb,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  seq bigint GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX lead_events_customer_idx ON lead_events (customer_id, seq DESC);
CREATE INDEX lead_events_analytics_idx ON lead_events (workspace_id, created_at);
CREATE INDEX lead_events_link_idx ON lead_events (workspace_id, link_id, created_at);

CREATE TABLE sale_events (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  event_name text NOT NULL,
  amount bigint NOT NULL CHECK (amount >= 0),
  currency text NOT NULL,
  click_id uuid NOT NULL,
  link_id uuid NOT NULL REFERENCES links(id),
  lead_id uuid REFERENCES lead_events(id),
  customer_id uuid NOT NULL REFERENCES customers(id),
  metadata jsonb,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  seq bigint GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX sale_events_analytics_idx ON sale_events (workspace_id, created_at);
CREATE INDEX sale_events_link_idx ON sale_events (workspace_id, link_id, created_at);
