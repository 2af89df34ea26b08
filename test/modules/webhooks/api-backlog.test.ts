/**
 * How far behind delivery is (issue 43), through HTTP: GET /api/webhooks/backlog counts each
 * endpoint's pending deliveries, those due now and since when the oldest due one waits; the
 * delivery log keeps one state with `status`. Times of the rows are the database's, as the
 * delivery worker's.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { startTestApp, type TestApp, type WorkspaceFixture } from '../../helpers/app.js';
import { expectError } from '../people/helpers.js';
import { call, NO_DELIVERY, register, seedDelivery } from './helpers.js';

let t: TestApp;
let ws: WorkspaceFixture;

beforeAll(async () => {
  t = await startTestApp({ env: NO_DELIVERY });
  ws = await t.workspace();
});
afterAll(() => t?.close());

interface Backlog {
  webhookId: string;
  pending: number;
  due: number;
  oldestDueAt: string | null;
}

/** A pending delivery due `dueInSeconds` from the database's now (negative: due that long ago); answers its due time. */
async function pending(workspaceId: string, endpointId: string, dueInSeconds: number, leased = false): Promise<string> {
  const eventId = randomUUID();
  await t.database.db.execute(
    sql`INSERT INTO webhook_events (id, workspace_id, type, body) VALUES (${eventId}::uuid, ${workspaceId}::uuid, 'link.created', '{}')`,
  );
  const [row] = await rows<{ at: string }>(
    t.database.db,
    sql`INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, next_attempt_at, locked_until)
        VALUES (${randomUUID()}::uuid, ${workspaceId}::uuid, ${endpointId}::uuid, ${eventId}::uuid,
          date_trunc('milliseconds', now()) + ${dueInSeconds}::int * interval '1 second', CASE WHEN ${leased}::boolean THEN now() + interval '15 seconds' END)
        RETURNING to_char(next_attempt_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at`,
  );
  return row!.at;
}

describe('GET /api/webhooks/backlog', () => {
  it('counts pending and due deliveries per endpoint, newest endpoint first, with the oldest due time', async () => {
    const w = await t.workspace();
    const busy = await register(t, w.key);
    const oldest = await pending(w.id, busy.id, -600);
    await pending(w.id, busy.id, -60);
    await pending(w.id, busy.id, -1, true); // under way: still due, still pending
    await pending(w.id, busy.id, 300); // waiting for its retry: pending, not due
    await pending(w.id, busy.id, 3600);
    const past = new Date(Date.now() - 3600_000);
    await seedDelivery(t, { workspaceId: w.id, endpointId: busy.id, status: 'succeeded', createdAt: past });
    await seedDelivery(t, { workspaceId: w.id, endpointId: busy.id, status: 'failed', createdAt: past });
    const retrying = await register(t, w.key);
    await pending(w.id, retrying.id, 120);
    const quiet = await register(t, w.key);
    const gone = await register(t, w.key);
    await pending(w.id, gone.id, -5);
    expect((await call(t, w.key, 'DELETE', `/api/webhooks/${gone.id}`)).statusCode).toBe(200);

    const res = await call(t, w.key, 'GET', '/api/webhooks/backlog');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<Backlog[]>()).toEqual([
      { webhookId: quiet.id, pending: 0, due: 0, oldestDueAt: null },
      { webhookId: retrying.id, pending: 1, due: 0, oldestDueAt: null },
      { webhookId: busy.id, pending: 5, due: 3, oldestDueAt: oldest },
    ]);
  });

  it("shows only the workspace's own endpoints, and needs webhooksRead", async () => {
    const w = await t.workspace();
    const mine = await register(t, w.key);
    await pending(w.id, mine.id, -30);
    const them = await t.workspace();
    expect((await call(t, them.key, 'GET', '/api/webhooks/backlog')).json()).toEqual([]);
    const linksOnly = (await t.admin('POST', `/workspaces/${w.id}/keys`, { name: 'links', scopes: ['linksRead'] })).json<{ key: string }>().key;
    const refused = await call(t, linksOnly, 'GET', '/api/webhooks/backlog');
    expect(refused.statusCode, refused.body).toBe(403);
    expect(refused.json<{ missingScopes: string[] }>().missingScopes).toEqual(['webhooksRead']);
    expect((await call(t, w.key, 'GET', '/api/webhooks/backlog')).json<Backlog[]>()).toMatchObject([{ webhookId: mine.id, pending: 1, due: 1 }]);
  });
});

describe('the delivery log by status', () => {
  it('keeps the deliveries in the state asked for, newest first; an unknown state is a 400', async () => {
    const w = await register(t, ws.key);
    const now = Date.now();
    const failed = await seedDelivery(t, { workspaceId: ws.id, endpointId: w.id, status: 'failed', createdAt: new Date(now - 3000), statusCode: 500 });
    const succeeded = await seedDelivery(t, { workspaceId: ws.id, endpointId: w.id, status: 'succeeded', createdAt: new Date(now - 2000) });
    const waiting = await seedDelivery(t, { workspaceId: ws.id, endpointId: w.id, status: 'pending', createdAt: new Date(now - 1000) });
    const waiting2 = await seedDelivery(t, { workspaceId: ws.id, endpointId: w.id, status: 'pending', createdAt: new Date(now) });
    const ids = async (query: string) => {
      const res = await call(t, ws.key, 'GET', `/api/webhooks/${w.id}/deliveries${query}`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json<{ id: string; status: string }[]>().map((d) => d.id);
    };
    expect(await ids('?status=pending')).toEqual([waiting2.deliveryId, waiting.deliveryId]);
    expect(await ids('?status=pending&take=1&skip=1')).toEqual([waiting.deliveryId]);
    expect(await ids('?status=failed')).toEqual([failed.deliveryId]);
    expect(await ids('?status=succeeded&sort=asc')).toEqual([succeeded.deliveryId]);
    expect(await ids('')).toEqual([waiting2.deliveryId, waiting.deliveryId, succeeded.deliveryId, failed.deliveryId]);
    expectError(await call(t, ws.key, 'GET', `/api/webhooks/${w.id}/deliveries?status=done`), 400, 'invalid_query', 'status');
  });
});
