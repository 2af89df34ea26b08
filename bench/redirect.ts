/**
 * Redirect throughput: a bare node:http server answering a fixed 302 versus Linktrail's short
 * link (cache, decision, click queue), both under `wrk` on 127.0.0.1, one server process each.
 * Then the server is stopped with SIGTERM and the clicks in the database are counted: they
 * must equal the 302s wrk received.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as netServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { SCOPES } from '../src/http/scopes.js';

const ADMIN = 'bench-admin-token-0123456789';
const SECRET = 'bench-secret-0123456789-0123456789-0123456789';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = netServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export interface WrkResult {
  requests: number;
  rps: number;
  p99ms: number;
  non3xx: number;
}

function ensureWrk(): void {
  if (spawnSync('wrk', ['--version']).error === undefined) return;
  console.log('installing wrk from Debian packages…');
  execFileSync('apt-get', ['install', '-y', '-q', 'wrk'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
}

function wrk(url: string, seconds: number, connections = 32): WrkResult {
  const out = execFileSync('wrk', ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', url], { encoding: 'utf8' });
  const num = (re: RegExp) => Number(re.exec(out)?.[1] ?? NaN);
  const unit = (v: string, u: string) => Number(v) * ({ us: 0.001, ms: 1, s: 1000 } as Record<string, number>)[u]!;
  const p99 = /99%\s+([\d.]+)(us|ms|s)/.exec(out);
  return {
    requests: num(/(\d+) requests in/),
    rps: num(/Requests\/sec:\s+([\d.]+)/),
    p99ms: p99 ? unit(p99[1]!, p99[2]!) : NaN,
    non3xx: num(/Non-2xx or 3xx responses: (\d+)/) || 0,
  };
}

export async function benchRedirect(seconds = 8): Promise<{ name: string; value: string }[]> {
  ensureWrk();
  // 1. The ceiling: a bare server answering a fixed 302.
  const bare = createServer((_req, res) => {
    res.writeHead(302, { location: 'https://example.com/' });
    res.end();
  });
  // Run the bare server in its own process so it, like Linktrail, has a core to itself.
  bare.close();
  const barePort = await freePort();
  const bareChild = spawn(
    process.execPath,
    ['-e', `require('http').createServer((q,s)=>{s.writeHead(302,{location:'https://example.com/'});s.end()}).listen(${barePort},'127.0.0.1')`],
    { stdio: 'ignore' },
  );
  await new Promise((r) => setTimeout(r, 500));
  wrk(`http://127.0.0.1:${barePort}/`, 2);
  const bareResult = wrk(`http://127.0.0.1:${barePort}/`, seconds);
  bareChild.kill('SIGTERM');

  // 2. Linktrail, built, on PostgreSQL when DATABASE_URL is set (else PGlite on disk).
  const port = await freePort();
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    ADMIN_TOKEN: ADMIN,
    SECRET,
    LOG_LEVEL: 'info',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'lt-bench-')),
  };
  const server = spawn(process.execPath, ['--max-semi-space-size=64', 'dist/main.js'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let log = '';
  server.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) break;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const json = async (res: Response): Promise<any> => res.json();
  const admin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
  const post = (path: string, headers: Record<string, string>, body: unknown) =>
    fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) }).then(json);
  const ws = await post('/admin/workspaces', admin, { name: 'bench', plan: 'enterprise' });
  const { key } = await post(`/admin/workspaces/${ws.id}/keys`, admin, { name: 'b', scopes: SCOPES });
  const h = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const [collection] = await post('/api/collections', h, [{ name: 'c' }]);
  const [link] = await post('/api/links', h, [{ url: 'https://example.com/landing?a=1', collectionId: collection.id, utm: { source: 'bench' } }]);
  const shortPath = new URL(link.shortUrl).pathname;
  const warm = wrk(`${base}${shortPath}`, 2);
  const result = wrk(`${base}${shortPath}`, seconds);
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));

  let clicks = NaN;
  if (process.env.DATABASE_URL) {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    clicks = Number((await client.query('SELECT count(*) FROM clicks WHERE link_id = $1', [link.id])).rows[0].count);
    await client.end();
  }
  // wrk stops counting at its deadline with requests still in flight, so the server's own
  // count of forwarded clicks is the exact number of 302s it answered.
  const closed = /"clicksAccepted":(\d+),"clicksWritten":(\d+)/.exec(log);
  const served = warm.requests - warm.non3xx + result.requests - result.non3xx;
  return [
    { name: 'bare node:http 302 (req/s)', value: bareResult.rps.toFixed(0) },
    { name: 'bare node:http 302 p99 (ms)', value: bareResult.p99ms.toFixed(2) },
    { name: 'Linktrail redirect (req/s)', value: result.rps.toFixed(0) },
    { name: 'Linktrail redirect p99 (ms)', value: result.p99ms.toFixed(2) },
    { name: 'ratio Linktrail / bare', value: (result.rps / bareResult.rps).toFixed(2) },
    { name: '302s counted by wrk (warm-up + run)', value: String(served) },
    { name: '302s answered by the server', value: closed?.[1] ?? '?' },
    { name: 'clicks written by the server', value: closed?.[2] ?? '?' },
    { name: 'clicks in database for the link', value: String(clicks) },
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await benchRedirect());
}
