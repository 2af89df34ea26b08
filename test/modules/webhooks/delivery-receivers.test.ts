/**
 * Receivers that misbehave (operations.md §11): one that is down for a while (connection
 * refused, then 500, then hanging past the 10 s timeout) gets every event when it comes back;
 * hanging, slow, 50 MB and redirecting receivers stall no other endpoint and are recorded as
 * failures.
 */
import { describe, expect, it } from 'vitest';
import { freePort } from '../../helpers/process.js';
import { within } from '../../helpers/wait.js';
import { useDeliveryApp } from './delivery-app.js';
import { deliveriesOf, emit, seedEndpoint } from './receiver.js';

const app = useDeliveryApp('100ms,200ms,300ms,500ms,1s,2s,3s,5s,10s,10s');
const { db, receiver } = app;

describe('misbehaving receivers', () => {
  it('a receiver down for a while (refused, 500, hanging) gets every event when it comes back', { timeout: 90_000 }, async () => {
    const port = await freePort();
    const { id, secret } = await seedEndpoint(db(), app.ws, `http://127.0.0.1:${port}/hooks`);
    const ids = await emit(db(), app.ws, 8);
    app.t.runtime.wakeWebhooks();
    // Down: nothing listens on the port.
    expect(await within(10_000, async () => (await deliveriesOf(db(), id)).every((d) => d.attempts >= 2))).toBe(true);
    expect((await deliveriesOf(db(), id)).every((d) => d.status === 'pending' && d.lastError === 'connection refused')).toBe(true);
    // Up, but answering 500.
    let mode: 'error' | 'hang' | 'ok' = 'error';
    const r = await receiver({
      port,
      secrets: [secret],
      answer: (_req, res) => {
        if (mode === 'error') res.writeHead(500).end('not yet');
        else if (mode === 'ok') res.end('ok');
        // 'hang': never answers
      },
    });
    expect(await within(10_000, async () => (await deliveriesOf(db(), id)).every((d) => d.lastStatusCode === 500))).toBe(true);
    // Hanging: every attempt under way times out.
    mode = 'hang';
    const hung = r.received.length;
    expect(await within(15_000, async () => r.received.length > hung)).toBe(true);
    expect(await within(20_000, async () => (await deliveriesOf(db(), id)).some((d) => d.lastError === 'timeout after 10 s'))).toBe(true);
    // Back.
    mode = 'ok';
    expect(await within(40_000, async () => (await deliveriesOf(db(), id)).every((d) => d.status === 'succeeded'))).toBe(true);
    const delivered = new Set(r.received.filter((x) => x.verified.length === 1).map((x) => x.id));
    expect([...ids].every((e) => delivered.has(e))).toBe(true);
  });

  it('hanging, slow, 50 MB and redirecting receivers do not stall a healthy endpoint, and are recorded as failures', { timeout: 60_000 }, async () => {
    const healthy = await receiver();
    const hanging = await receiver({ answer: () => undefined });
    const slow = await receiver({ answer: (_req, res) => setTimeout(() => res.end('late'), 12_000).unref() });
    // Each answer: 50 MB, written as fast as the client reads; closed early when the client hangs up.
    let closedEarly = 0;
    let sentWhole = 0;
    const huge = await receiver({
      answer: (_req, res) => {
        res.writeHead(500, { 'content-type': 'text/plain' });
        const chunk = Buffer.alloc(64 * 1024, 'x');
        const total = 50 * 1024 * 1024;
        let sent = 0;
        res.on('close', () => (sent < total ? closedEarly++ : sentWhole++));
        const pump = () => {
          while (sent < total && !res.destroyed) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        pump();
      },
    });
    const redirecting = await receiver({ answer: (_req, res) => res.writeHead(307, { location: healthy.url }).end() });
    const bad = { hanging, slow, huge, redirecting };
    const endpoints: Record<string, string> = {};
    for (const [name, r] of Object.entries(bad)) {
      const other = (await app.t.workspace()).id;
      endpoints[name] = (await seedEndpoint(db(), other, r.url)).id;
      await emit(db(), other, 10);
    }
    app.t.runtime.wakeWebhooks();
    expect(await within(5000, async () => hanging.received.length === 10 && slow.received.length === 10)).toBe(true);
    // While the hanging and slow ones hold their 10 attempts each, a healthy endpoint gets all of its events.
    const { id: healthyId } = await seedEndpoint(db(), app.ws, healthy.url);
    const ids = await emit(db(), app.ws, 20);
    app.t.runtime.wakeWebhooks();
    expect(await within(8000, async () => ids.every((e) => healthy.ids().has(e)))).toBe(true);
    expect(hanging.open, 'the hanging requests are still open').toBe(10);
    expect(slow.open, 'the slow requests are still open').toBe(10);
    expect(await within(5000, async () => (await deliveriesOf(db(), healthyId)).every((d) => d.status === 'succeeded'))).toBe(true);

    // The 50 MB answer: read up to 1 KB, then the connection is closed.
    const hugeRows = await deliveriesOf(db(), endpoints.huge!);
    expect(hugeRows.map((d) => [d.lastStatusCode, d.lastResponse?.length, d.lastError])).toEqual(hugeRows.map(() => [500, 1024, null]));
    expect(hugeRows.every((d) => d.lastResponse === 'x'.repeat(1024))).toBe(true);
    expect(closedEarly).toBeGreaterThanOrEqual(10);
    expect(sentWhole).toBe(0);
    // A redirect is a failure, never followed: the healthy receiver saw none of those events.
    const redirectRows = await deliveriesOf(db(), endpoints.redirecting!);
    expect(redirectRows.every((d) => d.lastStatusCode === 307 && d.status === 'pending')).toBe(true);
    expect(redirectRows.some((d) => healthy.ids().has(d.eventId))).toBe(false);
    // The hanging and slow ones time out at 10 s.
    for (const name of ['hanging', 'slow']) {
      expect(await within(15_000, async () => (await deliveriesOf(db(), endpoints[name]!)).every((d) => d.lastError === 'timeout after 10 s'))).toBe(true);
    }
    expect((await deliveriesOf(db(), endpoints.hanging!)).every((d) => d.status === 'pending' && d.attempts === 1 && d.lastStatusCode === null)).toBe(true);
  });
});
