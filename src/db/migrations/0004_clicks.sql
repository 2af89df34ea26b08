-- One row per forwarding. Written in batches by the click queue, never on the request path.
CREATE TABLE clicks (
  id uuid PRIMARY KEY,
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
  seq bigint GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX clicks_list_idx ON clicks (workspace_id, created_at, seq);
CREATE INDEX clicks_link_idx ON clicks (link_id, created_at);
