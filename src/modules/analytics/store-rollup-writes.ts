import { sql, type SQL } from 'drizzle-orm';

/*
 * The analytics module owns the rollup tables (analytics_rollups, analytics_revenue_rollups,
 * analytics_hot_links, link_daily_stats, link_daily_revenue) and reads them; the click writer
 * (clicks/store.ts) and the tracking and import statements (conversions/event-rollups.ts) add
 * to them in the statement that stores their clicks and events, so a retried or replayed write
 * adds nothing twice. They take these pieces through analytics/service.ts.
 */

/** Bit of clicks.visitor_flags: the click is its visitor's first of the UTC day in the workspace (counted in the workspace's `visitors`). */
export const FIRST_IN_WORKSPACE = 1;
/** Bit of clicks.visitor_flags: the click is its visitor's first of the UTC day on its link (counted in the link's and partner's `visitors`). */
export const FIRST_ON_LINK = 2;

/**
 * The writes of link_daily_stats and link_daily_revenue (migration 0020): each link's totals by
 * UTC day, keyed by workspace and day so that GET /api/links?withStats can sum a range for every
 * link at once. Every writer of analytics_rollups adds to them in the same statement, from the
 * same rows (the click writer, tracking, refunds, imports), so the two never disagree. Rows are
 * grouped first (a statement may add to a row only once) and written in key order (writers
 * never deadlock on them).
 */

/**
 * A condition that holds once the statement's write `cte` (a WITH query with RETURNING) has run
 * to completion: a write gated by it takes its rows' locks after that one's. Every writer takes
 * the tables in one order — analytics_rollups, analytics_revenue_rollups, link_daily_stats,
 * link_daily_revenue — so that two never wait on each other in a cycle (PostgreSQL runs a
 * statement's unread WITH writes last to first: left alone, a lead took its link day first while
 * the click writer took its rollups first, and they deadlocked).
 */
export const afterWrite = (cte: string): SQL => sql.raw(`(SELECT count(*) FROM ${cte}) >= 0`);

/** The UTC day of a timestamptz expression, as the rollups' 'd' buckets cut it. */
export const utcDay = (at: SQL): SQL => sql`(${at} AT TIME ZONE 'UTC')::date`;

/** Adds `source` (columns workspace_id, day, link_id, clicks, leads, sales) to link_daily_stats on `slot`. */
export function addLinkDays(source: SQL, slot: number): SQL {
  return sql`INSERT INTO link_daily_stats AS r (workspace_id, day, link_id, slot, clicks, leads, sales)
    SELECT x.workspace_id, x.day, x.link_id, ${slot}::smallint, sum(x.clicks), sum(x.leads), sum(x.sales)
    FROM (${source}) x GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (workspace_id, day, link_id, slot)
    DO UPDATE SET clicks = r.clicks + EXCLUDED.clicks, leads = r.leads + EXCLUDED.leads, sales = r.sales + EXCLUDED.sales
    RETURNING 1`;
}

/** Adds `source` (columns workspace_id, day, link_id, currency, amount, refunded) to link_daily_revenue on `slot`. */
export function addLinkRevenueDays(source: SQL, slot: number): SQL {
  return sql`INSERT INTO link_daily_revenue AS r (workspace_id, day, link_id, currency, slot, amount, refunded)
    SELECT x.workspace_id, x.day, x.link_id, x.currency, ${slot}::smallint, sum(x.amount), sum(x.refunded)
    FROM (${source}) x GROUP BY 1, 2, 3, 4 ORDER BY x.workspace_id, x.day, x.link_id, x.currency COLLATE "C"
    ON CONFLICT (workspace_id, day, link_id, currency, slot)
    DO UPDATE SET amount = r.amount + EXCLUDED.amount, refunded = r.refunded + EXCLUDED.refunded
    RETURNING 1`;
}
