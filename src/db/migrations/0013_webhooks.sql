-- Webhooks (operations.md §11): a workspace's endpoints, and a transactional outbox. An event
-- is written in the transaction of the change that made it (for link.clicked, the click
-- batch's), together with one delivery per enabled endpoint subscribed to its type; an event no
-- endpoint wants is not written at all. Any instance then claims due deliveries (FOR UPDATE
-- SKIP LOCKED, then a lease in locked_until while its one attempt runs), so a crash or a
-- restart loses none: an attempt whose instance died is taken again when its lease ends.

CREATE TABLE webhook_endpoints (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  url text NOT NULL,
  events text[] NOT NULL,
  description text,
  disabled boolean NOT NULL DEFAULT false,
  -- Why it is disabled: 'manual' (PATCH), 'gone' (the receiver answered 410), 'failing' (every
  -- delivery failed for 5 days), 'grant_ended' (the OAuth app that made it lost its grant).
  disabled_reason text,
  disabled_at timestamptz,
  -- Who made it, as the API shows it: { "type": "key"|"user"|"app", "id": …, "userId"?: … }.
  created_by jsonb NOT NULL,
  -- Made by an OAuth app: the grant whose end disables it.
  oauth_grant_id uuid REFERENCES oauth_grants(id),
  -- Signing secrets, sealed (core/sealed.ts, purpose 'webhook-secret'). After a roll the
  -- previous one keeps signing beside the new one until previous_secret_until.
  secret_sealed text NOT NULL,
  previous_secret_sealed text,
  previous_secret_until timestamptz,
  -- Since when every delivery has failed (null: the last one succeeded, or none was made).
  failing_since timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  seq bigint GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX webhook_endpoints_workspace_idx ON webhook_endpoints (workspace_id, seq) WHERE deleted_at IS NULL;
CREATE INDEX webhook_endpoints_grant_idx ON webhook_endpoints (oauth_grant_id) WHERE oauth_grant_id IS NOT NULL;

-- One event: its id is the webhook-id header on every attempt (for link.clicked, the click
-- id, so a replayed click batch adds no event twice). `body` is the exact JSON sent.
CREATE TABLE webhook_events (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  type text NOT NULL,
  body text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_events_created_idx ON webhook_events (created_at);

-- One event to one endpoint, and the outcome of its latest attempt. Kept 30 days.
CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints(id),
  event_id uuid NOT NULL REFERENCES webhook_events(id) ON DELETE CASCADE,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  -- Attempts made so far (the next one is attempts + 1).
  attempts integer NOT NULL DEFAULT 0,
  -- When pending: when the next attempt is due.
  next_attempt_at timestamptz,
  -- An instance is making an attempt until then; past it, the attempt is taken as lost.
  locked_until timestamptz,
  last_attempt_at timestamptz,
  last_status_code integer,
  last_error text,
  last_duration_ms integer,
  -- The first 1 KB of the latest answer.
  last_response text,
  created_at timestamptz NOT NULL DEFAULT now(),
  seq bigint GENERATED ALWAYS AS IDENTITY
);
CREATE UNIQUE INDEX webhook_deliveries_event_endpoint ON webhook_deliveries (event_id, endpoint_id);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, seq DESC);
CREATE INDEX webhook_deliveries_created_idx ON webhook_deliveries (created_at);
