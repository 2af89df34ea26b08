/**
 * Where webhooks may go (operations.md §11, "Where to"): with private destinations not allowed
 * (the default), a loopback URL, and a name resolving to loopback (`localhost`), are refused
 * at the connection: the error is recorded and the receiver never sees a connection. Inside
 * WEBHOOK_ALLOWED_CIDRS the operator's in-house receiver is reached, over http too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { dropFreshDatabases, freshDatabase } from '../../helpers/fresh-database.js';
import { within } from '../../helpers/wait.js';
import { deliveriesOf, emit, seedEndpoint, startReceiver, type Receiver, START_MS } from './receiver.js';

let guarded: TestApp;
let inHouse: TestApp;
let receiver: Receiver;
let tlsReceiver: Receiver;

beforeAll(async () => {
  const env = { WEBHOOK_DELIVERY: 'true', WEBHOOK_RETRY_DELAYS: '1h' };
  [guarded, inHouse] = await Promise.all([
    freshDatabase().then((database) => startTestApp({ database, env })),
    freshDatabase().then((database) => startTestApp({ database, env: { ...env, WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8' } })),
  ]);
  [receiver, tlsReceiver] = await Promise.all([startReceiver(), startReceiver({ tls: true })]);
}, START_MS);
afterAll(async () => {
  await Promise.all([guarded?.close(), inHouse?.close()]);
  await Promise.all([receiver?.close(), tlsReceiver?.close()]);
  await dropFreshDatabases();
});

/** Queues one event to `url` on `t`; the delivery's row once its first attempt is recorded. */
async function attemptOnce(t: TestApp, url: string) {
  const ws = (await t.workspace()).id;
  const { id } = await seedEndpoint(t.database.db, ws, url);
  await emit(t.database.db, ws);
  t.runtime.wakeWebhooks();
  expect(await within(10_000, async () => (await deliveriesOf(t.database.db, id))[0]!.attempts === 1)).toBe(true);
  return (await deliveriesOf(t.database.db, id))[0]!;
}

describe('the connect-time guard on webhook deliveries', () => {
  it.each([
    ['https to a loopback address', () => `https://127.0.0.1:${tlsReceiver.port}/hooks`, /^refused: 127\.0\.0\.1 is not a public address$/],
    ['https to a name resolving to loopback', () => `https://localhost:${tlsReceiver.port}/hooks`, /^refused: (127\.0\.0\.1|::1) is not a public address$/],
    ['http to a loopback address', () => `http://127.0.0.1:${receiver.port}/hooks`, /^refused: http is allowed only inside WEBHOOK_ALLOWED_CIDRS/],
    ['http to a name resolving to loopback', () => `http://localhost:${receiver.port}/hooks`, /^refused: http is allowed only inside WEBHOOK_ALLOWED_CIDRS/],
    ['IPv6 loopback', () => `https://[::1]:${tlsReceiver.port}/hooks`, /^refused: ::1 is not a public address$/],
  ])('refuses %s, and never connects', async (_name, url, error) => {
    const before = receiver.connections + tlsReceiver.connections;
    const row = await attemptOnce(guarded, url());
    expect(row).toMatchObject({ status: 'pending', lastStatusCode: null });
    expect(row.lastError).toMatch(error);
    expect(receiver.connections + tlsReceiver.connections).toBe(before);
  });

  it('reaches a receiver inside WEBHOOK_ALLOWED_CIDRS, over http too', async () => {
    for (const url of [receiver.url, tlsReceiver.url]) {
      const row = await attemptOnce(inHouse, url);
      expect(row, url).toMatchObject({ status: 'succeeded', lastStatusCode: 200 });
    }
  });
});
