import { sql } from 'drizzle-orm';
import { rows, type Conn } from '../db/connect.js';

/**
 * Planner statistics kept fresh by the service itself (issue 41 H1): PGlite has no autovacuum,
 * and a PostgreSQL may run without it. A list planned on the statistics of an empty table took
 * 33 s over 30,000 links where 0.83 s after an ANALYZE.
 *
 * A table is stale when, since its last ANALYZE, it changed by autovacuum's own measure
 * (n_mod_since_analyze > 50 + 10% of its rows) or its size moved by more than 10% (+1 page; a
 * small table costs next to nothing to analyze).
 * The second test is the one PGlite can answer: it never flushes its per-table counters to
 * pg_stat_user_tables (n_mod_since_analyze stays 0), but pg_class.relpages is what the last
 * ANALYZE saw and pg_relation_size what is there now. Only our schemas (the search path): a
 * database shared with other software keeps its own tables to itself.
 */
const STALE_TABLES = sql`
  SELECT format('%I.%I', n.nspname, c.relname) AS name
  FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace
  LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
  WHERE c.relkind = 'r' AND n.nspname = ANY (current_schemas(false))
    AND (coalesce(s.n_mod_since_analyze, 0) > 50 + 0.1 * greatest(c.reltuples, 0)
      OR abs(pg_relation_size(c.oid) / current_setting('block_size')::int - c.relpages) > 1 + 0.1 * c.relpages)
  ORDER BY c.relname`;

/** ANALYZEs every stale table, one at a time (each a short lock that writes do not wait on); the names analyzed. */
export async function analyzeStaleTables(db: Conn): Promise<string[]> {
  const stale = await rows<{ name: string }>(db, STALE_TABLES);
  // The names come from the catalogue, quoted by format('%I'): nothing of a caller's reaches this text.
  for (const { name } of stale) await db.execute(sql.raw(`ANALYZE ${name}`));
  return stale.map((t) => t.name);
}

/** How soon after a bulk write, and at most how often, the stale tables are analyzed. */
const AFTER_WRITE_MS = 1000;
const AT_MOST_EVERY_MS = 30_000;

/**
 * Runs analyzeStaleTables a second after a bulk write (a bulk request, an import's batch), at
 * most once every 30 s whatever the number of writes: a burst of 50 batches costs one or two
 * runs, each reading the catalogue once and analyzing only what changed.
 */
export class TableStatsKeeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private lastRunAt = -Infinity;
  private closed = false;

  constructor(
    private readonly db: Conn,
    private readonly onError: (err: unknown) => void,
    private readonly onAnalyzed: (tables: string[]) => void = () => undefined,
  ) {}

  /** Bulk writes happened: analyze what they made stale, soon. */
  wrote(): void {
    if (this.timer || this.closed) return;
    const wait = Math.max(AFTER_WRITE_MS, this.lastRunAt + AT_MOST_EVERY_MS - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.run();
    }, wait);
    this.timer.unref();
  }

  /** One run now (the periodic maintenance's step); a run under way is shared. */
  run(): Promise<void> {
    this.running ??= (async () => {
      this.lastRunAt = Date.now();
      try {
        const analyzed = await analyzeStaleTables(this.db);
        if (analyzed.length > 0) this.onAnalyzed(analyzed);
      } catch (err) {
        this.onError(err);
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.running;
  }
}
