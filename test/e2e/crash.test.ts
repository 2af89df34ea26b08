/**
 * Graceful shutdown under load: the built service (`node dist/main.js`) is sent SIGTERM while
 * short-link requests are in flight. Every 302 a visitor received must have its click in the
 * database afterwards, and no other click of that link may exist (operations.md §5: each
 * forwarding records one click). Runs on PGlite in a temporary DATA_DIR, or on DATABASE_URL.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPglite, openPostgres, rows, type Database } from '../../src/db/connect.js';
import { SCOPES } from '../../src/http/scopes.js';
import { ADMIN_TOKEN, SECRET } from '../helpers/app.js';

const ROOT = process.cwd();
const MAIN = join(ROOT, 'dist', 'main.js');
const WORKERS = 8;
const LOAD_MS = 1500;

/** Newest modification time of the files under `dir`. */
function newest(dir: string): number {
  let max = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    max = Math.max(max, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return max;
}

/** dist/ must exist and be newer than every source file, else this would test stale code. */
function ensureBuilt(): void {
  if (existsSync(MAIN) && statSync(MAIN).mtimeMs >= newest(join(ROOT, 'src'))) return;
  const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8', timeout: 170_000 });
  if (build.status !== 0) throw new Error(`npm run build failed (${build.status ?? build.signal}):\n${build.stdout}\n${build.stderr}`);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('SIGTERM under load', () => {
  let dir: string;
  let origin: string;
  let child: ChildProcess;
  let output = '';
  let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  let hasExited = false;

  beforeAll(async () => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'lt-crash-'));
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(port),
      HOST: '127.0.0.1',
      BASE_URL: origin,
      SHORT_LINK_BASE_URL: origin,
      ADMIN_TOKEN,
      LOG_LEVEL: 'warn',
      ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL, SECRET } : { DATA_DIR: join(dir, 'data') }),
      ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    };
    // cwd: the temporary directory, so a developer's .env in the repository is not read.
    child = spawn(process.execPath, [MAIN], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (b: Buffer) => (output += b.toString()));
    child.stderr!.on('data', (b: Buffer) => (output += b.toString()));
    exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        hasExited = true;
        resolve({ code, signal });
      }),
    );
    // Ready when /healthz answers (bounded).
    for (let i = 0; ; i++) {
      if (hasExited) throw new Error(`service exited during start:\n${output}`);
      if (i >= 300) throw new Error(`service not ready after 30 s:\n${output}`);
      try {
        if ((await fetch(`${origin}/healthz`)).status === 200) break;
      } catch {
        /* not listening yet */
      }
      await sleep(100);
    }
  }, 240_000);

  afterAll(async () => {
    if (child && !hasExited) {
      child.kill('SIGKILL');
      await exited;
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function call(method: string, path: string, auth: string, body: unknown): Promise<{ id: string; key?: string; shortUrl?: string }> {
    const res = await fetch(`${origin}${path}`, {
      method,
      headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== 201) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    const json = JSON.parse(text) as { id: string } | { id: string }[];
    return Array.isArray(json) ? json[0]! : json;
  }

  it('every click a visitor got a 302 for is written before the process exits with code 0', async () => {
    const ws = await call('POST', '/admin/workspaces', ADMIN_TOKEN, { name: 'Crash Co', plan: 'enterprise' });
    const { key } = await call('POST', `/admin/workspaces/${ws.id}/keys`, ADMIN_TOKEN, { name: 'crash', scopes: SCOPES });
    const collection = await call('POST', '/api/collections', key!, [{ name: 'Load' }]);
    const link = await call('POST', '/api/links', key!, [{ url: 'https://example.com/landing?x=1', collectionId: collection.id }]);
    expect(link.shortUrl).toMatch(new RegExp(`^${origin}/`));

    const received: string[] = [];
    const destinations = new Set<string>();
    const others = new Map<string, number>();
    let failures = 0;
    let inFlight = 0;
    let inFlightAtSignal = -1;
    let sentAt = 0;
    const deadline = Date.now() + 30_000;

    const worker = async () => {
      while (!hasExited && Date.now() < deadline) {
        inFlight++;
        try {
          const res = await fetch(link.shortUrl!, { redirect: 'manual', signal: AbortSignal.timeout(20_000) });
          await res.arrayBuffer();
          if (res.status === 302) {
            const location = new URL(res.headers.get('location')!);
            destinations.add(location.origin + location.pathname);
            received.push(location.searchParams.get('ltid')!);
          } else {
            others.set(String(res.status), (others.get(String(res.status)) ?? 0) + 1);
          }
        } catch {
          // Refused or reset while the service stops: no answer, so no promise of a click.
          failures++;
          if (sentAt) await sleep(5);
        } finally {
          inFlight--;
        }
      }
    };
    const workers = Array.from({ length: WORKERS }, worker);

    await sleep(LOAD_MS);
    const beforeSignal = received.length;
    inFlightAtSignal = inFlight;
    sentAt = Date.now();
    expect(child.kill('SIGTERM')).toBe(true);

    const result = await Promise.race([exited, sleep(25_000).then(() => ({ code: null, signal: 'timeout' as const }))]);
    await Promise.all(workers);
    expect(result, output).toEqual({ code: 0, signal: null });

    expect(beforeSignal).toBeGreaterThan(0);
    expect(inFlightAtSignal).toBeGreaterThan(0);
    // Only 302s, 503s from a closing server, or no answer at all.
    expect([...others.keys()].filter((s) => s !== '503'), JSON.stringify([...others])).toEqual([]);
    expect([...destinations]).toEqual(['https://example.com/landing']);
    expect(received.every((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id))).toBe(true);
    expect(new Set(received).size).toBe(received.length);

    const database: Database = process.env.DATABASE_URL ? await openPostgres(process.env.DATABASE_URL, 2) : await openPglite(join(dir, 'data'));
    try {
      const stored = await rows<{ id: string }>(database.db, sql`select id from clicks where link_id = ${link.id}`);
      const ids = new Set(stored.map((r) => r.id));
      const missing = received.filter((id) => !ids.has(id));
      expect(missing, `${missing.length} of ${received.length} clicks lost; ${failures} failed requests`).toEqual([]);
      expect(stored.length).toBe(received.length);
    } finally {
      await database.close();
    }
  }, 90_000);
});
