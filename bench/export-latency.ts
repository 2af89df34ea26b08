/**
 * The other requests during a heavy one on PGlite (issue 41 M5): the built server on PGlite (its
 * DATA_DIR on disk), one workspace of EXPORT_LATENCY_LINKS links (default 100,000, filled with
 * bulk SQL while the server is stopped) exported with GET /api/export, while a client asks
 * /healthz and another workspace's cached short link one after the other until the export ends.
 * Their latencies (p50, p99, max) are reported beside the same probes on the idle server.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { openPglite } from '../src/db/connect.js';
import { fill } from './export.js';
import { seed, startServer } from './server.js';

type Row = { name: string; ms?: number; value?: string };

const LINKS = Number(process.env.EXPORT_LATENCY_LINKS ?? 100_000);
/** Probes of each kind on the idle server, for the baseline. */
const IDLE_PROBES = 200;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

function summary(ms: number[]): string {
  const s = [...ms].sort((a, b) => a - b);
  const f = (n: number) => n.toFixed(1);
  return `n ${s.length}, p50 ${f(percentile(s, 50))} ms, p99 ${f(percentile(s, 99))} ms, max ${f(s.at(-1) ?? NaN)} ms`;
}

async function timed(url: string, status: number): Promise<number> {
  const started = performance.now();
  const res = await fetch(url, { redirect: 'manual' });
  await res.arrayBuffer();
  if (res.status !== status) throw new Error(`${url}: HTTP ${res.status}, not ${status}`);
  return performance.now() - started;
}

/** /healthz and the short link, one after the other, while `busy()` holds (or `count` times). */
async function probe(base: string, linkPath: string, busy: () => boolean): Promise<{ health: number[]; redirect: number[] }> {
  const health: number[] = [];
  const redirect: number[] = [];
  while (busy()) {
    health.push(await timed(`${base}/healthz`, 200));
    redirect.push(await timed(`${base}${linkPath}`, 302));
  }
  return { health, redirect };
}

async function readToEnd(url: string, headers: Record<string, string>): Promise<number> {
  const res = await fetch(url, { headers });
  if (!res.ok || !res.body) throw new Error(`export: HTTP ${res.status}`);
  let bytes = 0;
  for await (const chunk of res.body as AsyncIterable<Uint8Array>) bytes += chunk.length;
  return bytes;
}

export async function benchExportLatency(): Promise<Row[]> {
  const env = { DATA_DIR: mkdtempSync(join(tmpdir(), 'lt-export-latency-')), DATABASE_URL: '', LOG_LEVEL: 'warn' };
  let server = await startServer(env);
  const big = await seed(server.base);
  const other = await seed(server.base);
  await server.stop();
  const database = await openPglite(env.DATA_DIR);
  try {
    await fill(database, big.workspaceId, { links: LINKS, clicks: 0, conversions: 0 });
  } finally {
    await database.close();
  }
  server = await startServer(env);
  try {
    const linkPath = new URL(other.link.shortUrl as string).pathname;
    await timed(`${server.base}${linkPath}`, 302); // now in the redirect's cache
    let idleLeft = IDLE_PROBES;
    const idle = await probe(server.base, linkPath, () => idleLeft-- > 0);
    let exporting = true;
    const started = performance.now();
    const exported = readToEnd(`${server.base}/api/export`, big.headers).finally(() => (exporting = false));
    const during = await probe(server.base, linkPath, () => exporting);
    const bytes = await exported;
    const exportMs = performance.now() - started;
    return [
      { name: `export of ${LINKS.toLocaleString('en')} links (PGlite)`, ms: Math.round(exportMs), value: `${Math.round(bytes / 2 ** 20)} MiB` },
      { name: '/healthz, idle', value: summary(idle.health) },
      { name: 'cached redirect of another workspace, idle', value: summary(idle.redirect) },
      { name: '/healthz during the export', value: summary(during.health) },
      { name: 'cached redirect of another workspace during the export', value: summary(during.redirect) },
    ];
  } finally {
    await server.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await benchExportLatency());
}
