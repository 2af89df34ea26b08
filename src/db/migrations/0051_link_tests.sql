-- A/B tests of destinations (operations.md §20). A link's running test is a value on the link
-- (`links.test`: its id, variants, end, metric, currency and autoApply), so the redirect reads it
-- with the link and nothing else; every test, running or completed, is a row of link_tests,
-- which keeps its results and winner once completed. At most one running test per link.
CREATE TABLE link_tests (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  link_id uuid NOT NULL REFERENCES links(id),
  -- [{ "url": "https://…", "weight": 50 }, …] in the order the variants are numbered.
  variants jsonb NOT NULL,
  ends_at timestamptz NOT NULL,
  metric text NOT NULL CHECK (metric IN ('leads', 'sales', 'revenue')),
  currency text,
  auto_apply boolean NOT NULL DEFAULT true,
  status text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'completed')),
  winner smallint,
  -- The figures as they stood at completion (the answer of GET /api/links/{id}/test).
  results jsonb,
  started_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz,
  seq bigint GENERATED ALWAYS AS IDENTITY
);
CREATE UNIQUE INDEX link_tests_running ON link_tests (link_id) WHERE status = 'running';
CREATE INDEX link_tests_of_link ON link_tests (workspace_id, link_id, seq);
-- The completion job's look-up of tests past their end.
CREATE INDEX link_tests_due ON link_tests (ends_at) WHERE status = 'running';

ALTER TABLE links ADD COLUMN test jsonb;

-- The test a click joined and the index of its variant; leads and sales copy them from their
-- click as they copy its other dimensions. Null for every click that did not join a test.
ALTER TABLE clicks ADD COLUMN test_id uuid, ADD COLUMN variant smallint;
ALTER TABLE lead_events ADD COLUMN test_id uuid, ADD COLUMN variant smallint;
ALTER TABLE sale_events ADD COLUMN test_id uuid, ADD COLUMN variant smallint;
CREATE INDEX clicks_test_idx ON clicks (test_id, variant) WHERE test_id IS NOT NULL;
CREATE INDEX lead_events_test_idx ON lead_events (test_id) WHERE test_id IS NOT NULL;
CREATE INDEX sale_events_test_idx ON sale_events (test_id) WHERE test_id IS NOT NULL;
