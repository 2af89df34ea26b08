/**
 * The outbox statement (operations.md §11): an event is written with one delivery per enabled,
 * subscribed endpoint of its own workspace, or not at all; written again, it adds nothing.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { eventBody, eventTypesWanted, recordEvents, type OutboxEvent } from '../../../src/modules/webhooks/outbox.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;
let ws: string;
let other: string;

beforeAll(async () => {
  t = await startTestApp();
  ws = (await t.workspace()).id;
  other = (await t.workspace()).id;
});
afterAll(() => t?.close());

async function endpoint(workspaceId: string, events: string[], disabled = false): Promise<string> {
  const id = randomUUID();
  await t.database.db.execute(sql`INSERT INTO webhook_endpoints (id, workspace_id, url, events, disabled, created_by, secret_sealed)
    VALUES (${id}, ${workspaceId}, 'https://hooks.example/in', ${`{${events.join(',')}}`}::text[], ${disabled}, '{"type":"key","id":"k"}', 'x')`);
  return id;
}

const event = (workspaceId: string, type: OutboxEvent['type']): OutboxEvent => ({
  id: randomUUID(),
  workspaceId,
  type,
  body: eventBody(type, new Date('2026-11-24T12:00:00Z'), { id: 'x' }),
});

async function deliveriesOf(eventId: string) {
  return rows<{ endpointId: string; status: string; body: string }>(
    t.database.db,
    sql`SELECT d.endpoint_id AS "endpointId", d.status, e.body FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id WHERE d.event_id = ${eventId}`,
  );
}

describe('the webhooks outbox', () => {
  it("queues one delivery per enabled endpoint subscribed to the type, in the event's workspace only", async () => {
    const a = await endpoint(ws, ['link.created', 'link.updated']);
    const b = await endpoint(ws, ['link.created']);
    await endpoint(ws, ['link.created'], true); // disabled
    await endpoint(ws, ['link.deleted']); // another type
    await endpoint(other, ['link.created']); // another workspace
    const e = event(ws, 'link.created');
    expect(await recordEvents({ ctx: t.database, input: { events: [e] } })).toBe(2);
    const found = await deliveriesOf(e.id);
    expect(found.map((d) => d.endpointId).sort()).toEqual([a, b].sort());
    expect(found.every((d) => d.status === 'pending')).toBe(true);
    expect(JSON.parse(found[0]!.body)).toEqual({ type: 'link.created', timestamp: '2026-11-24T12:00:00.000Z', data: { id: 'x' } });
    expect(await eventTypesWanted({ ctx: t.database, input: { workspaceId: ws } })).toEqual(new Set(['link.created', 'link.updated', 'link.deleted']));
  });

  it('writes no event nobody subscribes to, and an event written twice adds nothing', async () => {
    const nobody = event(ws, 'sale.created');
    expect(await recordEvents({ ctx: t.database, input: { events: [nobody] } })).toBe(0);
    expect(await rows(t.database.db, sql`SELECT 1 FROM webhook_events WHERE id = ${nobody.id}`)).toHaveLength(0);

    const e = event(ws, 'link.updated');
    expect(await recordEvents({ ctx: t.database, input: { events: [e] } })).toBe(1);
    expect(await recordEvents({ ctx: t.database, input: { events: [e] } })).toBe(0);
    expect(await deliveriesOf(e.id)).toHaveLength(1);
  });

  it('sends webhook.test to the one endpoint named, subscribed or not', async () => {
    const c = await endpoint(ws, ['link.deleted']);
    const e = event(ws, 'webhook.test');
    expect(await recordEvents({ ctx: t.database, input: { events: [e], endpointId: c } })).toBe(1);
    expect((await deliveriesOf(e.id)).map((d) => d.endpointId)).toEqual([c]);
  });

  it('is written with the transaction it runs in, or not at all', async () => {
    await endpoint(ws, ['lead.created']);
    const e = event(ws, 'lead.created');
    await expect(
      t.database.db.transaction(async (tx) => {
        await recordEvents({ ctx: { db: tx }, input: { events: [e] } });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await deliveriesOf(e.id)).toHaveLength(0);
  });
});
