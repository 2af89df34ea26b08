import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { openPglite, type Database } from './connect.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
// Arbitrary constant shared by every instance: only one of them migrates at a time.
const MIGRATION_LOCK_ID = 7_130_021;

export interface Migration {
  name: string;
  sql: string;
}

export async function loadMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
  return Promise.all(files.map(async (name) => ({ name, sql: await readFile(dir + name, 'utf8') })));
}

/**
 * Applies pending migrations in order, each in its own transaction, under an advisory
 * lock so that instances starting together never race. Returns the names it applied.
 */
export async function migrate(database: Database, migrations?: Migration[]): Promise<string[]> {
  const all = migrations ?? (await loadMigrations());
  return database.withSession(async (session) => {
    await session.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    try {
      await session.exec(
        `CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());
         ALTER TABLE schema_migrations ADD COLUMN IF NOT EXISTS checksum text;`,
      );
      const done = new Map(
        (await session.query<{ name: string; checksum: string | null }>('select name, checksum from schema_migrations')).map((r) => [r.name, r.checksum]),
      );
      const applied: string[] = [];
      for (const m of all) {
        const checksum = createHash('sha256').update(m.sql).digest('hex');
        if (done.has(m.name)) {
          // An applied migration must never change: a new file is the way to change the schema.
          const recorded = done.get(m.name);
          if (recorded && recorded !== checksum) throw new Error(`migration ${m.name} was changed after it was applied`);
          // Applied before checksums were kept: record the file as it is now.
          if (!recorded) await session.query('UPDATE schema_migrations SET checksum = $1 WHERE name = $2', [checksum, m.name]);
          continue;
        }
        const quoted = m.name.replace(/'/g, "''");
        // linktrail.engine lets a migration take a step on one engine only (0011 partitions
        // clicks on PostgreSQL): current_setting('linktrail.engine', true) is 'postgres' or 'pglite'.
        // The pool's statement_timeout (60 s) is for requests: a backfill or a table copy on a
        // large database takes what it takes.
        await session.exec(
          `BEGIN;\nSET LOCAL linktrail.engine = '${database.kind}';\nSET LOCAL statement_timeout = 0;\n${m.sql}\n;INSERT INTO schema_migrations (name, checksum) VALUES ('${quoted}', '${checksum}');\nCOMMIT;`,
        );
        applied.push(m.name);
      }
      return applied;
    } catch (err) {
      await session.exec('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      await session.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]);
    }
  });
}

/**
 * A new in-memory PGlite database with every migration applied, dumped (PGlite's dumpDataDir)
 * for others to start from without initdb and the migrations: the build's seed for a first
 * `npm start`, and the test apps' databases.
 */
export async function migratedPgliteDump(compression: 'none' | 'gzip'): Promise<Blob> {
  const database = await openPglite('memory://');
  try {
    await migrate(database);
    return await database.pglite!.dumpDataDir(compression);
  } finally {
    await database.close();
  }
}
