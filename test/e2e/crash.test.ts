/**
 * Graceful shutdown under load: the built service (`node dist/main.js`) is sent SIGTERM while
 * short-link requests are in flight. Every 302 a visitor received must have its click in the
 * database afterwards, and no other click of that link may exist (operations.md §5: each
 * forwarding records one click). Runs on PGlite in a temporary DATA_DIR, or on DATABASE_URL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPglite, openPostgres, rows, type Database } from '../../src/db/connect.js';
import { SCOPES } from '../../src/core/scopes.js';
import { ADMIN_TOKEN, SECRET } from '../helpers/app.js';
import { callService, ensureBuilt, freePort, processEnv, spawnService, waitHealthy, type Service } from '../helpers/process.js';
import { sleep } from '../helpers/wait.js';

const WORKERS = 8;
const LOAD_MS = 1500;

describe('SIGTERM under load', () => {
  let dir: string;
  let origin: string;
  let service: Service;

  beforeAll(async () => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'lt-crash-'));
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    const env = processEnv({
      PORT: String(port),
      HOST: '127.0.0.1',
      BASE_URL: origin,
      SHORT_LINK_BASE_URL: origin,
      ADMIN_TOKEN,
      LOG_LEVEL: 'warn',
      ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL, SECRET } : { DATA_DIR: join(dir, 'data') }),
      ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    });
    // cwd: the temporary directory, so a developer's .env in the repository is not read.
    service = spawnService(origin, { cwd: dir, env });
    // Ready when /healthz answers (bounded).
    await waitHealthy(service);
  }, 240_000);

  afterAll(async () => {
    if (service && !service.hasExited()) {
      service.child.kill('SIGKILL');
      await service.exited;
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('every click a visitor got a 302 for is written before the process exits with code 0', async () => {
    const ws = await callService<{ id: string }>(origin, 'POST', '/admin/workspaces', ADMIN_TOKEN, { name: 'Crash Co', plan: 'enterprise' });
    const { key } = await callService<{ key: string }>(origin, 'POST', `/admin/workspaces/${ws.id}/keys`, ADMIN_TOKEN, { name: 'crash', scopes: SCOPES });
    const [collection] = await callService<{ id: string }[]>(origin, 'POST', '/api/collections', key, [{ name: 'Load' }]);
    const link = (
      await callService<{ id: string; shortUrl: string }[]>(origin, 'POST', '/api/links', key, [
        { url: 'https://example.com/landing?x=1', collectionId: collection!.id },
      ])
    )[0]!;
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
      while (!service.hasExited() && Date.now() < deadline) {
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
    expect(service.child.kill('SIGTERM')).toBe(true);

    const result = await Promise.race([service.exited, sleep(25_000).then(() => ({ code: null, signal: 'timeout' as const }))]);
    await Promise.all(workers);
    expect(result, service.output()).toEqual({ code: 0, signal: null });

    expect(beforeSignal).toBeGreaterThan(0);
    expect(inFlightAtSignal).toBeGreaterThan(0);
    // Only 302s, 503s from a closing server, or no answer at all.
    expect(
      [...others.keys()].filter((s) => s !== '503'),
      JSON.stringify([...others]),
    ).toEqual([]);
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
