CREATE TABLE collections (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  name text NOT NULL,
  description text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  seq bigint GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX collections_list_idx ON collections (workspace_id, created_at, seq) WHERE deleted_at IS NULL;

-- Tags are deleted for good; their names are unique in a workspace ignoring case.
CREATE TABLE tags (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  name text NOT NULL,
  color text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  seq bigint GENERATED ALWAYS AS IDENTITY
);
CREATE UNIQUE INDEX tags_name_unique ON tags (workspace_id, lower(name));
CREATE INDEX tags_list_idx ON tags (workspace_id, created_at, seq);

CREATE TABLE partners (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  name text NOT NULL,
  email text,
  image text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  seq bigint GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX partners_list_idx ON partners (workspace_id, created_at, seq) WHERE deleted_at IS NULL;
