import { sql, type SQL } from 'drizzle-orm';
import { rows, type Conn } from '../../db/connect.js';

/*
 * A bound on a range of days of a workspace's referrer URLs (migration 0030). Every UTC day that
 * is over keeps its top URLS_KEPT_PER_DAY URLs by clicks, and every URL with a lead or a sale,
 * as daily rows; the rest of the day's clicks and visitors are one OTHER_URLS row. Months and
 * hours keep every URL, so whole months and the edges of a range stay exact. The cut rewrites
 * the analytics module's rollup rows from the click writer's marks (analytics_url_days), in one
 * statement with them.
 */

/** Daily referrer-URL rows a past day keeps: 30 past days read at most ~15,000 rows (1,000 a day took 48.8–53.8 ms p50 at 3 M clicks, at the edge of the 50 ms goal: BENCHMARKS.md). */
export const URLS_KEPT_PER_DAY = 500;
/** The key of a day's clicks from URLs beyond its top (no stored referrer URL can be it: they are absolute URLs). */
export const OTHER_URLS = '(other)';

const DAY_MS = 86_400_000;
/** How far ahead of this process's clock the database's may be (the cut tells a day over by it). */
const DAY_END_MARGIN_MS = 10 * 60_000;
const ZERO = '00000000-0000-0000-0000-000000000000';

/** The (workspace, UTC midnight) pairs of these clicks (a batch is mostly runs of one pair: a run costs one comparison a click). */
export function clickDays(clicks: readonly { workspaceId: string; at: number }[]): { workspaceId: string; day: number }[] {
  const byWorkspace = new Map<string, number[]>();
  let lastWorkspace = '';
  let lastDay = Number.NaN;
  for (const c of clicks) {
    const day = Math.floor(c.at / DAY_MS) * DAY_MS;
    if (day === lastDay && c.workspaceId === lastWorkspace) continue;
    [lastWorkspace, lastDay] = [c.workspaceId, day];
    const days = byWorkspace.get(c.workspaceId);
    if (!days) byWorkspace.set(c.workspaceId, [day]);
    else if (!days.includes(day)) days.push(day);
  }
  return [...byWorkspace].flatMap(([workspaceId, days]) => days.map((day) => ({ workspaceId, day })));
}

/**
 * Marks days whose referrer URLs the maintenance is to cut once they are over. The click writer
 * marks before its batch's transaction, in a statement of its own (a mark is a hint: one for a
 * batch that then fails costs a cut that finds nothing), so that it takes no lock in that
 * transaction beyond the rollups' own, in their order.
 */
export async function markReferrerDays(conn: Conn, days: readonly { workspaceId: string; day: number }[]): Promise<void> {
  await upsertMarks(conn, days, sql`DO NOTHING`);
}

/**
 * Marks days again, so that a cut that read them before cannot remove the mark (it removes only
 * the seq it read): after a batch's commit (a cut between the batch's first mark and its commit
 * did not see its rows), or in an import's transaction (a cut waits for it, then leaves the mark).
 */
export async function touchReferrerDays(conn: Conn, days: readonly { workspaceId: string; day: number }[]): Promise<void> {
  await upsertMarks(conn, days, sql`DO UPDATE SET seq = m.seq + 1`);
}

async function upsertMarks(conn: Conn, days: readonly { workspaceId: string; day: number }[], onConflict: SQL): Promise<void> {
  if (days.length === 0) return;
  const list = JSON.stringify(days.map((d) => ({ w: d.workspaceId, d: new Date(d.day).toISOString() })));
  await conn.execute(sql`
    INSERT INTO analytics_url_days AS m (workspace_id, day)
    SELECT x.w, x.d FROM jsonb_to_recordset(${list}::jsonb) AS x(w uuid, d timestamptz)
    ORDER BY 1, 2
    ON CONFLICT (workspace_id, day) ${onConflict}`);
}

/**
 * The days of a batch just committed that a cut may have read before the commit: those over, or
 * over within DAY_END_MARGIN_MS (a database whose clock is ahead may cut them already). A batch of
 * today's clicks alone, the usual one, has none.
 */
export function daysToTouch(days: readonly { workspaceId: string; day: number }[], nowMs: number): { workspaceId: string; day: number }[] {
  return days.filter((d) => d.day + DAY_MS - DAY_END_MARGIN_MS <= nowMs);
}

