-- Old short URLs keep working (operations.md §13): a workspace claims a host, proves it with a
-- TXT record, and its links' aliases (old short URLs on that host) redirect as the links do.

-- A claim of a host by a workspace. Several workspaces may claim one host while pending (a
-- squatter's claim must not block the real owner); only one holds it active (the first whose
-- TXT record is verified), enforced below.
CREATE TABLE domains (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  -- Lower-case, punycode, no port, no trailing dot (domains/host.ts): compared as stored.
  host text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'active')),
  -- The value the TXT record `_linktrail.<host>` must hold; random per claim, so a record left
  -- by an earlier owner of the host proves nothing for a new claim.
  txt_value text NOT NULL,
  -- Where `/` and unknown paths of the host go (302); null: the 404 page.
  root_url text,
  not_found_url text,
  verified_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- Soft delete keeps the history of who held a host; every index below ignores deleted claims.
  deleted_at timestamptz,
  seq bigint GENERATED ALWAYS AS IDENTITY
);
-- One active holder per host, server-wide: two verifications racing cannot both win.
CREATE UNIQUE INDEX domains_active_host ON domains (host) WHERE status = 'active' AND deleted_at IS NULL;
-- A workspace claims a host once (a second claim would only duplicate the first).
CREATE UNIQUE INDEX domains_workspace_host ON domains (workspace_id, host) WHERE deleted_at IS NULL;
-- The list, newest first, in insertion order.
CREATE INDEX domains_list_idx ON domains (workspace_id, created_at, seq) WHERE deleted_at IS NULL;

-- A link's old short URLs. Host and path are unique server-wide: one URL leads to one link.
-- The path is compared exactly (many services' ids differ only by case) and stored without its
-- one trailing slash (`/spring/` is `/spring`), so the redirect strips it the same way.
-- workspace_id is the link's: the redirect routes an alias only while that workspace holds the
-- host active, so a claim that changed hands never sends visitors to the former holder's links.
CREATE TABLE link_aliases (
  host text NOT NULL,
  path text NOT NULL,
  link_id uuid NOT NULL REFERENCES links(id) ON DELETE CASCADE,
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  -- The order the link's aliases were given in (the Link record lists them so).
  position integer NOT NULL,
  PRIMARY KEY (host, path)
);
-- A link's aliases (the Link record, replacing them on update).
CREATE INDEX link_aliases_link_idx ON link_aliases (link_id);
-- A workspace's aliases on a host (removed with its claim).
CREATE INDEX link_aliases_workspace_host_idx ON link_aliases (workspace_id, host);
