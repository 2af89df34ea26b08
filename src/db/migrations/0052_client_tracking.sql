-- Attribution from the browser (operations.md §19): a workspace's publishable key and the
-- hostnames whose pages may use it. The key is public (it sits in every page of the site), but
-- it is kept as other keys are: found by its SHA-256, its value sealed so that the settings can
-- show it again. After a rotation the former key keeps working until `expires_at`.
CREATE TABLE tracking_settings (
  workspace_id uuid PRIMARY KEY REFERENCES workspaces(id),
  allowed_hostnames text[] NOT NULL DEFAULT '{}',
  client_sales boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- A preflight names no workspace: whether any workspace allows its origin's hostname.
CREATE INDEX tracking_settings_hostnames ON tracking_settings USING gin (allowed_hostnames);

CREATE TABLE publishable_keys (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  key_hash bytea NOT NULL UNIQUE,
  key_sealed text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- null: the workspace's current key; set: a rotated key, valid until then.
  expires_at timestamptz
);
CREATE UNIQUE INDEX publishable_keys_current ON publishable_keys (workspace_id) WHERE expires_at IS NULL;

-- Where a lead or sale was reported from: the API (server), a browser with the publishable key
-- (client), a Stripe payment (stripe) or an import (import).
ALTER TABLE lead_events ADD COLUMN source text NOT NULL DEFAULT 'server';
ALTER TABLE sale_events ADD COLUMN source text NOT NULL DEFAULT 'server';
UPDATE sale_events SET source = 'stripe' WHERE stripe_invoice_id IS NOT NULL OR stripe_payment_intent_id IS NOT NULL;
