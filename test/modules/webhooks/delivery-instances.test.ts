/**
 * Two instances on one PostgreSQL (and Redis), each with its own pool and delivery worker,
 * deliver N events: every attempt is made by one instance only (a receiver that always answers
 * 200 sees each webhook-id exactly once), and together they never have more than 10 attempts
 * in flight to one endpoint.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres, onRedis, startTestApp, type TestApp } from '../../helpers/app.js';
import { dropFreshDatabases, freshPostgresUrl, openAgain } from '../../helpers/fresh-database.js';
import { within } from '../../helpers/wait.js';
import { deliveriesOf, emit, seedEndpoint, startReceiver, type Receiver, START_MS } from './receiver.js';

const EVENTS_PER_ENDPOINT = 150;

describe.skipIf(!onPostgres || !onRedis)('two instances deliver together', () => {
  let a: TestApp;
  let b: TestApp;
  const receivers: Receiver[] = [];
  const peak: number[] = [];

  beforeAll(async () => {
    const url = await freshPostgresUrl();
    const env = { WEBHOOK_DELIVERY: 'true', ALLOW_PRIVATE_DESTINATIONS: 'true' };
    a = await startTestApp({ database: await openAgain(url), env });
    b = await startTestApp({ database: await openAgain(url), env });
    for (let i = 0; i < 3; i++) {
      peak.push(0);
      const r = await startReceiver({
        // A little slow, so that attempts pile up to the per-endpoint cap.
        answer: (_req, res) => setTimeout(() => res.end('ok'), 200),
      });
      r.answer = ((answer) => (req, res, got) => {
        peak[i] = Math.max(peak[i]!, r.open);
        answer(req, res, got);
      })(r.answer);
      receivers.push(r);
    }
  }, START_MS);
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await Promise.all(receivers.map((r) => r.close()));
    await dropFreshDatabases();
  });

  it('each event reaches its receiver exactly once, at most 10 at a time per endpoint', async () => {
    const ws = (await a.workspace()).id;
    const endpoints: string[] = [];
    const expected: Set<string>[] = [];
    for (const r of receivers) {
      const other = (await a.workspace()).id;
      const { id, secret } = await seedEndpoint(a.database.db, other, r.url);
      r.secrets = [secret];
      endpoints.push(id);
      expected.push(new Set(await emit(a.database.db, other, EVENTS_PER_ENDPOINT)));
    }
    void ws;
    a.runtime.wakeWebhooks();
    b.runtime.wakeWebhooks();
    const all = () => receivers.every((r, i) => r.received.length >= expected[i]!.size);
    expect(await within(60_000, async () => all())).toBe(true);
    // Settle: every delivery recorded, and nothing more arrives.
    expect(
      await within(10_000, async () =>
        (await Promise.all(endpoints.map((id) => deliveriesOf(a.database.db, id)))).flat().every((d) => d.status === 'succeeded'),
      ),
    ).toBe(true);
    receivers.forEach((r, i) => {
      expect(r.received).toHaveLength(expected[i]!.size);
      expect(r.ids()).toEqual(expected[i]);
      expect(r.received.every((x) => x.verified.length === 1)).toBe(true);
      expect(peak[i]).toBeLessThanOrEqual(10);
      // The cap was reached (else the test would prove nothing about it).
      expect(peak[i]).toBeGreaterThanOrEqual(8);
    });
    expect((await Promise.all(endpoints.map((id) => deliveriesOf(a.database.db, id)))).flat().every((d) => d.attempts === 1)).toBe(true);
  });
});
