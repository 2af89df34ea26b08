-- One row per forwarding. Written in batches by the click queue, never on the request path.
-- The primary key includes created_at so that, on PostgreSQL, the table can be turned into a
-- time-partitioned one (PARTITION BY RANGE (created_at), monthly partitions) without changing
-- any query: every read filters by workspace and time, or looks a click up by id.
CREATE TABLE clicks (
  id uuid NOT NULL,
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  link_id uuid NOT NULL REFERENCES links(id),
  partner_id uuid,
  created_at timestamptz NOT NULL,
  country text,
  device text NOT NULL,
  browser text,
  os text,
  referrer text NOT NULL,
  referrer_url text,
  bot boolean NOT NULL DEFAULT false,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (id, created_at)
);
-- Analytics reads only human clicks of one workspace in a time range: a partial index that
-- lets counts and time series run as index-only scans.
CREATE INDEX clicks_list_idx ON clicks (workspace_id, created_at, seq) WHERE NOT bot;
CREATE INDEX clicks_link_idx ON clicks (workspace_id, link_id, created_at) WHERE NOT bot;
CREATE INDEX clicks_partner_idx ON clicks (workspace_id, partner_id, created_at) WHERE NOT bot AND partner_id IS NOT NULL;
