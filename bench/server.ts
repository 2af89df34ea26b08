/** Starts the built server (dist/main.js) as its own process for load scenarios, and seeds it. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { SCOPES } from '../src/core/scopes.js';

export const BENCH_ADMIN = 'bench-admin-token-0123456789';
export const BENCH_SECRET = 'bench-secret-0123456789-0123456789-0123456789';

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** A process's resident memory in MB (from /proc), NaN when it cannot be read. */
export function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}

export interface BenchServer {
  base: string;
  child: ChildProcess;
  log(): string;
  /** SIGTERM and wait for the process to exit. */
  stop(): Promise<void>;
}

export async function startServer(extraEnv: Record<string, string> = {}): Promise<BenchServer> {
  // A caller may choose the port (to give BASE_URL the same one).
  const port = extraEnv.PORT ? Number(extraEnv.PORT) : await freePort();
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    ADMIN_TOKEN: BENCH_ADMIN,
    SECRET: BENCH_SECRET,
    LOG_LEVEL: 'info',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'lt-bench-')),
    ...extraEnv,
  };
  // BENCH_MAIN: another build to compare with (a copy of an earlier dist/ inside the checkout, so its imports resolve).
  const main = process.env.BENCH_MAIN ?? 'dist/main.js';
  // BENCH_CPU_PROF: a directory for the server's CPU profile (node --cpu-prof), written when it stops.
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  // BENCH_NODE_ARGS: more flags for the server's node (e.g. --trace-gc, or a semi-space size in place of 64).
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const semi = nodeArgs.some((a) => a.startsWith('--max-semi-space-size')) ? [] : ['--max-semi-space-size=64'];
  const child = spawn(process.execPath, [...semi, ...nodeArgs, ...profile, main], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let log = '';
  child.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const base = `http://127.0.0.1:${port}`;
  // Up to a minute: on a busy shared machine a start (migrations, the country database) took over 10 s.
  for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) break;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return {
    base,
    child,
    log: () => log,
    stop: () =>
      new Promise<void>((resolve) => {
        // Already gone (it crashed, or ran out of memory): nothing to wait for.
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** A PostgreSQL database of its own beside DATABASE_URL's (named after it and `suffix`) for `fn`, dropped after. */
export async function onOwnDatabase<T>(suffix: string, fn: (url: string) => Promise<T>): Promise<T> {
  const url = new URL(process.env.DATABASE_URL!);
  const name = `${url.pathname.slice(1) || 'postgres'}_${suffix}`;
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    url.pathname = `/${name}`;
    return await fn(url.href);
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/** A workspace without a practical rate limit, its key, a collection and one link. */
export async function seed(base: string): Promise<{ key: string; workspaceId: string; link: Json; headers: Record<string, string> }> {
  const post = async (path: string, headers: Record<string, string>, body: unknown, method = 'POST'): Promise<Json> =>
    (await fetch(`${base}${path}`, { method, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) })).json();
  const admin = { authorization: `Bearer ${BENCH_ADMIN}` };
  const ws = await post('/admin/workspaces', admin, { name: 'bench', plan: 'enterprise' });
  await post(`/admin/workspaces/${ws.id}`, admin, { rateLimitPerMinute: 1_000_000 }, 'PATCH');
  const { key } = await post(`/admin/workspaces/${ws.id}/keys`, admin, { name: 'bench', scopes: SCOPES });
  const headers = { authorization: `Bearer ${key}` };
  const [collection] = await post('/api/collections', headers, [{ name: 'bench' }]);
  const [link] = await post('/api/links', headers, [{ url: 'https://example.com/landing?a=1', collectionId: collection.id, utm: { source: 'bench' } }]);
  return { key, workspaceId: ws.id, link, headers };
}
