CREATE TABLE links (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  short_id text NOT NULL UNIQUE,
  url text NOT NULL,
  title text,
  description text,
  image text,
  utm jsonb,
  expires_at timestamptz,
  expired_url text,
  -- AES-256-GCM sealed (see src/modules/links/password.ts), never plain text.
  password_sealed text,
  cloaked boolean NOT NULL DEFAULT false,
  ios text,
  android text,
  geo jsonb,
  collection_id uuid NOT NULL REFERENCES collections(id),
  external_id text,
  tenant_id text,
  partner_id uuid REFERENCES partners(id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  seq bigint GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX links_list_idx ON links (workspace_id, created_at, seq) WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX links_external_id_unique ON links (workspace_id, external_id) WHERE deleted_at IS NULL AND external_id IS NOT NULL;
CREATE INDEX links_tenant_idx ON links (workspace_id, tenant_id) WHERE deleted_at IS NULL AND tenant_id IS NOT NULL;
CREATE INDEX links_partner_idx ON links (workspace_id, partner_id) WHERE deleted_at IS NULL AND partner_id IS NOT NULL;

-- Tag assignments; deleting a tag removes it from every link in the same transaction.
CREATE TABLE link_tags (
  link_id uuid NOT NULL REFERENCES links(id) ON DELETE CASCADE,
  tag_id uuid NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
  position integer NOT NULL,
  PRIMARY KEY (link_id, tag_id)
);
CREATE INDEX link_tags_tag_idx ON link_tags (tag_id);
