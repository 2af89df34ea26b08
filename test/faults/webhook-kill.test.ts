/**
 * SIGKILL of the service in the middle of webhook deliveries (operations.md §11: "a crash or
 * restart loses no event"), on PostgreSQL or on PGlite with its DATA_DIR on disk.
 *
 * The built service (`node dist/main.js`) delivers 300 queued events to a slow receiver
 * started here and is killed with SIGKILL once some have arrived and others are under way;
 * a new process on the same database then delivers the rest (the dead one's leases run out
 * after 15 s): every event arrives at least once, every delivery is recorded as succeeded.
 *
 * Every event can have arrived before the last ones are recorded: an attempt the victim made
 * but never recorded has arrived, and the successor sends it again only when its lease ends.
 * So the test waits on the successor's delivery log (GET /api/webhooks/:id/deliveries), not
 * on the receiver alone.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openPglite, openPostgres, type Database } from '../../src/db/connect.js';
import { SCOPES } from '../../src/core/scopes.js';
import { ADMIN_TOKEN, SECRET, onPostgres } from '../helpers/app.js';
import { dropFreshDatabases, freshPostgresUrl } from '../helpers/fresh-database.js';
import { callService, ensureBuilt, startBuiltService, type Service } from '../helpers/process.js';
import { within } from '../helpers/wait.js';
import { deliveriesOf, emit, seedEndpoint, startReceiver, type Receiver } from '../modules/webhooks/receiver.js';

const EVENTS = 300;

describe('SIGKILL in the middle of webhook deliveries', () => {
  let dir: string;
  let dbUrl: string | undefined;
  let receiver: Receiver;
  const services: Service[] = [];

  const openDatabase = (): Promise<Database> => (dbUrl ? openPostgres(dbUrl, 2) : openPglite(join(dir, 'data')));

  // A PGlite start on a busy 2-core machine took 25 s: ready within 120 s.
  async function startService(): Promise<Service> {
    const service = await startBuiltService(
      dir,
      {
        ADMIN_TOKEN,
        SECRET,
        ALLOW_PRIVATE_DESTINATIONS: 'true',
        WEBHOOK_RETRY_DELAYS: '100ms,200ms,500ms,1s,2s,5s',
        ...(dbUrl ? { DATABASE_URL: dbUrl } : { DATA_DIR: join(dir, 'data') }),
      },
      120_000,
    );
    services.push(service);
    return service;
  }

  async function stop(service: Service, signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
    if (!service.hasExited()) service.child.kill(signal);
    const result = await service.exited;
    if (signal === 'SIGKILL') expect(result.signal).toBe('SIGKILL');
  }

  beforeAll(async () => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'lt-webhook-kill-'));
    if (onPostgres) dbUrl = await freshPostgresUrl();
    // Each answer takes 100 ms: the deliveries take a few seconds, and some are always under way.
    receiver = await startReceiver({ answer: (_req, res) => setTimeout(() => res.end('ok'), 100) });
  }, 240_000);

  afterAll(async () => {
    for (const s of services) await stop(s, 'SIGKILL').catch(() => undefined);
    await receiver?.close();
    await dropFreshDatabases();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('every event arrives at least once after a kill -9 and a restart on the same database', { timeout: 480_000 }, async () => {
    // The first start migrates and makes the workspace; the events are queued while it is stopped
    // (PGlite's directory is one process's at a time).
    const first = await startService();
    const { id: workspaceId } = await callService<{ id: string }>(first.origin, 'POST', '/admin/workspaces', ADMIN_TOKEN, {
      name: `kill-${randomUUID().slice(0, 6)}`,
      plan: 'enterprise',
    });
    const { key } = await callService<{ key: string }>(first.origin, 'POST', `/admin/workspaces/${workspaceId}/keys`, ADMIN_TOKEN, {
      name: 'kill',
      scopes: SCOPES,
    });
    await stop(first, 'SIGTERM');

    let database = await openDatabase();
    const { id: endpointId, secret } = await seedEndpoint(database.db, workspaceId, receiver.url);
    receiver.secrets = [secret];
    const ids = new Set(await emit(database.db, workspaceId, EVENTS));
    await database.close();

    const victim = await startService();
    expect(await within(30_000, async () => receiver.received.length >= 60)).toBe(true);
    const inFlight = receiver.open;
    await stop(victim, 'SIGKILL');
    const beforeRestart = receiver.ids().size;
    // Killed mid-delivery: attempts were under way, and most events had not arrived.
    expect(inFlight).toBeGreaterThan(0);
    expect(beforeRestart).toBeLessThan(EVENTS);

    const successor = await startService();
    const unsucceeded = async (): Promise<number> => {
      const log = await callService<{ status: string }[]>(successor.origin, 'GET', `/api/webhooks/${endpointId}/deliveries?take=${EVENTS}`, key);
      expect(log).toHaveLength(EVENTS);
      return log.filter((d) => d.status !== 'succeeded').length;
    };
    // Within the lease (15 s) plus the time the rest take, with room for a slow machine.
    expect(await within(90_000, async () => (await unsucceeded()) === 0, 500)).toBe(true);
    expect(receiver.ids()).toEqual(ids);
    expect(receiver.received.every((r) => r.verified.length === 1)).toBe(true);
    // Recorded in the database too: read it with the successor stopped.
    await stop(successor, 'SIGTERM');
    database = await openDatabase();
    try {
      const rows = await deliveriesOf(database.db, endpointId);
      expect(rows).toHaveLength(EVENTS);
      expect(rows.filter((r) => r.status !== 'succeeded')).toEqual([]);
    } finally {
      await database.close();
    }
  });
});
