/**
 * link.created / link.updated / link.deleted (operations.md §11) through the links API: one
 * event per link of a bulk write, stored in the write's transaction, `data` exactly the Link
 * the API answers (the link as it was, for a delete), only for the subscribed types of the
 * subscribing workspace's enabled endpoints.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { workspaceWithCollection } from '../../helpers/client.js';
import { deleteEndpoint, endpoint, eventsByDataId, eventsOf, failEventsContaining } from './emit-helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

type Link = { id: string; title: string | null; tagIds: string[]; updatedAt: string } & Record<string, unknown>;
const BULK = 500;
const LINK_EVENTS = ['link.created', 'link.updated', 'link.deleted'];

async function client() {
  const c = await workspaceWithCollection(t);
  const items = (n: number, extra: (i: number) => Record<string, unknown> = () => ({})) =>
    Array.from({ length: n }, (_, i) => ({ url: `https://shop.example/p/${i}`, collectionId: c.collectionId, title: `item ${i}`, ...extra(i) }));
  const create = async (n: number): Promise<Link[]> => {
    const res = await c.send('POST', '/api/links', items(n));
    expect(res.statusCode, res.body).toBe(201);
    return res.json<Link[]>();
  };
  const all = async (): Promise<Link[]> => (await c.send('GET', '/api/links?take=5000')).json<Link[]>();
  return { ...c, items, create, all };
}

const between = (iso: string, before: number, after: number) => {
  const at = Date.parse(iso);
  return at >= before - 1 && at <= after + 1;
};

describe('link events', () => {
  it('a bulk create of 500 links stores 500 link.created events in its request, each the Link answered, for each enabled subscribed endpoint', async () => {
    const c = await client();
    const all = await endpoint(t, c.ws.id, LINK_EVENTS);
    const createdOnly = await endpoint(t, c.ws.id, ['link.created']);
    await endpoint(t, c.ws.id, ['link.created'], { disabled: true });
    await deleteEndpoint(t, await endpoint(t, c.ws.id, ['link.created']));
    await endpoint(t, c.ws.id, ['link.clicked', 'lead.created']);

    const before = Date.now();
    const links = await c.create(BULK);
    const after = Date.now();
    const events = await eventsByDataId(t, c.ws.id, 'link.created');
    expect(events.size).toBe(BULK);
    for (const link of links) {
      const e = events.get(link.id)!;
      expect(e.body.data).toEqual(link);
      expect(e.body.type).toBe('link.created');
      expect(between(e.body.timestamp, before, after), e.body.timestamp).toBe(true);
      expect(e.endpoints).toEqual([all, createdOnly].sort());
    }
    // The webhook-id is the event's own, one per event.
    expect(new Set([...events.values()].map((e) => e.id)).size).toBe(BULK);
    expect(await eventsOf(t, c.ws.id, 'link.updated')).toEqual([]);
  });

  it('a bulk upsert stores link.updated with each link as it is after the write, link.created for the new ones', async () => {
    const c = await client();
    const links = await c.create(BULK - 1);
    await endpoint(t, c.ws.id, ['link.updated', 'link.created']);
    const res = await c.send('PUT', '/api/links', [...links.map((l, i) => ({ id: l.id, title: `renamed ${i}` })), ...c.items(1)]);
    expect(res.statusCode, res.body).toBe(200);
    const answered = res.json<Link[]>();
    const updated = await eventsByDataId(t, c.ws.id, 'link.updated');
    const created = await eventsByDataId(t, c.ws.id, 'link.created');
    expect(updated.size).toBe(BULK - 1);
    expect(created.size).toBe(1);
    for (const link of answered.slice(0, -1)) expect(updated.get(link.id)!.body.data).toEqual(link);
    expect(updated.get(links[7]!.id)!.body.data.title).toBe('renamed 7');
    expect(created.get(answered.at(-1)!.id)!.body.data).toEqual(answered.at(-1));
  });

  it('link.deleted carries each link as it was before the delete; a workspace subscribed to it alone gets nothing else', async () => {
    const c = await client();
    await endpoint(t, c.ws.id, ['link.deleted']);
    const links = await c.create(BULK);
    const tag = (await c.send('POST', '/api/tags', [{ name: 'sale' }])).json<{ id: string }[]>()[0]!;
    expect((await c.send('PUT', '/api/links', [{ id: links[3]!.id, title: 'last words', tagIds: [tag.id] }])).statusCode).toBe(200);
    const before = await c.all();
    expect(await eventsOf(t, c.ws.id)).toEqual([]);

    const res = await c.send(
      'DELETE',
      '/api/links',
      links.map((l) => l.id),
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(await c.all()).toEqual([]);
    const deleted = await eventsByDataId(t, c.ws.id, 'link.deleted');
    expect(deleted.size).toBe(BULK);
    for (const link of before) expect(deleted.get(link.id)!.body.data).toEqual(link);
    expect(deleted.get(links[3]!.id)!.body.data).toMatchObject({ title: 'last words', tagIds: [tag.id] });
  });

  it("a link with a password has its events' bodies stored sealed, never the password in clear; sent, they carry the Link as answered", async () => {
    const c = await client();
    await endpoint(t, c.ws.id, LINK_EVENTS);
    const res = await c.send(
      'POST',
      '/api/links',
      c.items(2, (i) => (i === 0 ? { password: 'open sesame 7f3a' } : {})),
    );
    expect(res.statusCode, res.body).toBe(201);
    const [locked, open] = res.json<Link[]>();
    expect(locked!.password).toBe('open sesame 7f3a');
    const events = await eventsByDataId(t, c.ws.id, 'link.created');
    expect(events.get(locked!.id)).toMatchObject({ sealed: true, body: { type: 'link.created', data: locked } });
    expect(events.get(open!.id)).toMatchObject({ sealed: false, body: { type: 'link.created', data: open } });
    const stored = await rows<{ body: string | null; bodySealed: string | null }>(
      t.database.db,
      sql`SELECT body, body_sealed AS "bodySealed" FROM webhook_events WHERE id = ${events.get(locked!.id)!.id}::uuid`,
    );
    expect(stored).toEqual([{ body: null, bodySealed: expect.any(String) }]);
    expect(stored[0]!.bodySealed).not.toContain('sesame');
    expect(Buffer.from(stored[0]!.bodySealed!, 'base64').toString('latin1')).not.toContain('sesame');
  });

  it('only the subscribing workspace gets events: another workspace, and one without endpoints, get none', async () => {
    const subscribed = await client();
    const other = await client();
    const bare = await client();
    await endpoint(t, subscribed.ws.id, LINK_EVENTS);
    await endpoint(t, other.ws.id, ['link.clicked']);
    for (const c of [subscribed, other, bare]) {
      const [link] = await c.create(1);
      expect((await c.send('PUT', '/api/links', [{ id: link!.id, title: 'x' }])).statusCode).toBe(200);
      expect((await c.send('DELETE', '/api/links', [link!.id])).statusCode).toBe(200);
    }
    expect((await eventsOf(t, subscribed.ws.id)).map((e) => e.type).sort()).toEqual(LINK_EVENTS.sort());
    expect(await eventsOf(t, other.ws.id)).toEqual([]);
    expect(await eventsOf(t, bare.ws.id)).toEqual([]);
  });

  it('a bulk write refused on its item 499 writes no link and no event', async () => {
    const c = await client();
    await endpoint(t, c.ws.id, LINK_EVENTS);
    const kept = await c.create(3);
    const baseline = (await eventsOf(t, c.ws.id)).length;
    // Refused before the transaction (a bad URL) and inside it (an unknown collection).
    for (const bad of [{ url: 'ftp://nope.example/' }, { collectionId: '0190a6b0-0000-7000-8000-000000000000' }]) {
      const res = await c.send(
        'POST',
        '/api/links',
        c.items(BULK, (i) => (i === 499 ? bad : {})),
      );
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error.en).toContain('[499]');
    }
    const updates = kept.map((l) => ({ id: l.id, title: 'changed' }));
    expect((await c.send('PUT', '/api/links', [...updates, { id: '0190a6b0-0000-7000-8000-000000000001', title: 'ghost' }])).statusCode).toBe(400);
    expect((await c.send('DELETE', '/api/links', [...kept.map((l) => l.id), '0190a6b0-0000-7000-8000-000000000002'])).statusCode).toBe(400);
    expect(await c.all()).toHaveLength(3);
    expect((await c.all()).every((l) => l.title !== 'changed')).toBe(true);
    expect(await eventsOf(t, c.ws.id)).toHaveLength(baseline);
  });

  it('when storing its events fails, the whole write fails: no link, no event', async () => {
    const c = await client();
    await endpoint(t, c.ws.id, LINK_EVENTS);
    const restore = await failEventsContaining(t, 'outbox-refuses-this-link');
    try {
      const res = await c.send(
        'POST',
        '/api/links',
        c.items(BULK, (i) => (i === 499 ? { title: 'outbox-refuses-this-link' } : {})),
      );
      expect(res.statusCode).toBe(500);
      const [link] = await c.create(1);
      const del = await c.send('PUT', '/api/links', [{ id: link!.id, title: 'outbox-refuses-this-link' }]);
      expect(del.statusCode).toBe(500);
      expect((await c.all()).map((l) => l.title)).toEqual(['item 0']);
    } finally {
      await restore();
    }
    expect((await eventsOf(t, c.ws.id)).map((e) => e.type)).toEqual(['link.created']);
  });
});
