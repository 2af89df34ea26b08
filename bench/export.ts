/**
 * GET /api/export (issue 25) of a large workspace, on PGlite and on PostgreSQL: the built server
 * as its own process, its workspace filled with bulk SQL while it is stopped (links with a tag
 * each, clicks over two months, customers, leads and sales), then one export read as a client
 * would (counted, never kept), timed, with the server's resident memory sampled every 50 ms.
 * Two sizes per engine, each exported twice on one server, then once on a server whose V8 old
 * space is capped (EXPORT_BENCH_HEAP_MIB, default 96): if memory is flat, the capped export
 * finishes whatever the workspace's size.
 * EXPORT_BENCH_LINKS and EXPORT_BENCH_CLICKS set the larger size (default 100,000 and 1,000,000).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { openPglite, openPostgres, type Database } from '../src/db/connect.js';
import { onOwnDatabase, seed, startServer, type BenchServer } from './server.js';

type Row = { name: string; ms?: number; value?: string };

const LINKS = Number(process.env.EXPORT_BENCH_LINKS ?? 100_000);
const CLICKS = Number(process.env.EXPORT_BENCH_CLICKS ?? 1_000_000);
const CHUNK = 100_000;

export interface Sizes {
  links: number;
  clicks: number;
  /** customers, leads and sales: one for every 100 clicks (a sale for every other lead). */
  conversions: number;
}

/** Resident set size of a process now, in MiB (VmRSS of /proc). */
export function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
  return line ? Number(line[1]) / 1024 : 0;
}

/** The workspace's rows beyond seed()'s one link: tags, links, clicks, customers, leads, sales. */
export async function fill(database: Database, workspaceId: string, sizes: Sizes): Promise<void> {
  const ws = `'${workspaceId}'::uuid`;
  await database.withSession(async (s) => {
    if (database.kind === 'postgres') await s.exec('SET statement_timeout = 0');
    const [collection] = await s.query<{ id: string }>(`SELECT id FROM collections WHERE workspace_id = ${ws} LIMIT 1`);
    await s.exec(`INSERT INTO tags (id, workspace_id, name) SELECT gen_random_uuid(), ${ws}, 'tag-' || g FROM generate_series(1, 10) g`);
    await s.exec(`INSERT INTO partners (id, workspace_id, name) SELECT gen_random_uuid(), ${ws}, 'partner-' || g FROM generate_series(1, 5) g`);
    for (let from = 1; from < sizes.links; from += CHUNK) {
      const to = Math.min(sizes.links - 1, from + CHUNK - 1);
      await s.exec(`INSERT INTO links (id, workspace_id, short_id, url, title, utm, collection_id, external_id, created_at)
        SELECT gen_random_uuid(), ${ws}, 'bx' || g, 'https://shop.example/p/' || g || '?ref=bench', 'Product ' || g,
               '{"source":"bench","campaign":"spring"}'::jsonb, '${collection!.id}'::uuid, 'ext-' || g,
               now() - interval '90 days' + g * interval '1 second'
        FROM generate_series(${from}, ${to}) g`);
    }
    await s.exec(`INSERT INTO link_tags (link_id, tag_id, position)
      SELECT l.id, t.id, 0 FROM (SELECT id, row_number() OVER (ORDER BY seq) % 10 AS k FROM links WHERE workspace_id = ${ws}) l
      JOIN (SELECT id, row_number() OVER (ORDER BY seq) % 10 AS k FROM tags WHERE workspace_id = ${ws}) t USING (k)`);
    // A few thousand links get the clicks, spread over the last 60 days.
    await s.exec(`CREATE TEMP TABLE bench_links AS SELECT row_number() OVER (ORDER BY seq) AS k, id FROM links WHERE workspace_id = ${ws} LIMIT 5000`);
    const linkCount = Math.min(5000, sizes.links);
    for (let from = 1; from <= sizes.clicks; from += CHUNK) {
      const to = Math.min(sizes.clicks, from + CHUNK - 1);
      await s.exec(`INSERT INTO clicks (id, workspace_id, link_id, created_at, country, device, browser, os, referrer, referrer_url, utm_source, trigger)
        SELECT gen_random_uuid(), ${ws}, b.id, now() - interval '60 days' + g * (interval '60 days' / ${sizes.clicks}),
               (ARRAY['US','GB','DE','FR','IN'])[1 + g % 5], (ARRAY['desktop','mobile'])[1 + g % 2], 'Chrome', 'Windows',
               'site' || (g % 20) || '.example', 'https://site' || (g % 20) || '.example/page', 'bench', 'link'
        FROM generate_series(${from}, ${to}) g JOIN bench_links b ON b.k = 1 + g % ${linkCount}`);
    }
    await s.exec(`INSERT INTO customers (id, workspace_id, external_id, name, email)
      SELECT gen_random_uuid(), ${ws}, 'user-' || g, 'Customer ' || g, 'user' || g || '@example.com' FROM generate_series(1, ${sizes.conversions}) g`);
    await s.exec(`INSERT INTO lead_events (id, workspace_id, event_name, click_id, link_id, customer_id, country, device, created_at)
      SELECT gen_random_uuid(), ${ws}, 'Sign up', gen_random_uuid(), (SELECT id FROM bench_links WHERE k = 1), c.id, 'US', 'desktop',
             now() - interval '30 days' + c.seq * interval '1 second'
      FROM customers c WHERE c.workspace_id = ${ws}`);
    await s.exec(`INSERT INTO sale_events (id, workspace_id, event_name, amount, currency, click_id, link_id, lead_id, customer_id, country, device, created_at)
      SELECT gen_random_uuid(), ${ws}, 'Purchase', 4999, 'eur', l.click_id, l.link_id, l.id, l.customer_id, 'US', 'desktop', l.created_at + interval '1 hour'
      FROM lead_events l WHERE l.workspace_id = ${ws} AND l.seq % 2 = 0`);
    await s.exec('DROP TABLE bench_links; ANALYZE');
  });
}

