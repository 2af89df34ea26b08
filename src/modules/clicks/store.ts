import { randomInt } from 'node:crypto';
import { sql, type SQL } from 'drizzle-orm';
import type { Logger } from 'pino';
import { inList, rows, type Conn, type Database, type RawSession } from '../../db/connect.js';
import type { IdHolder } from '../../db/resource-table.js';
import { clickDays, daysToTouch, markReferrerDays, ReferrerDayMarks, touchReferrerDays } from './referrer-days.js';
import { CLICK_COPY_COLUMNS, clickCopyChunks, enrichClick, type ClickRow, type ClickVariant, type RawClick } from './record.js';
import type { CountryLookup } from '../../infra/country.js';
import { claimCtes, claimStatement, clickVisitorsCte, saltsOf, visitorClaims, type ClickVisitor, type VisitorClaim } from './visitors.js';
import { addLinkDays, FIRST_IN_WORKSPACE, FIRST_ON_LINK, ROLLUP_SLOTS, utcDay } from '../analytics/service.js';
import { MONTHS_AHEAD, monthOfPartition, monthStart, partitionName, retentionCutoff, type PartitionReport } from './partitions.js';

/**
 * The rollup slot of this process's click writer. Batches of one process never overlap, so one
 * slot each is enough; instances picking different slots never wait on each other's rows.
 */
const WRITER_SLOT = randomInt(ROLLUP_SLOTS);

/**
 * Clicks in one UTC day (on one writer's slot) that make a link hot: from the next midnight its
 * dimensions are kept in rollups too (from the midnight at least an hour away, so that no batch
 * in flight has written later clicks without them). Below it, a day of the link's clicks is cheap to read and
 * its rollup rows would be nearly as many as its clicks.
 */
export const HOT_LINK_CLICKS_PER_DAY = 500;

/** The rollup key in the order of its index (byte order for text), the order rows are locked in. */
const ROLLUP_KEY_ORDER = sql.raw('workspace_id, scope_id, dim COLLATE "C", level, bucket, value COLLATE "C", partner_id');

const CLICK_COLUMNS_SQL = CLICK_COPY_COLUMNS.join(', ');

/**
 * The start of a batch's statement: `WITH`, then the outbox CTEs of its link.clicked events
 * (click-events.ts) when it has any, so that they are written with its clicks or not at all.
 * They write the webhooks module's tables (webhook_events, webhook_deliveries) in this module's
 * statement: the CTEs are that module's own SQL, handed over by the wiring (runtime.ts).
 */
const withOutbox = (outbox: SQL | undefined): SQL => (outbox ? sql`WITH ${outbox},` : sql`WITH`);

/** The CTE writing a batch's click_visitors rows (visitors.ts), followed by a comma; nothing when it has none. */
const withVisitors = (visits: readonly ClickVisitor[] | undefined): SQL => (visits?.length ? sql`${clickVisitorsCte(visits)},` : sql``);

/**
 * Inserts the clicks of `source` (a row source with the columns of CLICK_COPY_COLUMNS) and adds
 * the ones it inserted to the rollups, in one statement: a retried or replayed batch finds its
 * clicks there already and adds nothing. Clicks are first grouped by everything the rollups
 * keep (most of a batch shares its link, quarter hour, agent and referrer), then fanned out to
 * their rollup rows; the rows are written in key order so that writers never deadlock. Its
 * events (`outbox`), keyed by click id, are skipped the same way when stored already.
 */
