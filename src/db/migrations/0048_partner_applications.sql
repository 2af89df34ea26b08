-- Applications to a partner program (operations.md §18 "Applications"). An applicant is a
-- partner (status pending, or approved with autoApprove); what only an application says is kept
-- here, one row per partner: the website and how they will promote (plain text, length-limited),
-- the terms they accepted, and whether the owners' digest has named it yet.
CREATE TABLE partner_applications (
  partner_id uuid PRIMARY KEY REFERENCES partners(id),
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  website text,
  promotion text,
  terms_url text,
  created_at timestamptz NOT NULL,
  -- When the owners' digest named it; null: still to be told.
  notified_at timestamptz
);
CREATE INDEX partner_applications_by_workspace ON partner_applications (workspace_id, created_at DESC);
CREATE INDEX partner_applications_untold ON partner_applications (workspace_id) WHERE notified_at IS NULL;

-- At most one digest to a program's owners an hour: when the last one was queued.
CREATE TABLE partner_application_digests (
  workspace_id uuid PRIMARY KEY REFERENCES workspaces(id),
  sent_at timestamptz NOT NULL
);

-- "You already applied" mails, at most one per address and program an hour, so a form posted
-- again and again (from many addresses) cannot flood an applicant's mailbox.
CREATE TABLE partner_application_repeats (
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  email text NOT NULL,
  mailed_at timestamptz NOT NULL,
  PRIMARY KEY (workspace_id, email)
);
