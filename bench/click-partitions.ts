/**
 * Clicks partitioned by month (migration 0011) against the one table of 0010, on PostgreSQL:
 * the production click writer (storeClicks: COPY, insert, rollups) storing 200,000 clicks in
 * batches of 20,000 into each, rounds alternating; then the conversion itself on a table of
 * CONVERT_ROWS clicks over 12 months, and the click-id lookup of lead tracking before and after
 * it (PARTITION_BENCH_ROUNDS, PARTITION_BENCH_ROWS change the sizes). Each database is made here
 * on the server of DATABASE_URL and dropped at the end.
 */
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { openPostgres, type Database } from '../src/db/connect.js';
import { loadMigrations, migrate } from '../src/db/migrate.js';
import type { RawClick } from '../src/modules/clicks/record.js';
import { storeClicks } from '../src/modules/clicks/store.js';

type Row = { name: string; ms?: number; value?: string };

const CLICKS = 200_000;
const BATCH = 20_000;
const ROUNDS = Number(process.env.PARTITION_BENCH_ROUNDS ?? 3);
const CONVERT_ROWS = Number(process.env.PARTITION_BENCH_ROWS ?? 1_000_000);
const LOOKUPS = 2000;
const AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
];
const COUNTRIES = ['US', 'GB', 'DE', 'FR', 'IN', undefined];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function onServer(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

const made: string[] = [];
/** A new database migrated up to `last` (inclusive), opened. */
async function databaseAt(last: string): Promise<Database> {
  const name = `lt_partbench_${randomUUID().slice(0, 8)}`;
  await onServer(`CREATE DATABASE ${name}`);
  made.push(name);
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${name}`;
  const database = await openPostgres(url.href, 4);
  await migrate(
    database,
    (await loadMigrations()).filter((m) => m.name <= last),
  );
  return database;
}

/** Live-like traffic of one workspace: 500 links, the last hour, a few agents and referrers. */
export function traffic(workspaceId: string, links: string[], n: number): RawClick[] {
  const now = Date.now();
  return Array.from({ length: n }, (_, i) => ({
    id: randomUUID(),
    workspaceId,
    linkId: links[i % links.length]!,
    partnerId: null,
    at: now - Math.floor(Math.random() * 3_600_000),
    ip: '127.0.0.1',
    userAgent: AGENTS[i % AGENTS.length]!,
    referer: i % 3 ? `https://site${i % 20}.example/page` : undefined,
    country: COUNTRIES[i % COUNTRIES.length],
  }));
}

async function timeStore(database: Database, clicks: RawClick[]): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < clicks.length; i += BATCH) await storeClicks(database, clicks.slice(i, i + BATCH), () => undefined);
  return performance.now() - started;
}

async function timeLookups(database: Database, ids: { id: string; workspace_id: string }[]): Promise<number> {
  const started = performance.now();
  await database.withSession(async (s) => {
    for (const c of ids) await s.query('SELECT link_id FROM clicks WHERE id = $1 AND workspace_id = $2 LIMIT 1', [c.id, c.workspace_id]);
  });
  return (performance.now() - started) / ids.length;
}

export async function benchClickPartitions(): Promise<Row[]> {
  if (!process.env.DATABASE_URL) throw new Error('benchClickPartitions needs DATABASE_URL');
  const out: Row[] = [];
  const workspaceId = randomUUID();
  const links = Array.from({ length: 500 }, () => randomUUID());
  try {
    const plain: number[] = [];
    const partitioned: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const [last, into] of [
        ['0010', plain],
        ['0011', partitioned],
      ] as const) {
        const database = await databaseAt(`${last}_zzz`);
        try {
          into.push(await timeStore(database, traffic(workspaceId, links, CLICKS)));
        } finally {
          await database.close();
        }
      }
    }
    const rate = (ms: number) => `${Math.round(CLICKS / (ms / 1000)).toLocaleString('en')} clicks/s`;
    out.push(
      {
        name: `storeClicks ${CLICKS.toLocaleString('en')}, one table (0010), median of ${ROUNDS}`,
        ms: Math.round(median(plain)),
        value: `${rate(median(plain))}; rounds ${plain.map(Math.round).join(', ')} ms`,
      },
      {
        name: `storeClicks ${CLICKS.toLocaleString('en')}, monthly partitions (0011), median of ${ROUNDS}`,
        ms: Math.round(median(partitioned)),
        value: `${rate(median(partitioned))}; rounds ${partitioned.map(Math.round).join(', ')} ms`,
      },
    );

    // The conversion of a populated table, and lead tracking's lookup by click id on each shape.
    const database = await databaseAt('0010_zzz');
    try {
      await database.withSession((s) =>
        s.exec(`SET statement_timeout = 0; INSERT INTO clicks (id, workspace_id, link_id, created_at, country, device, browser, os, referrer, bot)
                SELECT gen_random_uuid(), '${workspaceId}', ('{${links.slice(0, 50).join(',')}}'::uuid[])[1 + g % 50],
                       date_trunc('month', now()) - (random() * interval '365 days'), (ARRAY['US','GB','DE'])[1 + g % 3],
                       'desktop', 'Chrome', 'Windows', '(direct)', g % 50 = 0
                FROM generate_series(1, ${CONVERT_ROWS}) g; ANALYZE clicks`),
      );
      const ids = await database.withSession((s) =>
        s.query<{ id: string; workspace_id: string }>(`SELECT id, workspace_id FROM clicks ORDER BY random() LIMIT ${LOOKUPS}`),
      );
      await timeLookups(database, ids.slice(0, 200));
      const before = await timeLookups(database, ids);
      const started = performance.now();
      await migrate(database);
      const converted = performance.now() - started;
      const [parts] = await database.withSession((s) =>
        s.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_inherits WHERE inhparent = 'clicks'::regclass`),
      );
      await timeLookups(database, ids.slice(0, 200));
      const after = await timeLookups(database, ids);
      out.push(
        { name: `migration 0011 on ${CONVERT_ROWS.toLocaleString('en')} clicks over 12 months`, ms: Math.round(converted), value: `${parts?.n} partitions` },
        { name: 'click lookup by id (lead tracking), one table', value: `${before.toFixed(3)} ms each (${LOOKUPS} ids)` },
        { name: `click lookup by id (lead tracking), ${parts?.n} partitions`, value: `${after.toFixed(3)} ms each (${LOOKUPS} ids)` },
      );
    } finally {
      await database.close();
    }
  } finally {
    for (const name of made.splice(0)) await onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
  console.table(await benchClickPartitions());
}