function insertClicksCounted(source: SQL, outbox?: SQL, claims?: readonly VisitorClaim[], visits?: readonly ClickVisitor[]): SQL {
  return sql`${withOutbox(outbox)} ${claims ? sql`${claimCtes(claims)},` : sql``} ${withVisitors(visits)} ins AS (
      INSERT INTO clicks (${sql.raw(CLICK_COLUMNS_SQL)}) SELECT ${sql.raw(CLICK_COLUMNS_SQL)} FROM ${source}
      ON CONFLICT (id, created_at) DO NOTHING
      RETURNING workspace_id, link_id, partner_id, created_at, country, device, browser, os, referrer, referrer_url,
        utm_source, utm_medium, utm_campaign, utm_term, utm_content, trigger, bot, region, city, visitor_flags),
    g AS (
      SELECT workspace_id, link_id, partner_id, analytics_bucket('q', created_at) AS q, country, device, browser, os, referrer,
        referrer_url, utm_source, utm_medium, utm_campaign, utm_term, utm_content, trigger, region, city, count(*) AS n,
        count(*) FILTER (WHERE visitor_flags & ${sql.raw(String(FIRST_IN_WORKSPACE))} <> 0) AS vw, count(*) FILTER (WHERE visitor_flags & ${sql.raw(String(FIRST_ON_LINK))} <> 0) AS vl
      FROM ins WHERE NOT bot GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18),
    ${rollupsOfG()}`;
}

/**
 * The rest of a click batch's statement, from `g` (its human clicks grouped by everything the
 * rollups keep, with their count n) on: fanned out to rollup rows, written in key order (so
 * writers never deadlock), each link's day added to link_daily_stats (migration 0020), and a
 * link whose day reaches HOT_LINK_CLICKS_PER_DAY marked hot.
 * These are the analytics module's tables (src/README.md), written here so that the clicks and
 * their counts commit together.
 */
function rollupsOfG(): SQL {
  return sql`sums AS MATERIALIZED (
      SELECT g.workspace_id, k.scope_id, k.dim, k.level, analytics_bucket(k.level, g.q) AS bucket, k.value, k.partner_id, sum(g.n) AS n,
        sum(CASE WHEN k.scope_id = g.workspace_id THEN g.vw ELSE g.vl END) AS v
      FROM g LEFT JOIN analytics_hot_links h ON h.link_id = g.link_id
      CROSS JOIN LATERAL analytics_keys(g.workspace_id, g.link_id, g.partner_id, g.country, g.device, g.browser, g.os, g.referrer,
        g.referrer_url, g.utm_source, g.utm_medium, g.utm_campaign, g.utm_term, g.utm_content, g.trigger, (g.q >= h.dims_from) IS TRUE,
        (g.q >= h.urls_from) IS TRUE, g.region, g.city, (g.q >= h.places_from) IS TRUE) k
      GROUP BY 1, 2, 3, 4, 5, 6, 7),
    up AS (
      INSERT INTO analytics_rollups AS r (workspace_id, scope_id, dim, level, bucket, value, partner_id, slot, clicks, visitors)
      SELECT workspace_id, scope_id, dim, level, bucket, value, partner_id, ${WRITER_SLOT}::smallint, n, v FROM sums
      ORDER BY ${ROLLUP_KEY_ORDER}
      ON CONFLICT (workspace_id, scope_id, dim, level, bucket, value, partner_id, slot)
        DO UPDATE SET clicks = r.clicks + EXCLUDED.clicks, visitors = r.visitors + EXCLUDED.visitors
      RETURNING r.workspace_id, r.scope_id, r.dim, r.level, r.clicks),
    days AS (${addLinkDays(
      sql`SELECT workspace_id, ${utcDay(sql`bucket`)} AS day, scope_id AS link_id, n AS clicks, 0 AS leads, 0 AS sales
        FROM sums WHERE level = 'd' AND dim = '' AND scope_id <> workspace_id`,
      WRITER_SLOT,
    )})
    INSERT INTO analytics_hot_links (link_id, workspace_id, dims_from, urls_from, places_from)
    SELECT scope_id, workspace_id, m.midnight, m.midnight, m.midnight
    FROM up CROSS JOIN (SELECT analytics_bucket('d', now() + interval '1 hour') + interval '1 day' AS midnight) m
    WHERE level = 'd' AND dim = '' AND scope_id <> workspace_id AND clicks >= ${HOT_LINK_CLICKS_PER_DAY}
    GROUP BY 1, 2, 3
    ON CONFLICT (link_id) DO NOTHING`;
}

