import type { Logger } from 'pino';
import type { Database, RawSession } from '../../db/connect.js';

/** Partitions kept ready: the current month and this many after it. */
export const MONTHS_AHEAD = 2;
const EVERY_MS = 6 * 3_600_000;
const RETRY_MS = 10 * 60_000;
// Arbitrary constant shared by every instance (the migrations use 7_130_021).
const LOCK_ID = 7_130_022;
// A job that would wait longer than this for the clicks table gives up until its next run
// (10 minutes later), instead of making every click write queue behind it.
const LOCK_TIMEOUT = '5s';
const DELETE_BATCH = 5000;

/** The first instant (UTC) of the month `offset` months after the one holding `at`. */
export function monthStart(at: Date, offset = 0): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + offset, 1));
}

/** clicks_pYYYY_MM: the only partitions this job creates and drops. */
export function partitionName(month: Date): string {
  return `clicks_p${String(month.getUTCFullYear()).padStart(4, '0')}_${String(month.getUTCMonth() + 1).padStart(2, '0')}`;
}

function monthOfPartition(name: string): Date | undefined {
  const m = /^clicks_p(\d{4,})_(\d{2})$/.exec(name);
  return m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, 1)) : undefined;
}

/**
 * Clicks before this instant are past retention: the months that ended at least `months`
 * months ago (with 3, on any day of May everything before February).
 */
export function retentionCutoff(now: Date, months: number): Date {
  return monthStart(now, -months);
}

export interface PartitionReport {
  /** Whether `clicks` is partitioned (PostgreSQL; PGlite keeps one table). */
  partitioned: boolean;
  created: string[];
  /** Rows moved out of clicks_default into a partition created for their month. */
  moved: number;
  dropped: string[];
  /** Rows deleted past retention (the one table, or clicks_default). */
  deleted: number;
}

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
      await s.query<{ name: string }>(`SELECT attname AS name FROM pg_attribute WHERE attrelid = 'clicks'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`)
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

/**
 * One maintenance run: partitions ahead (when `clicks` is partitioned), then retention if
 * `retentionMonths` is set. Safe to run on several instances at once. analytics_rollups are
 * never touched: the counts of dropped clicks stay.
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
    const cutoff = retentionCutoff(now, retentionMonths);
    if (current) await dropOldPartitions(s, current, cutoff, log, report);
    else await deleteOldRows(s, cutoff, database.kind === 'pglite', report);
    if (report.deleted > 0) log.info({ before: cutoff.toISOString(), deleted: report.deleted }, 'deleted clicks past CLICK_RETENTION_MONTHS');
  });
  return report;
}

export interface ClickPartitionOptions {
  database: Database;
  clock: () => Date;
  retentionMonths: number | undefined;
  log: Logger;
}

/** Runs maintainClickPartitions at start and every 6 hours (10 minutes after a failure). */
export class ClickPartitionKeeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<PartitionReport> | undefined;
  private closed = false;

  constructor(private readonly o: ClickPartitionOptions) {}

  start(): void {
    this.schedule(0);
  }

  /** One run now, or the one already under way. */
  run(): Promise<PartitionReport> {
    if (this.running) return this.running;
    const run = maintainClickPartitions(this.o.database, this.o.clock(), this.o.retentionMonths, this.o.log).finally(() => {
      this.running = undefined;
    });
    this.running = run;
    return run;
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.run().then(
        () => this.schedule(EVERY_MS),
        (err: unknown) => {
          this.o.log.warn({ err }, 'clicks partition maintenance failed; retrying in 10 minutes');
          this.schedule(RETRY_MS);
        },
      );
    }, ms);
    this.timer.unref();
  }

  /** Stops the schedule and waits for a run under way (it uses the database about to close). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }
}
