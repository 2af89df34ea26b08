/**
 * POST /api/imports (issue 25, operations.md §13) of IMPORT_BENCH_ROWS rows (default 100,000),
 * on PGlite and on PostgreSQL: the built server as its own process, a CSV of the `csv` source
 * (url, title, tags, collection, short_url) whose old short URLs are on a host the workspace
 * claimed and the operator verified. Timed from the POST to `status: done` (polled every 200 ms),
 * then the same file again (every row unchanged), with the server's RSS sampled and GET /healthz
 * asked every 100 ms meanwhile (its slowest answer: the longest the server stopped answering); last,
 * one old short URL is asked for on its host, to see the aliases answer.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { rssMiB } from './export.js';
import { BENCH_ADMIN, onOwnDatabase, seed, startServer, type BenchServer } from './server.js';

type Row = { name: string; ms?: number; value?: string };

const ROWS = Number(process.env.IMPORT_BENCH_ROWS ?? 100_000);
const HOST = 'go.bench-import.example';

/** The file: 50 tag names and 20 collections in turn, each row's old short URL on HOST. */
export function importCsv(rows: number): Buffer {
  const lines = ['url,title,tags,collection,short_url'];
  for (let i = 0; i < rows; i++) {
    lines.push(`https://shop.example/p/${i}?ref=old,"Product ${i}, spring","tag-${i % 50},tag-${i % 7}",Campaign ${i % 20},https://${HOST}/k${i.toString(36)}`);
  }
  return Buffer.from(`${lines.join('\n')}\n`);
}

interface Job {
  id: string;
  status: string;
  total: number;
  done: number;
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
}

interface Timed {
  job: Job;
  ms: number;
  /** Until the 202 (the file read through and kept). */
  acceptedMs: number;
  rssPeak: number;
  /** The slowest GET /healthz sent every 100 ms meanwhile: how long the server stopped answering. */
  healthMaxMs: number;
}

/** GET /healthz every 100 ms until stopped; the slowest answer. */
function healthProbe(base: string): { stop(): Promise<number> } {
  let worst = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      await fetch(`${base}/healthz`).then((r) => r.arrayBuffer());
      worst = Math.max(worst, performance.now() - t0);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return worst;
    },
  };
}

async function timeImport(server: BenchServer, headers: Record<string, string>, file: Buffer): Promise<Timed> {
  const pid = server.child.pid!;
  let rssPeak = rssMiB(pid);
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMiB(pid))), 50);
  const probe = healthProbe(server.base);
  const started = performance.now();
  try {
    const res = await fetch(`${server.base}/api/imports?source=csv`, { method: 'POST', headers: { ...headers, 'content-type': 'text/csv' }, body: file });
    const acceptedMs = performance.now() - started;
    if (res.status !== 202) throw new Error(`import: HTTP ${res.status} ${await res.text()}`);
    let job = (await res.json()) as Job;
    while (job.status === 'running') {
      await new Promise((r) => setTimeout(r, 200));
      job = (await (await fetch(`${server.base}/api/imports/${job.id}`, { headers })).json()) as Job;
    }
    const ms = performance.now() - started;
    return { job, ms, acceptedMs, rssPeak, healthMaxMs: await probe.stop() };
  } finally {
    clearInterval(sampler);
    await probe.stop();
  }
}

/** The workspace claims HOST and the operator verifies it, so the aliases answer. */
async function claimHost(server: BenchServer, headers: Record<string, string>): Promise<void> {
  const claimed = await fetch(`${server.base}/api/domains`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ host: HOST }),
  });
  if (claimed.status !== 201) throw new Error(`claim: HTTP ${claimed.status} ${await claimed.text()}`);
  const { id } = (await claimed.json()) as { id: string };
  const verified = await fetch(`${server.base}/admin/domains/${id}/verify`, { method: 'POST', headers: { authorization: `Bearer ${BENCH_ADMIN}` } });
  if (verified.status !== 200) throw new Error(`verify: HTTP ${verified.status} ${await verified.text()}`);
}

/** Where one old short URL sends a visitor now (a 302 to the product, if the alias took). */
async function aliasAnswer(server: BenchServer, i: number): Promise<string> {
  const { request } = await import('node:http');
  const url = new URL(server.base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: `/k${i.toString(36)}`, headers: { host: HOST } }, (res) => {
      res.resume();
      resolve(`${res.statusCode} ${res.headers.location ?? ''}`);
    });
    req.on('error', reject);
    req.end();
  });
}

async function onEngine(databaseUrl: string, file: Buffer, label: string): Promise<Row[]> {
  const server = await startServer({ DATA_DIR: mkdtempSync(join(tmpdir(), 'lt-import-')), DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' });
  try {
    const { headers } = await seed(server.base);
    await claimHost(server, headers);
    const rate = (t: Timed) => `${Math.round(t.job.total / (t.ms / 1000)).toLocaleString('en')} rows/s`;
    const outcome = (t: Timed) =>
      `${t.job.status}: ${t.job.created.toLocaleString('en')} created, ${t.job.updated} updated, ${t.job.unchanged.toLocaleString('en')} unchanged, ${t.job.failed} failed; ` +
      `202 after ${Math.round(t.acceptedMs)} ms; ${rate(t)}; server RSS peak ${Math.round(t.rssPeak)} MiB; slowest /healthz meanwhile ${Math.round(t.healthMaxMs)} ms`;
    const first = await timeImport(server, headers, file);
    const again = await timeImport(server, headers, file);
    const last = ROWS - 1;
    return [
      { name: `${label}: import ${ROWS.toLocaleString('en')} rows`, ms: Math.round(first.ms), value: outcome(first) },
      { name: `${label}: the same file again`, ms: Math.round(again.ms), value: outcome(again) },
      { name: `${label}: GET https://${HOST}/k${last.toString(36)}`, value: await aliasAnswer(server, last) },
    ];
  } finally {
    await server.stop();
  }
}

export async function benchImport(): Promise<Row[]> {
  if (!process.env.DATABASE_URL) throw new Error('benchImport needs DATABASE_URL (its server gets a database of its own)');
  const file = importCsv(ROWS);
  const out: Row[] = [{ name: 'file', value: `${ROWS.toLocaleString('en')} rows, ${(file.length / 2 ** 20).toFixed(1)} MiB` }];
  out.push(...(await onEngine('', file, 'PGlite')));
  out.push(...(await onOwnDatabase('import', (url) => onEngine(url, file, 'PostgreSQL'))));
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
  console.table(await benchImport());
}