const QUARTER_HOUR = 900_000;
const GROUP_FIELDS = [
  'workspaceId',
  'linkId',
  'partnerId',
  'country',
  'device',
  'browser',
  'os',
  'referrer',
  'referrerUrl',
  'utmSource',
  'utmMedium',
  'utmCampaign',
  'utmTerm',
  'utmContent',
  'trigger',
  'region',
  'city',
] as const;

/** One row of `g`: what the rollups keep of a group of clicks, its quarter hour, its count and its new visitors (workspace, link). */
export type ClickGroupRow = Pick<ClickRow, (typeof GROUP_FIELDS)[number]> & { q: string; n: number; vw: number; vl: number };

interface Counts {
  n: number;
  vw: number;
  vl: number;
}

/**
 * A batch's human clicks grouped as `g` groups them (by quarter hour and everything the rollups
 * keep), counted as the batch is encoded: clicks of one variant (record.ts) share all of
 * that, so a count per variant and quarter is one map lookup per click.
 */
export class ClickGroups {
  private readonly byQuarter = new Map<number, Map<ClickVariant, Counts>>();
  readonly add = (variant: ClickVariant, at: number, flags: number): void => {
    if (variant.row.bot) return;
    const quarter = Math.floor(at / QUARTER_HOUR);
    let counts = this.byQuarter.get(quarter);
    if (!counts) this.byQuarter.set(quarter, (counts = new Map()));
    let c = counts.get(variant);
    if (!c) counts.set(variant, (c = { n: 0, vw: 0, vl: 0 }));
    c.n++;
    if (flags & FIRST_IN_WORKSPACE) c.vw++;
    if (flags & FIRST_ON_LINK) c.vl++;
  };

  /** The groups; two variants with the same values (a cache was emptied between) are both kept: `sums` adds them. */
  rows(): ClickGroupRow[] {
    const rows: ClickGroupRow[] = [];
    for (const [quarter, counts] of this.byQuarter) {
      const q = new Date(quarter * QUARTER_HOUR).toISOString();
      for (const [{ row }, { n, vw, vl }] of counts) {
        const group = { q, n, vw, vl } as ClickGroupRow;
        for (const f of GROUP_FIELDS) (group as Record<string, unknown>)[f] = row[f];
        rows.push(group);
      }
    }
    return rows;
  }

  /** The statement that adds these groups to the rollups (after their clicks were written), and writes `outbox` and `visits`. */
  rollups(outbox?: SQL, visits?: readonly ClickVisitor[]): SQL {
    return sql`${withOutbox(outbox)} ${withVisitors(visits)} g AS (
        SELECT x."workspaceId" AS workspace_id, x."linkId" AS link_id, x."partnerId" AS partner_id, analytics_bucket('q', x.q) AS q,
          x.country, x.device, x.browser, x.os, x.referrer, x."referrerUrl" AS referrer_url, x."utmSource" AS utm_source,
          x."utmMedium" AS utm_medium, x."utmCampaign" AS utm_campaign, x."utmTerm" AS utm_term, x."utmContent" AS utm_content, x.trigger,
          x.region, x.city, x.n, x.vw, x.vl
        FROM jsonb_to_recordset(${JSON.stringify(this.rows())}::jsonb) AS x(
          "workspaceId" uuid, "linkId" uuid, "partnerId" uuid, q timestamptz, country text, device text, browser text, os text,
          referrer text, "referrerUrl" text, "utmSource" text, "utmMedium" text, "utmCampaign" text, "utmTerm" text,
          "utmContent" text, trigger text, region text, city text, n bigint, vw bigint, vl bigint)),
      ${rollupsOfG()}`;
  }
}

