/**
 * In-memory PGlite databases with every migration applied, for test apps on the embedded engine.
 * Each test process makes one (initdb and the migrations, about 2 s) and dumps it; each database
 * after that starts from the dump (about 1 s and 1 s of CPU), still a database of its own.
 *
 * A test app's database thread is lent, not given: when the app closes its database the
 * thread is emptied and lent to the next app of the same process instead of opening another —
 * about a second of the two cores' time per app, and the suite starts hundreds.
 * - The lease ends first: whatever the closed app still runs (a timer, a late flush) gets the
 *   error of a closed database, as it would without reuse, and cannot hold the next app's
 *   database in a transaction of its own.
 * - A thread still busy shortly after its lease ended (a transaction its closed app never ends)
 *   is closed, not lent again.
 * - Emptied means as from the dump: every table truncated with its sequences restarted (the
 *   migrations' own record kept), the session reset (DISCARD ALL, then PGlite's search_path),
 *   and only when its schema is still the dump's — a database whose tables, columns,
 *   constraints, indexes, functions, triggers or settings a test changed is closed instead.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { openPglite, pgliteDatabase, type Database } from '../../src/db/connect.js';
import { workerGone, type PgliteClient, type PgliteThread } from '../../src/db/pglite-thread.js';
import { migratedPgliteDump } from '../../src/db/migrate.js';

let template: Promise<Blob> | undefined;

/** The migrations' record: the only table the dump has rows in, kept as it is. */
const KEPT = 'schema_migrations';

// Everything a test could change in the schema, as one digest (OIDs left out: TRUNCATE keeps them, a re-created object would not match by name and kind anyway).
const SCHEMA_DIGEST = `
SELECT md5(string_agg(x, E'\\n' ORDER BY x)) AS digest FROM (
  SELECT 'rel ' || n.nspname || '.' || c.relname || ' ' || c.relkind::text || ' ' || c.relpersistence::text AS x
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
  UNION ALL SELECT 'col ' || a.attrelid::regclass || '.' || a.attname || ' ' || a.atttypid::text || ' ' || a.attnotnull::text || ' ' || a.attisdropped::text || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    WHERE n.nspname = 'public' AND a.attnum > 0
  UNION ALL SELECT 'con ' || conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint WHERE connamespace = 'public'::regnamespace
  UNION ALL SELECT 'idx ' || indexrelid::regclass || ' ' || pg_get_indexdef(indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid WHERE c.relnamespace = 'public'::regnamespace
  UNION ALL SELECT 'fn ' || oid::regprocedure || ' ' || md5(prosrc) FROM pg_proc WHERE pronamespace = 'public'::regnamespace
  UNION ALL SELECT 'trg ' || tgrelid::regclass || ' ' || tgname || ' ' || tgenabled::text FROM pg_trigger
  UNION ALL SELECT 'set ' || coalesce(array_to_string(setconfig, ','), '') FROM pg_db_role_setting
  UNION ALL SELECT 'ns ' || nspname FROM pg_namespace
  UNION ALL SELECT 'guc ' || name || '=' || setting FROM pg_settings WHERE source = 'session'
  UNION ALL SELECT 'rows ${KEPT} ' || coalesce(md5(string_agg(name || ' ' || coalesce(checksum, ''), ',' ORDER BY name)), '') FROM ${KEPT}
) parts`;

interface Shape {
  digest: string;
  /** TRUNCATE of every table but the migrations' record. */
  empty: string;
}

let shape: Promise<Shape> | undefined;
/** Threads emptied and waiting for their next app. */
const idle: PgliteThread[] = [];

/** How long a released thread may take to finish what its app had started before it is closed instead. */
const SETTLE_MS = 2_000;

/** One app's use of a thread: every call goes through it until it ends, then each fails as on a closed database. */
class Lease implements PgliteClient {
  readonly thread: PgliteThread;
  #ended = false;
  #released: Promise<void> | undefined;
  readonly #inFlight = new Set<Promise<unknown>>();

  constructor(thread: PgliteThread) {
    this.thread = thread;
  }

  #run<T>(call: () => Promise<T>): Promise<T> {
    if (this.#ended) return Promise.reject(workerGone('its lease ended'));
    const p = call();
    const tracked = p.then(
      () => undefined,
      () => undefined,
    );
    this.#inFlight.add(tracked);
    void tracked.then(() => this.#inFlight.delete(tracked));
    return p;
  }

  query: PgliteClient['query'] = (sql, params, options) => this.#run(() => this.thread.query(sql, params, options));
  exec: PgliteClient['exec'] = (sql, options) => this.#run(() => this.thread.exec(sql, options));
  transaction: PgliteClient['transaction'] = (fn) => this.#run(() => this.thread.transaction(fn));
  dumpDataDir: PgliteClient['dumpDataDir'] = (compression) => this.#run(() => this.thread.dumpDataDir(compression));

  /** Closing a lent database gives its thread back (once, however many times it is closed). */
  close(): Promise<void> {
    this.#released ??= release(this);
    return this.#released;
  }

  /** Ends the lease; true once every call made under it has settled (within SETTLE_MS). */
  async end(): Promise<boolean> {
    this.#ended = true;
    if (this.#inFlight.size === 0) return true;
    const settled = Promise.all(this.#inFlight).then(() => true);
    return Promise.race([settled, delay(SETTLE_MS, false)]);
  }
}

function lend(thread: PgliteThread): Database {
  return pgliteDatabase(new Lease(thread));
}

async function digestOf(client: PgliteClient): Promise<string> {
  return (await client.query<{ digest: string }>(SCHEMA_DIGEST)).rows[0]!.digest;
}

/** The dump's schema digest and the statement that empties its tables, read from a database fresh from the dump. */
async function shapeOf(client: PgliteClient): Promise<Shape> {
  const tables = await client.query<{ name: string }>(
    `SELECT quote_ident(relname) AS name FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'p') AND NOT relispartition AND relname <> '${KEPT}' ORDER BY relname`,
  );
  return { digest: await digestOf(client), empty: `TRUNCATE ${tables.rows.map((t) => t.name).join(', ')} RESTART IDENTITY CASCADE` };
}

/** A database of the dump's schema and no rows: a thread lent again, or a new one. */
export async function migratedPglite(): Promise<Database> {
  const reused = idle.pop();
  if (reused) return lend(reused);
  template ??= migratedPgliteDump('none');
  const fresh = await openPglite('memory://', await template);
  const thread = fresh.pglite as PgliteThread;
  shape ??= shapeOf(thread);
  await shape;
  return lend(thread);
}

/**
 * A lease ended, its thread emptied and kept for the next app when it settled and its schema is
 * still the dump's; closed otherwise.
 */
async function release(lease: Lease): Promise<void> {
  const { thread } = lease;
  try {
    if (!(await lease.end())) return void (await thread.close());
    const { digest, empty } = await shape!;
    // PGlite starts each database's one session with search_path public; DISCARD ALL resets it to the server's default.
    await thread.exec('DISCARD ALL');
    await thread.exec('SET search_path TO public');
    if ((await digestOf(thread)) !== digest) return void (await thread.close());
    await thread.exec(empty);
    idle.push(thread);
  } catch {
    await thread.close().catch(() => undefined);
  }
}
