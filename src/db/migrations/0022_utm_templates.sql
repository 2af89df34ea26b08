-- UTM templates (operations.md §14, daily use): named sets of UTM values a workspace applies to
-- links in the dashboard's link form. Only the form reads them: a link keeps its own copy of the
-- values (links.utm), so changing or deleting a template never changes a link.
CREATE TABLE utm_templates (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  name text NOT NULL,
  -- { source, medium, campaign, term, content, referral }: the keys of a link's utm, strings only.
  utm jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- Names are unique in a workspace ignoring case; the index also serves the list by name.
CREATE UNIQUE INDEX utm_templates_name_idx ON utm_templates (workspace_id, lower(name));