/** Clicks as a row source from one JSON parameter (the embedded engine has no COPY), with the flags of their visitor claims (`vf`). */
function jsonSource(clicks: ClickRow[], claimed: boolean): SQL {
  return sql`(SELECT x.id, x."workspaceId" AS workspace_id, x."linkId" AS link_id, x."partnerId" AS partner_id, x."createdAt" AS created_at,
      x.country, x.device, x.browser, x.os, x.referrer, x."referrerUrl" AS referrer_url, x.bot, x."utmSource" AS utm_source,
      x."utmMedium" AS utm_medium, x."utmCampaign" AS utm_campaign, x."utmTerm" AS utm_term, x."utmContent" AS utm_content, x.trigger,
      x.region, x.city, ${claimed ? sql`COALESCE(vf.flags, 0)` : sql`0::smallint`} AS visitor_flags, x."testId" AS test_id, x.variant
    FROM jsonb_to_recordset(${JSON.stringify(clicks)}::jsonb) AS x(
      id uuid, "workspaceId" uuid, "linkId" uuid, "partnerId" uuid, "createdAt" timestamptz, country text, device text,
      browser text, os text, referrer text, "referrerUrl" text, bot boolean, "utmSource" text, "utmMedium" text,
      "utmCampaign" text, "utmTerm" text, "utmContent" text, trigger text, region text, city text, "testId" uuid, variant smallint)
    ${claimed ? sql`LEFT JOIN vf ON vf.id = x.id` : sql``}) AS src`;
}

/**
 * One statement for a whole batch of clicks, their visitor claims, rollups and events; clicks
 * already stored are skipped. Imported clicks have no claims (no visitor is known).
 */
export async function insertClicks(
  conn: Conn,
  clicks: ClickRow[],
  outbox?: SQL,
  claims?: readonly VisitorClaim[],
  visits?: readonly ClickVisitor[],
): Promise<void> {
  if (clicks.length === 0) return;
  const claimed = claims !== undefined && claims.length > 0;
  await conn.execute(insertClicksCounted(jsonSource(clicks, claimed), outbox, claimed ? claims : undefined, visits));
}

/** Which of these click ids are stored, this workspace's or another's (clicks are never soft-deleted). */
export function clickHolders(conn: Conn, workspaceId: string, ids: string[]): Promise<IdHolder[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return rows<IdHolder>(
    conn,
    sql`SELECT DISTINCT ON (c.id) c.id, c.workspace_id = ${workspaceId}::uuid AS mine, true AS live FROM clicks c
        WHERE c.id ${inList(ids, 'uuid')} ORDER BY c.id, (c.workspace_id = ${workspaceId}::uuid) DESC`,
  );
}

/** Where COPY puts a batch before the statement above moves it: one per connection, emptied by each commit. */
const STAGING = {
  // A batch fans out to up to ~40 rollup rows per click: enough memory to group them in one
  // hash table rather than sorting them on disk (measured: 15 s → 5 s for 20,000 clicks of 2 days).
  ddl: `SET LOCAL work_mem = '64MB'; CREATE TEMP TABLE IF NOT EXISTS click_staging (
    id uuid, workspace_id uuid, link_id uuid, partner_id uuid, created_at timestamptz, country text, device text, browser text,
    os text, referrer text, referrer_url text, bot boolean, utm_source text, utm_medium text, utm_campaign text, utm_term text,
    utm_content text, trigger text, region text, city text, visitor_flags smallint, test_id uuid, variant smallint) ON COMMIT DELETE ROWS`,
  table: 'click_staging',
  columns: CLICK_COPY_COLUMNS,
};

const referrerDayMarks = new ReferrerDayMarks();

/**
 * Writes a batch of clicks, their rollups and their link.clicked events (`outbox`: the outbox
 * CTEs, see click-events.ts) in one transaction, enriching them on the way: COPY into a staging
 * table and one statement from there on PostgreSQL, JSON on the embedded engine. Exactly once
 * either way: a batch written again (a retry after a commit whose answer was lost, a spool
 * replay) adds nothing, no event either (an event's id is its click's). Its past days are
 * marked for the referrer-URL cut before it, and touched after it (referrer-days.ts).
 */
