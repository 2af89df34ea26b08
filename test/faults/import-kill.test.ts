/**
 * An import survives its instance (operations.md §13: "any instance resumes it after a
 * restart"): the built service is stopped with SIGTERM in the middle of a 20,000-row import,
 * a second one takes it over at once, is killed with SIGKILL mid-way, and a third takes it over
 * once the dead one's lease lapses (IMPORT_LEASE_SECONDS=2). The end: every row once — 20,000
 * links, none twice, the counters exact.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ADMIN_TOKEN, SECRET, onPostgres } from '../helpers/app.js';
import { dropFreshDatabases, freshPostgresUrl } from '../helpers/fresh-database.js';
import { ensureBuilt, startBuiltService, type Service } from '../helpers/process.js';
import { within } from '../helpers/wait.js';
import { freshHost } from '../modules/domains/helpers.js';

const ROWS = 20_000;

interface Job {
  status: string;
  total: number;
  done: number;
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
}

describe('an import across SIGTERM and SIGKILL', () => {
  let dir: string;
  let dbUrl: string | undefined;
  const services: Service[] = [];

  async function startService(): Promise<Service> {
    const service = await startBuiltService(
      dir,
      { ADMIN_TOKEN, SECRET, IMPORT_LEASE_SECONDS: '2', ...(dbUrl ? { DATABASE_URL: dbUrl } : { DATA_DIR: join(dir, 'data') }) },
      120_000,
    );
    services.push(service);
    return service;
  }

  async function stop(service: Service, signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
    if (!service.hasExited()) service.child.kill(signal);
    await service.exited;
  }

  const admin = (origin: string, path: string, init: RequestInit = {}) =>
    fetch(`${origin}/admin${path}`, { ...init, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(init.headers ?? {}) } });

  async function job(origin: string, workspaceId: string, id: string): Promise<Job> {
    const res = await admin(origin, `/workspaces/${workspaceId}/imports/${id}`);
    expect(res.status).toBe(200);
    return (await res.json()) as Job;
  }

  beforeAll(async () => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'lt-import-kill-'));
    if (onPostgres) dbUrl = await freshPostgresUrl();
  }, 240_000);

  afterAll(async () => {
    for (const s of services) await stop(s, 'SIGKILL').catch(() => undefined);
    await dropFreshDatabases();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('every row is written once', { timeout: 480_000 }, async () => {
    const first = await startService();
    const made = await admin(first.origin, '/workspaces', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: `import-kill-${randomUUID().slice(0, 6)}`, plan: 'enterprise' }),
    });
    expect(made.status).toBe(201);
    const workspaceId = ((await made.json()) as { id: string }).id;
    const host = freshHost('kill');
    const rows = Array.from({ length: ROWS }, (_, i) => `https://example.com/p/${i},Title ${i},t${i % 7},https://${host}/k${i}`);
    const started = await admin(first.origin, `/workspaces/${workspaceId}/imports?collection=Moved`, {
      method: 'POST',
      headers: { 'content-type': 'text/csv' },
      body: `url,title,tags,short_url\n${rows.join('\n')}\n`,
    });
    expect(started.status, await started.clone().text()).toBe(202);
    const id = ((await started.json()) as { id: string }).id;

    // SIGTERM mid-way: the batch in hand is finished and the job handed back.
    expect(await within(120_000, async () => (await job(first.origin, workspaceId, id)).done >= 2000, 20)).toBe(true);
    await stop(first, 'SIGTERM');

    const second = await startService();
    const atSecond = await job(second.origin, workspaceId, id);
    expect(atSecond.status).toBe('running');
    expect(await within(120_000, async () => (await job(second.origin, workspaceId, id)).done >= atSecond.done + 2000, 20)).toBe(true);
    const beforeKill = await job(second.origin, workspaceId, id);
    expect(beforeKill.done).toBeLessThan(ROWS);
    await stop(second, 'SIGKILL');

    const third = await startService();
    expect(await within(240_000, async () => (await job(third.origin, workspaceId, id)).status !== 'running', 200)).toBe(true);
    expect(await job(third.origin, workspaceId, id)).toMatchObject({
      status: 'done',
      total: ROWS,
      done: ROWS,
      created: ROWS,
      updated: 0,
      unchanged: 0,
      failed: 0,
    });

    // Counted through the API: each row one link.
    const key = await admin(third.origin, `/workspaces/${workspaceId}/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'count', scopes: ['linksRead'] }),
    });
    expect(key.status).toBe(201);
    const secret = ((await key.json()) as { key: string }).key;
    const list = await fetch(`${third.origin}/api/links?take=1`, { headers: { authorization: `Bearer ${secret}` } });
    expect(list.headers.get('x-total-count')).toBe(String(ROWS));
    // Imported again: each link found by its alias, nothing new.
    const again = await admin(third.origin, `/workspaces/${workspaceId}/imports?collection=Moved`, {
      method: 'POST',
      headers: { 'content-type': 'text/csv' },
      body: `url,title,tags,short_url\n${rows.join('\n')}\n`,
    });
    const againId = ((await again.json()) as { id: string }).id;
    expect(await within(240_000, async () => (await job(third.origin, workspaceId, againId)).status !== 'running', 200)).toBe(true);
    expect(await job(third.origin, workspaceId, againId)).toMatchObject({ status: 'done', created: 0, updated: 0, unchanged: ROWS });
  });
});
