-- Branded short links (operations.md §21): a link's chosen path (its key) on the short-link host
-- or on a host its workspace holds active, and the workspace's default host for new links.

-- A key of a link on a host. host '' is the short-link host (SHORT_LINK_BASE_URL's: stored
-- empty, so changing that setting keeps every key); any other is a claimed host, as domains
-- stores it. One row per (host, key) server-wide, held by the link while freed_at is null. A
-- key a link gives up (the link deleted, or its key changed) keeps its row with freed_at set,
-- and stays taken for 30 days by the database clock, so a printed link never leads somewhere
-- else at once; after that a new key on the same place replaces the row.
-- workspace_id is the link's: the redirect on a claimed host follows a key only while that
-- workspace holds the host active, as it does for aliases (link_aliases).
CREATE TABLE link_keys (
  host text NOT NULL,
  key text NOT NULL,
  link_id uuid NOT NULL REFERENCES links(id) ON DELETE CASCADE,
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  freed_at timestamptz,
  PRIMARY KEY (host, key)
);
-- A link holds at most one key at a time (its Link record's domain and key).
CREATE UNIQUE INDEX link_keys_live_link ON link_keys (link_id) WHERE freed_at IS NULL;
-- A workspace's keys on a host (removed with its claim, or when another workspace verifies it).
CREATE INDEX link_keys_workspace_host_idx ON link_keys (workspace_id, host);

-- The workspace's default host for new links: one at a time (PATCH /api/domains/{id}).
ALTER TABLE domains ADD COLUMN is_default boolean NOT NULL DEFAULT false;
CREATE UNIQUE INDEX domains_one_default ON domains (workspace_id) WHERE is_default AND deleted_at IS NULL;
