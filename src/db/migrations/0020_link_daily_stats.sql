-- Links list with performance (operations.md §14): GET /api/links?withStats=true sorts a
-- workspace's links by their clicks, leads, sales or revenue over a range. analytics_rollups
-- hold each link's total by day, but keyed by link first (scope_id, then dim, level, bucket):
-- summing a range for every link of a workspace walks all of its rollup rows, every dimension
-- and level. These tables keep the same per-link daily totals keyed by workspace and day, so a
-- range is one index range; they are written in the same statements as the rollups (the click
-- writer, lead and sale tracking, refunds, imports), in the rollups' UTC days.

-- A link's totals of one UTC day. `slot` as in analytics_rollups (0010): writers of several
-- instances add to different rows; readers sum the slots.
--
-- The key carries the figures (INCLUDE): ranking a workspace's links over 30 days sums one
-- figure of every link's days (at 100,000 links and 3 M clicks, 680,000 rows), and from the
-- index alone it reads a fraction of the pages the table takes (past days' pages are all-visible
-- once vacuumed). The price: adding to a row is no HOT update (its index entry changes), paid
-- by the background writers once per link and batch, never by the redirect.
CREATE TABLE link_daily_stats (
  workspace_id uuid NOT NULL,
  day date NOT NULL,
  link_id uuid NOT NULL,
  slot smallint NOT NULL,
  clicks bigint NOT NULL DEFAULT 0,
  leads bigint NOT NULL DEFAULT 0,
  sales bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (workspace_id, day, link_id, slot) INCLUDE (clicks, leads, sales)
);

-- A link's money of one UTC day in one currency (lower-case ISO 4217, as sale_events keep it):
-- net of refunds and the refunded part, in the sale's own day (as analytics_revenue_rollups, 0018).
CREATE TABLE link_daily_revenue (
  workspace_id uuid NOT NULL,
  day date NOT NULL,
  link_id uuid NOT NULL,
  currency text COLLATE "C" NOT NULL,
  slot smallint NOT NULL,
  amount numeric NOT NULL DEFAULT 0,
  refunded numeric NOT NULL DEFAULT 0,
  PRIMARY KEY (workspace_id, day, link_id, currency, slot) INCLUDE (amount)
);

-- One page of links (ordered by creation) reads its own links' days.
CREATE INDEX link_daily_stats_link_idx ON link_daily_stats (link_id, day);
CREATE INDEX link_daily_revenue_link_idx ON link_daily_revenue (link_id, day);

-- Everything counted before this migration, from the link rows of the rollups (dim '' is the
-- total, level 'd' the UTC day; a link's rows are split by partner and slot, summed here).
INSERT INTO link_daily_stats (workspace_id, day, link_id, slot, clicks, leads, sales)
SELECT workspace_id, (bucket AT TIME ZONE 'UTC')::date, scope_id, 0, sum(clicks), sum(leads), sum(sales)
FROM analytics_rollups
WHERE dim = '' AND level = 'd' AND scope_id <> workspace_id
GROUP BY 1, 2, 3;

INSERT INTO link_daily_revenue (workspace_id, day, link_id, currency, slot, amount, refunded)
SELECT workspace_id, (bucket AT TIME ZONE 'UTC')::date, scope_id, currency, 0, sum(amount), sum(refunded)
FROM analytics_revenue_rollups
WHERE dim = '' AND level = 'd' AND scope_id <> workspace_id
GROUP BY 1, 2, 3, 4;