interface Measured {
  ms: number;
  lines: number;
  bytes: number;
  /** ms from the request to the first line of each type, then to the end. */
  marks: Record<string, number>;
  rssBefore: number;
  rssPeak: number;
}

/** One export read to the end as a client would (counted, never kept), the server's memory sampled meanwhile. */
async function timeExport(server: BenchServer, headers: Record<string, string>): Promise<Measured> {
  const pid = server.child.pid!;
  const rssBefore = rssMiB(pid);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMiB(pid))), 50);
  const started = performance.now();
  const marks: Record<string, number> = {};
  let lines = 0;
  let bytes = 0;
  let partial = '';
  try {
    const res = await fetch(`${server.base}/api/export`, { headers });
    if (!res.ok || !res.body) throw new Error(`export: HTTP ${res.status} ${await res.text()}`);
    const decoder = new TextDecoder();
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      const text = partial + decoder.decode(chunk, { stream: true });
      const parts = text.split('\n');
      partial = parts.pop()!;
      lines += parts.length;
      for (const line of parts) {
        const type = line.slice(9, line.indexOf('"', 9));
        marks[type] ??= performance.now() - started;
      }
    }
  } finally {
    clearInterval(sampler);
  }
  const ms = performance.now() - started;
  return { ms, lines, bytes, marks: { ...marks, end: ms }, rssBefore, rssPeak: Math.max(rssPeak, rssMiB(pid)) };
}

/** Seconds each type took: from its first line to the next type's first line. */
function perType(marks: Record<string, number>): string {
  const entries = Object.entries(marks);
  return entries
    .slice(0, -1)
    .map(([type, at], i) => [type, entries[i + 1]![1] - at] as const)
    .filter(([, ms]) => ms >= 100)
    .map(([type, ms]) => `${type} ${(ms / 1000).toFixed(1)} s`)
    .join(', ');
}

/** The V8 old space the last export runs in: finishing in it means the live heap stayed below it. */
const CAPPED_HEAP_MIB = Number(process.env.EXPORT_BENCH_HEAP_MIB ?? 96);

/**
 * A server on `databaseUrl` (PGlite when empty) holding one workspace of `sizes`, exported twice
 * in a row (a leak would lift the second peak), then once more by a server whose old space is
 * capped at CAPPED_HEAP_MIB (a heap that grew with the workspace would fail there).
 */
async function exportRuns(databaseUrl: string, sizes: Sizes): Promise<{ first: Measured; again: Measured; capped: Measured }> {
  const env = { DATA_DIR: mkdtempSync(join(tmpdir(), 'lt-export-')), DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' };
  let server = await startServer(env);
  const { workspaceId, headers } = await seed(server.base);
  // PGlite belongs to one process: the server lets go of it while the bench fills it.
  await server.stop();
  const database = databaseUrl ? await openPostgres(databaseUrl, 1) : await openPglite(env.DATA_DIR);
  try {
    await fill(database, workspaceId, sizes);
  } finally {
    await database.close();
  }
  server = await startServer(env);
  let first: Measured;
  let again: Measured;
  try {
    first = await timeExport(server, headers);
    again = await timeExport(server, headers);
  } finally {
    await server.stop();
  }
  server = await startServer({ ...env, NODE_OPTIONS: `--max-old-space-size=${CAPPED_HEAP_MIB}` });
  try {
    return { first, again, capped: await timeExport(server, headers) };
  } finally {
    await server.stop();
  }
}

const mib = (n: number) => `${Math.round(n)} MiB`;

export async function benchExport(): Promise<Row[]> {
  if (!process.env.DATABASE_URL) throw new Error('benchExport needs DATABASE_URL (its server gets a database per size)');
  const out: Row[] = [];
  for (const engine of ['PGlite', 'PostgreSQL'] as const) {
    for (const scale of [0.1, 1]) {
      const sizes: Sizes = { links: LINKS * scale, clicks: CLICKS * scale, conversions: (CLICKS * scale) / 100 };
      const runs = engine === 'PGlite' ? await exportRuns('', sizes) : await onOwnDatabase(`x${scale * 10}`, (url) => exportRuns(url, sizes));
      const { first: m, again, capped } = runs;
      out.push({
        name: `${engine}: ${sizes.links.toLocaleString('en')} links, ${sizes.clicks.toLocaleString('en')} clicks`,
        ms: Math.round(m.ms),
        value:
          `${m.lines.toLocaleString('en')} lines, ${Math.round(m.bytes / 2 ** 20)} MiB, ${Math.round(m.lines / (m.ms / 1000)).toLocaleString('en')} lines/s; ` +
          `RSS ${mib(m.rssBefore)} before, peak ${mib(m.rssPeak)}; ${perType(m.marks)}; again: ${Math.round(again.ms)} ms, RSS ${mib(again.rssBefore)} before, peak ${mib(again.rssPeak)}; ` +
          `old space capped at ${CAPPED_HEAP_MIB} MiB: ${capped.lines.toLocaleString('en')} lines in ${Math.round(capped.ms)} ms, RSS peak ${mib(capped.rssPeak)}`,
      });
      console.log(out.at(-1));
    }
  }
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
  console.table(await benchExport());
}
