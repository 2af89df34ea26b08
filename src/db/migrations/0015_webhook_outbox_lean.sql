-- The outbox at click speed (operations.md §11). A subscribed workspace writes a link.clicked
-- event and a delivery per click in its click batch's statement; measured on a 20,000-click
-- batch, the foreign-key checks of those rows (four per click: each one a lookup and a row
-- lock) and a ~500-byte body per click cost more than the clicks themselves.
--
-- * link.clicked events keep no body (NULL): their click is stored in the same transaction,
--   and the body is composed from it when the event is sent (webhooks/store-outbox.ts,
--   storedEventBody). Their created_at is the click's, which finds the click's partition.
--   Events written before this migration keep the body they have.
-- * An event whose record holds a secret (a link's password: the Link record shows it) keeps its
--   body sealed in body_sealed (core/sealed.ts, purpose 'webhook-body'; `linktrail secrets
--   reseal` moves it to a new SECRET), body NULL: the outbox is no copy of sealed values in clear.
-- * The foreign keys of webhook_events and webhook_deliveries go. Their rows are written only by
--   the outbox statement, which takes workspace and endpoints from webhook_endpoints in that
--   statement, and deliveries point at events written beside them; workspaces and endpoints
--   are never deleted (an endpoint's deletion is deleted_at). An event's deliveries were
--   deleted by cascade: housekeeping deletes deliveries before events, and the delivery log
--   joins events, so a delivery outliving its event is never shown and is deleted in turn.
ALTER TABLE webhook_events ALTER COLUMN body DROP NOT NULL, ADD COLUMN body_sealed text;
ALTER TABLE webhook_events DROP CONSTRAINT webhook_events_workspace_id_fkey;
ALTER TABLE webhook_deliveries
  DROP CONSTRAINT webhook_deliveries_workspace_id_fkey,
  DROP CONSTRAINT webhook_deliveries_endpoint_id_fkey,
  DROP CONSTRAINT webhook_deliveries_event_id_fkey;

-- A claim reads, per endpoint, its live leases and its earliest due deliveries. Through
-- webhook_deliveries_endpoint_idx both read every pending row of the endpoint: with a backlog
-- (a million link.clicked deliveries queued under load) each claim took about half a second
-- and delivery fell to ~20 a second. These two stay as small as what they find.
CREATE INDEX webhook_deliveries_leased_idx ON webhook_deliveries (endpoint_id) WHERE status = 'pending' AND locked_until IS NOT NULL;
CREATE INDEX webhook_deliveries_endpoint_due_idx ON webhook_deliveries (endpoint_id, next_attempt_at) WHERE status = 'pending';
