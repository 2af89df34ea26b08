/**
 * In-memory PGlite databases with every migration applied, for test apps on the embedded engine.
 * Each test process makes one (initdb and the migrations, about 2 s) and dumps it; each database
 * after that starts from the dump (about 1 s and 1 s of CPU), still a database of its own.
 *
 * A test app's database is handed back when the app closes (releasePglite) and, emptied, given to
 * the next app of the same process instead of opening another: about a second of the two cores'
 * time per app, and the suite starts hundreds. Emptied means as from the dump: every table
 * truncated with its sequences restarted (the migrations' own record kept), the session reset
 * (DISCARD ALL, then PGlite's search_path), and only when its schema is still the dump's — a database whose tables,
 * columns, constraints, indexes, functions, triggers or settings a test changed is closed instead.
 */
import { openPglite, pgliteDatabase, type Database } from '../../src/db/connect.js';
import type { PgliteThread } from '../../src/db/pglite-thread.js';
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
/** Threads emptied and waiting, each given to the next app with a Database object of its own (caches keyed by it start empty). */
const idle: PgliteThread[] = [];

async function digestOf(database: Database): Promise<string> {
  return (await database.pglite!.query<{ digest: string }>(SCHEMA_DIGEST)).rows[0]!.digest;
}

/** The dump's schema digest and the statement that empties its tables, read from a database fresh from the dump. */
async function shapeOf(database: Database): Promise<Shape> {
  const tables = await database.pglite!.query<{ name: string }>(
    `SELECT quote_ident(relname) AS name FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'p') AND NOT relispartition AND relname <> '${KEPT}' ORDER BY relname`,
  );
  return { digest: await digestOf(database), empty: `TRUNCATE ${tables.rows.map((t) => t.name).join(', ')} RESTART IDENTITY CASCADE` };
}

export async function migratedPglite(): Promise<Database> {
  const reused = idle.pop();
  if (reused) return pgliteDatabase(reused);
  template ??= migratedPgliteDump('none');
  const database = await openPglite('memory://', await template);
  shape ??= shapeOf(database);
  await shape;
  return database;
}

/**
 * A test app's database back from the app, closed: emptied and kept for the next app when its
 * schema is still the dump's; closed otherwise (or when emptying fails).
 */
export async function releasePglite(database: Database): Promise<void> {
  try {
    const { digest, empty } = await shape!;
    const client = database.pglite!;
    // PGlite starts each database's one session with search_path public; DISCARD ALL resets it to the server's default.
    await client.exec('DISCARD ALL');
    await client.exec('SET search_path TO public');
    if ((await digestOf(database)) !== digest) return void (await database.close());
    await client.exec(empty);
    idle.push(client);
  } catch {
    await database.close().catch(() => undefined);
  }
}
