import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, test } from 'vitest';
import { openPglite, openPostgres, type Database } from '../../src/db/connect.js';
import { loadMigrations, migrate } from '../../src/db/migrate.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';
import { onPostgres, testConfig } from '../helpers/app.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('../../src/db/migrations/', import.meta.url));
const migrationFiles = readdirSync(MIGRATIONS_DIR)
  .filter((f) => f.endsWith('.sql'))
  .sort();

const serverUrl = process.env.DATABASE_URL;
const created: string[] = [];
const opened: Database[] = [];

/** Runs one statement on the DATABASE_URL server with a short-lived client. */
async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A brand-new, empty database on the DATABASE_URL server; returns its URL. */
async function createEmptyPostgresDatabase(): Promise<string> {
  const name = `lt_mig_${randomBytes(6).toString('hex')}`;
  await admin(`CREATE DATABASE ${name}`);
  created.push(name);
  const url = new URL(serverUrl!);
  url.pathname = `/${name}`;
  return url.href;
}

/** An empty database on this run's engine. */
async function emptyDatabase(): Promise<Database> {
  const database = onPostgres ? await openPostgres(await createEmptyPostgresDatabase()) : await openPglite('memory://');
  opened.push(database);
  return database;
}

async function appliedNames(database: Database): Promise<string[]> {
  return database.withSession((s) => s.query<{ name: string }>('select name from schema_migrations order by name')).then((r) => r.map((x) => x.name));
}

async function tableNames(database: Database): Promise<string[]> {
  const r = await database.withSession((s) =>
    s.query<{ table_name: string }>("select table_name from information_schema.tables where table_schema = 'public' order by table_name"),
  );
  return r.map((x) => x.table_name);
}

afterAll(async () => {
  for (const d of opened) await d.close().catch(() => undefined);
  for (const name of created) await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
});

describe('migrate()', () => {
  test('the migrations are the .sql files of src/db/migrations, in name order', async () => {
    expect(migrationFiles.length).toBeGreaterThan(0);
    expect((await loadMigrations()).map((m) => m.name)).toEqual(migrationFiles);
  });

  test('on an empty database: applies every migration in order and records each', async () => {
    const database = await emptyDatabase();
    expect(await tableNames(database)).toEqual([]);

    const applied = await migrate(database);
    expect(applied).toEqual(migrationFiles);
    expect(await appliedNames(database)).toEqual(migrationFiles);
    expect(await tableNames(database)).toEqual(expect.arrayContaining(['schema_migrations', 'workspaces', 'api_keys', 'tags']));
  });

  test('on an up-to-date database: applies nothing and changes nothing', async () => {
    const database = await emptyDatabase();
    await migrate(database);
    const tablesBefore = await tableNames(database);

    expect(await migrate(database)).toEqual([]);
    expect(await appliedNames(database)).toEqual(migrationFiles);
    expect(await tableNames(database)).toEqual(tablesBefore);
  });

  test("a migration reads its engine in linktrail.engine (for steps on one engine only) and runs without the pool's statement timeout", async () => {
    const database = await emptyDatabase();
    const probe = {
      name: '0001_probe.sql',
      sql: "CREATE TABLE probe AS SELECT current_setting('linktrail.engine', true) AS engine, current_setting('statement_timeout') AS timeout;",
    };
    await migrate(database, [probe]);
    const [row] = await database.withSession((s) => s.query<{ engine: string; timeout: string }>('select engine, timeout from probe'));
    expect(row).toEqual({ engine: onPostgres ? 'postgres' : 'pglite', timeout: '0' });
    // Both for that migration's transaction only.
    const [after] = await database.withSession((s) =>
      s.query<{ engine: string | null; timeout: string }>(
        "select current_setting('linktrail.engine', true) as engine, current_setting('statement_timeout') as timeout",
      ),
    );
    expect(after?.engine ?? '').toBe('');
    expect(after?.timeout).toBe(onPostgres ? '1min' : '0');
  });

  test('a failing migration is rolled back whole; earlier ones stay; a later run resumes', async () => {
    const database = await emptyDatabase();
    const good = { name: '0001_good.sql', sql: 'CREATE TABLE good_one (id int);' };
    const bad = { name: '0002_bad.sql', sql: 'CREATE TABLE half_done (id int);\nSELECT * FROM no_such_table;' };
    await expect(migrate(database, [good, bad])).rejects.toThrow();
    expect(await appliedNames(database)).toEqual(['0001_good.sql']);
    const tables = await tableNames(database);
    expect(tables).toContain('good_one');
    expect(tables).not.toContain('half_done');

    const fixed = { name: '0002_bad.sql', sql: 'CREATE TABLE half_done (id int);' };
    expect(await migrate(database, [good, fixed])).toEqual(['0002_bad.sql']);
    expect(await appliedNames(database)).toEqual(['0001_good.sql', '0002_bad.sql']);
    expect(await tableNames(database)).toContain('half_done');
  });
});

describe.runIf(onPostgres)('concurrent starts on PostgreSQL', () => {
  test('two instances migrating one fresh database at once: both succeed, each migration applied once', async () => {
    const url = await createEmptyPostgresDatabase();
    const a = await openPostgres(url);
    const b = await openPostgres(url);
    opened.push(a, b);

    const [ra, rb] = await Promise.all([migrate(a), migrate(b)]);
    expect([...ra, ...rb].sort()).toEqual(migrationFiles);
    // One of them did the work; the other found it done.
    expect([ra.length, rb.length].sort((x, y) => x - y)).toEqual([0, migrationFiles.length]);

    const rows = await a.withSession((s) =>
      s.query<{ name: string; n: number }>('select name, count(*)::int as n from schema_migrations group by name order by name'),
    );
    expect(rows).toEqual(migrationFiles.map((name) => ({ name, n: 1 })));
  });

  test('two runtimes starting at once on a fresh database both come up', async () => {
    const url = await createEmptyPostgresDatabase();
    const config = testConfig({ DATABASE_URL: url });
    const runtimes: Runtime[] = [];
    try {
      const results = await Promise.allSettled([createRuntime(config), createRuntime(config)]);
      for (const r of results) if (r.status === 'fulfilled') runtimes.push(r.value);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);

      for (const runtime of runtimes) {
        const ready = await runtime.app.inject({ method: 'GET', url: '/readyz' });
        expect(ready.statusCode).toBe(200);
      }
      expect(await appliedNames(runtimes[0]!.database)).toEqual(migrationFiles);
    } finally {
      for (const runtime of runtimes) await runtime.close();
    }
  });
});