export async function storeClicks(database: Database, clicks: RawClick[], lookup: CountryLookup, outbox?: SQL): Promise<void> {
  if (clicks.length === 0) return;
  const salts = saltsOf(database);
  const visits: ClickVisitor[] = [];
  const claims = await visitorClaims(clicks, salts, visits);
  const days = clickDays(clicks);
  const unmarked = referrerDayMarks.unmarked(days, Date.now());
  await markReferrerDays(database.db, unmarked);
  referrerDayMarks.written(unmarked);
  await writeClicks(database, clicks, lookup, claims, visits, outbox);
  salts.remember(claims);
  await touchReferrerDays(database.db, daysToTouch(days, Date.now()));
}

/**
 * The batch's click_visitors rows (`visits`, for the fraud rules) ride in the statement after
 * the clicks on every path: no statement of their own.
 */
async function writeClicks(
  database: Database,
  clicks: RawClick[],
  lookup: CountryLookup,
  claims: VisitorClaim[],
  visits: ClickVisitor[],
  outbox?: SQL,
): Promise<void> {
  if (!database.copyThen)
    return insertClicks(
      database.db,
      clicks.map((c) => enrichClick(c, lookup)),
      outbox,
      claims,
      visits,
    );
  // On PostgreSQL the claims go first, in the batch's transaction: the COPY text carries the flags they give.
  const before = claims.length ? claimStatement(claims) : undefined;
  const flagsOf = (won: Record<string, unknown>[]) => new Map(won.map((w) => [String(w.id), Number(w.flags)]));
  if (database.copyInto) {
    // The usual batch is all new: COPY straight into clicks and add its groups, counted while it
    // was encoded, to the rollups (half the database time of going through staging: measured
    // 86 + ~10 ms against 43 + 126 ms per 20,000 clicks). A batch with a click stored already (a
    // retry, a replay) fails on that key, is rolled back whole, and goes through staging below.
    const groups = new ClickGroups();
    const done = await database.copyInto(
      'clicks',
      CLICK_COPY_COLUMNS,
      (won) => clickCopyChunks(clicks, lookup, groups.add, flagsOf(won)),
      () => groups.rollups(outbox, visits),
      before,
    );
    if (done === 'written') return;
  }
  await database.copyThen(
    STAGING,
    (won) => clickCopyChunks(clicks, lookup, undefined, flagsOf(won)),
    insertClicksCounted(sql`click_staging`, outbox, undefined, visits),
    before,
  );
}

/** Clicks replayed from a spool: some may be in the database already, and are skipped (their events too). */
export async function replayClicks(database: Database, clicks: RawClick[], lookup: CountryLookup, outbox?: SQL): Promise<void> {
  await storeClicks(database, clicks, lookup, outbox);
}

// The monthly partitions of clicks and retention: the rules are in partitions.ts, the schedule
// in maintenance.ts (run by infra/maintenance.ts).

// Arbitrary constant shared by every instance (the migrations use 7_130_021).
const LOCK_ID = 7_130_022;
// A job that would wait longer than this for the clicks table gives up until its next run
// (15 s later at first: infra/maintenance.ts), instead of making every click write queue behind it.
const LOCK_TIMEOUT = '5s';
const DELETE_BATCH = 5000;

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;
const literal = (at: Date) => `'${at.toISOString()}'`;

interface Partition {
  name: string;
  isDefault: boolean;
}