/**
 * The marks of today are written once per process and day (a batch a second would otherwise
 * probe the same mark every second); past days are marked each time, since a cut may have
 * removed their mark since.
 */
export class ReferrerDayMarks {
  private today = Number.NaN;
  private readonly marked = new Set<string>();

  unmarked(days: readonly { workspaceId: string; day: number }[], nowMs: number): { workspaceId: string; day: number }[] {
    const today = Math.floor(nowMs / DAY_MS) * DAY_MS;
    if (today !== this.today) {
      this.today = today;
      this.marked.clear();
    }
    return days.filter((d) => d.day < today || !this.marked.has(d.workspaceId));
  }

  /** After the marks were written: today's are not written again by this process. */
  written(days: readonly { workspaceId: string; day: number }[]): void {
    for (const d of days) if (d.day === this.today) this.marked.add(d.workspaceId);
  }
}

/**
 * Cuts every marked day that is over. Each day's mark is removed in the statement that folds
 * its daily referrer-URL rows beyond the top into one OTHER_URLS row (clicks and visitors
 * summed, so every total stays), and only with the seq read here: two instances maintaining at
 * once cut a day once, and once one no longer sees a mark, its cut is committed; a mark touched
 * meanwhile (a batch of that day committed beside the cut) stays, for the next run. Returns the
 * days cut and the rows folded.
 */
export async function cutReferrerDays(conn: Conn, kept = URLS_KEPT_PER_DAY): Promise<{ days: number; rows: number }> {
  // Over by the database's clock: an instance whose clock runs ahead would cut today's URLs.
  const due = await rows<Mark>(
    conn,
    sql`SELECT workspace_id AS "workspaceId", day::text AS day, seq FROM analytics_url_days WHERE day < analytics_bucket('d', now()) ORDER BY 1, 2`,
  );
  let days = 0;
  let folded = 0;
  for (const mark of due) {
    const cut = await cutDay(conn, mark, kept);
    if (cut === undefined) continue;
    days++;
    folded += cut;
  }
  return { days, rows: folded };
}

interface Mark {
  workspaceId: string;
  day: string;
  seq: number;
}

/** The rows folded, or undefined when the day's mark was gone (another instance cut it) or touched since it was read. */
async function cutDay(conn: Conn, { workspaceId, day, seq }: Mark, kept: number): Promise<number | undefined> {
  const rowsOfDay = sql`r.workspace_id = ${workspaceId}::uuid AND r.scope_id = ${workspaceId}::uuid AND r.dim = 'referrer_url' AND r.level = 'd'
    AND r.bucket = ${day}::timestamptz AND r.value <> ${OTHER_URLS}`;
  const [cut] = await rows<{ marks: number; n: number }>(
    conn,
    sql`WITH mark AS (
          DELETE FROM analytics_url_days
          WHERE workspace_id = ${workspaceId}::uuid AND day = ${day}::timestamptz AND seq = ${seq}::int RETURNING 1),
        keep AS (
          SELECT r.value FROM analytics_rollups r WHERE ${rowsOfDay}
          GROUP BY r.value ORDER BY sum(r.clicks) DESC, r.value LIMIT ${kept}),
        gone AS (
          DELETE FROM analytics_rollups r WHERE EXISTS (SELECT 1 FROM mark) AND ${rowsOfDay}
            AND r.leads = 0 AND r.sales = 0 AND r.amount = 0 AND r.value NOT IN (SELECT value FROM keep)
          RETURNING r.clicks, r.visitors),
        other AS (
          INSERT INTO analytics_rollups AS r (workspace_id, scope_id, dim, level, bucket, value, partner_id, slot, clicks, visitors)
          SELECT ${workspaceId}::uuid, ${workspaceId}::uuid, 'referrer_url', 'd', ${day}::timestamptz, ${OTHER_URLS}, ${ZERO}::uuid, 0,
            sum(clicks), sum(visitors)
          FROM gone HAVING count(*) > 0
          ON CONFLICT (workspace_id, scope_id, dim, level, bucket, value, partner_id, slot)
            DO UPDATE SET clicks = r.clicks + EXCLUDED.clicks, visitors = r.visitors + EXCLUDED.visitors)
        SELECT (SELECT count(*) FROM mark)::int AS marks, (SELECT count(*) FROM gone)::int AS n`,
  );
  return cut && cut.marks > 0 ? cut.n : undefined;
}
