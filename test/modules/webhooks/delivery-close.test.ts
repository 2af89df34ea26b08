/**
 * An instance's delivery worker stopping (SIGTERM: runtime.close) with deliveries queued
 * (operations.md §11: "a crash or restart loses no event"): it starts no attempt once closing,
 * gives the attempts under way a moment, then abandons them with their leases released, so
 * another instance sends them at once (not when the 15 s lease runs out). Two workers on one
 * database of this file's own stand for two instances.
 */
import { sql } from 'drizzle-orm';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sealer } from '../../../src/core/sealed.js';
import { rows } from '../../../src/db/connect.js';
import { WebhookDelivery } from '../../../src/modules/webhooks/delivery.js';
import { SECRET, startTestApp, type TestApp } from '../../helpers/app.js';
import { dropFreshDatabases, freshDatabase } from '../../helpers/fresh-database.js';
import { within } from '../../helpers/wait.js';
import { emit, ok, seedEndpoint, startReceiver, START_MS, type Receiver } from './receiver.js';

let t: TestApp;
const receivers: Receiver[] = [];

beforeAll(async () => {
  // The app's own worker stays off (testConfig): only the workers made below claim.
  t = await startTestApp({ database: await freshDatabase() });
}, START_MS);

afterAll(async () => {
  await t?.close();
  await Promise.all(receivers.map((r) => r.close()));
  await dropFreshDatabases();
});

/** One instance's worker on the shared database. */
function instance(): WebhookDelivery {
  return new WebhookDelivery({
    database: t.database,
    sealer: new Sealer(SECRET),
    log: pino({ level: 'silent' }),
    clock: () => new Date(),
    concurrency: 50,
    retryDelaysMs: [100],
    destinations: { allowPrivate: true, allowedCidrs: [] },
    closeGraceMs: 200,
  });
}

async function receiver(answer: Receiver['answer']): Promise<Receiver> {
  const r = await startReceiver({ answer });
  receivers.push(r);
  return r;
}

interface Row {
  status: string;
  attempts: number;
  leased: boolean;
}

const deliveries = (endpointId: string) =>
  rows<Row>(t.database.db, sql`SELECT status, attempts, locked_until > now() AS leased FROM webhook_deliveries WHERE endpoint_id = ${endpointId}::uuid`);

/** Every delivery still queued as it was before the stopped instance touched it: pending, no attempt counted, no lease held. */
const untouched = (r: Row) => r.status === 'pending' && r.attempts === 0 && r.leased !== true;

/** Another instance sends them all, at once: no lease is left to run out. */
async function successorDelivers(endpointId: string, events: number): Promise<void> {
  const successor = instance();
  successor.start();
  try {
    expect(await within(15_000, async () => (await deliveries(endpointId)).filter((r) => r.status === 'succeeded').length === events)).toBe(true);
  } finally {
    await successor.close();
  }
}

describe('a delivery worker closing with deliveries queued', () => {
  it('starts no attempt once closing: a claim under way hands its leases back unsent', async () => {
    const ws = await t.workspace();
    const r = await receiver(ok);
    const { id } = await seedEndpoint(t.database.db, ws.id, r.url);
    await emit(t.database.db, ws.id, 20);
    const stopping = instance();
    stopping.start(); // its first claim is under way…
    await stopping.close(); // …when the shutdown begins
    expect(r.received).toEqual([]);
    const rowsAfter = await deliveries(id);
    expect(rowsAfter).toHaveLength(20);
    expect(rowsAfter.filter((row) => !untouched(row))).toEqual([]);
    await successorDelivers(id, 20);
  });

  it('abandons the attempts a silent receiver holds after the grace, releasing them for another instance', async () => {
    const ws = await t.workspace();
    // Answers nothing until the test says so: the attempts stay under way.
    const r = await receiver(() => undefined);
    const { id } = await seedEndpoint(t.database.db, ws.id, r.url);
    await emit(t.database.db, ws.id, 30);
    const stopping = instance();
    stopping.start();
    // At most 10 attempts in flight per endpoint (§11).
    expect(await within(15_000, async () => r.open === 10)).toBe(true);
    await stopping.close();
    const rowsAfter = await deliveries(id);
    expect(rowsAfter).toHaveLength(30);
    expect(rowsAfter.filter((row) => !untouched(row))).toEqual([]);
    r.answer = ok;
    await successorDelivers(id, 30);
  });
});