async function partitionsOf(s: RawSession): Promise<Partition[] | undefined> {
  const [table] = await s.query<{ partitioned: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_partitioned_table WHERE partrelid = to_regclass('clicks')) AS partitioned`,
  );
  if (!table?.partitioned) return undefined;
  return s.query<Partition>(
    `SELECT c.relname AS name, c.relpartbound IS NOT NULL AND pg_get_expr(c.relpartbound, c.oid) = 'DEFAULT' AS "isDefault"
     FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'clicks'::regclass`,
  );
}

/** One transaction on a session of its own, serialized between instances by the advisory lock. */
async function locked<T>(s: RawSession, fn: () => Promise<T>): Promise<T> {
  await s.exec(`BEGIN; SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
  try {
    await s.query('SELECT pg_advisory_xact_lock($1)', [LOCK_ID]);
    const result = await fn();
    await s.exec('COMMIT');
    return result;
  } catch (err) {
    await s.exec('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/**
 * Creates the missing partitions of the current month and the next ones, and clicks_default
 * if there is none. PostgreSQL refuses a partition whose range has rows in the default one (a
 * click stamped months ahead by a wrong clock), so those rows move into the new partition in
 * the same transaction, with their seq. The whole table is locked meanwhile: no click can
 * land in the default partition between the move and the creation. The default partition is
 * nearly empty by design, so this takes milliseconds.
 */
async function ensurePartitions(s: RawSession, now: Date, report: PartitionReport): Promise<Partition[]> {
  return locked(s, async () => {
    const existing = (await partitionsOf(s)) ?? [];
    const names = new Set(existing.map((p) => p.name));
    const months = Array.from({ length: MONTHS_AHEAD + 1 }, (_, k) => monthStart(now, k)).filter((m) => !names.has(partitionName(m)));
    let fallback = existing.find((p) => p.isDefault)?.name;
    if (months.length === 0 && fallback) return existing;
    await s.exec('LOCK TABLE clicks IN ACCESS EXCLUSIVE MODE');
    if (!fallback) {
      fallback = 'clicks_default';
      await s.exec('CREATE TABLE clicks_default PARTITION OF clicks DEFAULT');
      report.created.push(fallback);
    }
    const columns = (
      await s.query<{ name: string }>(
        `SELECT attname AS name FROM pg_attribute WHERE attrelid = 'clicks'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`,
      )
    )
      .map((c) => ident(c.name))
      .join(', ');
    for (const month of months) {
      const name = partitionName(month);
      const range = `created_at >= ${literal(month)} AND created_at < ${literal(monthStart(month, 1))}`;
      await s.exec(`CREATE TEMP TABLE click_moves ON COMMIT DROP AS SELECT ${columns} FROM clicks LIMIT 0`);
      const [moved] = await s.query<{ n: number }>(
        `WITH m AS (DELETE FROM ${ident(fallback)} WHERE ${range} RETURNING ${columns}),
              i AS (INSERT INTO click_moves SELECT * FROM m RETURNING 1)
         SELECT count(*)::int AS n FROM i`,
      );
      await s.exec(`CREATE TABLE ${name} PARTITION OF clicks FOR VALUES FROM (${literal(month)}) TO (${literal(monthStart(month, 1))})`);
      // Through the parent, keeping each row's seq (its place in the keyset order).
      await s.exec(`INSERT INTO clicks (${columns}) OVERRIDING SYSTEM VALUE SELECT ${columns} FROM click_moves; DROP TABLE click_moves`);
      report.created.push(name);
      report.moved += moved?.n ?? 0;
    }
    return (await partitionsOf(s)) ?? [];
  });
}

/** Detaches and drops each monthly partition wholly before `cutoff`, one transaction each. */
async function dropOldPartitions(s: RawSession, partitions: Partition[], cutoff: Date, log: Logger, report: PartitionReport): Promise<void> {
  const old = partitions
    .map((p) => ({ ...p, month: monthOfPartition(p.name) }))
    .filter((p) => !p.isDefault && p.month && monthStart(p.month, 1) <= cutoff)
    .sort((a, b) => a.month!.getTime() - b.month!.getTime());
  for (const p of old) {
    const rows = await locked(s, async () => {
      // The planner's estimate: counting a month of clicks exactly would read all of them.
      const [estimate] = await s.query<{ rows: number }>(`SELECT greatest(reltuples, 0)::bigint AS rows FROM pg_class WHERE oid = $1::regclass`, [p.name]);
      await s.exec(`ALTER TABLE clicks DETACH PARTITION ${ident(p.name)}; DROP TABLE ${ident(p.name)}`);
      return Number(estimate?.rows ?? 0);
    });
    report.dropped.push(p.name);
    log.info({ partition: p.name, month: p.month!.toISOString().slice(0, 7), approximateRows: rows }, 'dropped a month of clicks past CLICK_RETENTION_MONTHS');
  }
  const fallback = partitions.find((p) => p.isDefault);
  if (fallback) {
    const [gone] = await s.query<{ n: number }>(
      `WITH d AS (DELETE FROM ${ident(fallback.name)} WHERE created_at < $1 RETURNING 1) SELECT count(*)::int AS n FROM d`,
      [cutoff.toISOString()],
    );
    report.deleted += gone?.n ?? 0;
  }
}

/**
 * The one table (PGlite): old clicks deleted a batch per statement, so that other queries of
 * the single connection get their turn between batches. PGlite has no autovacuum (one process,
 * no background workers): the space of the deleted rows is made reusable here.
 */
async function deleteOldRows(s: RawSession, cutoff: Date, vacuum: boolean, report: PartitionReport): Promise<void> {
  let deleted = 0;
  for (;;) {
    const [batch] = await s.query<{ n: number }>(
      `WITH d AS (DELETE FROM clicks WHERE ctid IN (SELECT ctid FROM clicks WHERE created_at < $1 LIMIT ${DELETE_BATCH}) RETURNING 1)
       SELECT count(*)::int AS n FROM d`,
      [cutoff.toISOString()],
    );
    deleted += batch?.n ?? 0;
    if ((batch?.n ?? 0) < DELETE_BATCH) break;
  }
  report.deleted += deleted;
  if (vacuum && deleted > 0) await s.exec('VACUUM (ANALYZE) clicks');
}

/** The database's clock: one for every instance. */
async function databaseNow(s: RawSession): Promise<Date> {
  const [row] = await s.query<{ ms: number }>(`SELECT (extract(epoch FROM now()) * 1000)::float8 AS ms`);
  return new Date(row!.ms);
}

/**
 * One maintenance run: partitions ahead of `now` (when `clicks` is partitioned), then retention
 * if `retentionMonths` is set, by the database's clock: an instance whose clock runs ahead would
 * delete the others' recent clicks (partitions made ahead only wait for their months). Safe to
 * run on several instances at once. analytics_rollups are never touched: the counts of dropped
 * clicks stay.
 */
export async function maintainClickPartitions(database: Database, now: Date, retentionMonths: number | undefined, log: Logger): Promise<PartitionReport> {
  const report: PartitionReport = { partitioned: false, created: [], moved: 0, dropped: [], deleted: 0 };
  // PGlite keeps one table (migration 0011): nothing to do there but retention.
  if (database.kind === 'pglite' && retentionMonths === undefined) return report;
  await database.withSession(async (s) => {
    const partitions = database.kind === 'postgres' ? await partitionsOf(s) : undefined;
    report.partitioned = partitions !== undefined;
    const current = partitions ? await ensurePartitions(s, now, report) : undefined;
    if (report.created.length > 0) log.info({ created: report.created, movedFromDefault: report.moved }, 'created clicks partitions');
    if (retentionMonths === undefined) return;
    const cutoff = retentionCutoff(await databaseNow(s), retentionMonths);
    if (current) await dropOldPartitions(s, current, cutoff, log, report);
    else await deleteOldRows(s, cutoff, database.kind === 'pglite', report);
    if (report.deleted > 0) log.info({ before: cutoff.toISOString(), deleted: report.deleted }, 'deleted clicks past CLICK_RETENTION_MONTHS');
  });
  return report;
}
