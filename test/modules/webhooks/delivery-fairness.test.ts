/**
 * Delivery is shared fairly between workspaces (operations.md §11 "Delivery"; issue 41 M4): a
 * workspace whose 20 receivers accept the connection and never answer holds at most its
 * share of an instance's slots (a fifth of WEBHOOK_CONCURRENCY), so another workspace's event
 * is delivered while those attempts are still held, not after they time out (10 s).
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { perWorkspaceOf } from '../../../src/modules/webhooks/delivery.js';
import { within } from '../../helpers/wait.js';
import { useDeliveryApp } from './delivery-app.js';
import { emit, seedEndpoint } from './receiver.js';

const CONCURRENCY = 10;
const app = useDeliveryApp('1h', { WEBHOOK_CONCURRENCY: String(CONCURRENCY) });
const { db } = app;

/** The workspace's deliveries: how many have a finished attempt, and how many are leased now. */
async function progressOf(workspaceId: string): Promise<{ finished: number; leased: number }> {
  const [row] = await rows<{ finished: number; leased: number }>(
    db(),
    sql`SELECT count(*) FILTER (WHERE attempts > 0)::int AS finished, count(*) FILTER (WHERE locked_until > now())::int AS leased
        FROM webhook_deliveries WHERE workspace_id = ${workspaceId}::uuid`,
  );
  return row!;
}

describe('fairness between workspaces', () => {
  it("a workspace's 20 hanging receivers do not hold back another workspace's event", { timeout: 60_000 }, async () => {
    const share = perWorkspaceOf(CONCURRENCY);
    expect(share).toBeLessThan(CONCURRENCY);
    // Workspace A: 20 endpoints (the most a workspace may have) whose receiver never answers, 3 events each.
    const hanging = await app.receiver({ tls: true, answer: () => undefined });
    const a = app.ws;
    for (let i = 0; i < 20; i++) await seedEndpoint(db(), a, hanging.url);
    await emit(db(), a, 3);
    app.t.runtime.wakeWebhooks();
    expect(await within(10_000, async () => hanging.open >= share)).toBe(true);

    // Workspace B: one endpoint, one event, queued while A's attempts are held.
    const healthy = await app.receiver({ tls: true });
    const b = (await app.t.workspace()).id;
    await seedEndpoint(db(), b, healthy.url);
    const [event] = await emit(db(), b, 1);
    app.t.runtime.wakeWebhooks();
    expect(await within(30_000, async () => healthy.ids().has(event!))).toBe(true);

    // Ordering, not timing: when B's event arrived, none of A's attempts had ended (each ends
    // only by its 10 s timeout), and A held no more than its share of the instance.
    const heldA = await progressOf(a);
    expect(heldA.finished, 'an attempt of A ended (timed out) before B was served').toBe(0);
    expect(hanging.open).toBeGreaterThanOrEqual(share);
    expect(hanging.open).toBeLessThanOrEqual(share);
    expect(heldA.leased).toBe(share);
  });
});
