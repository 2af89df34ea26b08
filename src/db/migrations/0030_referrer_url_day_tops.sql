-- A range of days of a workspace's referrer URLs read every URL of every day (~8,000 rows a day
-- at 3 M clicks: 109 ms for 30 days). Once a UTC day is over, its daily referrer_url rows are cut
-- to its top URLs by clicks (and every URL with a lead or a sale); the rest of the day's clicks
-- and visitors are one `(other)` row (src/modules/clicks/referrer-days.ts). Month and hour rows
-- keep every URL.
--
-- The days to cut: the click writer marks each (workspace, day) it adds daily referrer_url rows
-- to (a late batch marks a past day again), and the maintenance cuts the marked past days.
-- `seq` grows each time a writer touches a mark after (or while) writing: a cut removes the mark
-- only if it still has the seq the cut read, so rows written beside a cut are never left unmarked.
CREATE TABLE analytics_url_days (
  workspace_id uuid NOT NULL,
  day timestamptz NOT NULL,
  seq integer NOT NULL DEFAULT 0,
  PRIMARY KEY (workspace_id, day)
);

-- Every day already written is marked once.
INSERT INTO analytics_url_days (workspace_id, day)
SELECT DISTINCT workspace_id, bucket FROM analytics_rollups
WHERE dim = 'referrer_url' AND level = 'd' AND scope_id = workspace_id;
