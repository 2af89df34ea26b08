/**
 * Customers over HTTP (api.md "Customers", "Conversion inputs", "States and transitions";
 * operations.md §4): the upsert by customerExternalId on every accepted conversion (reuse and
 * update of the active customer, no revival of a soft-deleted one, exactly one customer under
 * concurrent first events), GET by id or externalId with the common list parameters, PUT by id
 * or externalId that never creates, soft DELETE by id, the scopes, and isolation between
 * workspaces.
 */
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { ISO, UUID, clientWithClick, expect400, type Body, type Customer, type LeadEvent } from '../conversions/helpers.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t?.close();
});

/** A workspace with one link and one fresh click: the usual starting point. */
const withClick = () => clientWithClick(t);

const leadBody = (clickId: string, extra: Body = {}): Body => ({
  clickId,
  eventName: 'Sign up',
  customerExternalId: 'user-1',
  customerName: 'Ada Lovelace',
  ...extra,
});

/** A workspace with a click, and a way to make customers through tracked sales. */
async function shop() {
  const { api, link, clickId } = await withClick();
  const customer = async (externalId: string, extra: Body = {}): Promise<Customer> =>
    (await api.okSale({ customerExternalId: externalId, customerName: `Name of ${externalId}`, amount: 100, clickId, ...extra })).customer;
  const put = (body: unknown, key?: string) => api.send('PUT', '/api/customers', body, key);
  const del = (body: unknown, key?: string) => api.send('DELETE', '/api/customers', body, key);
  const get = (query: string, key?: string) => api.send('GET', `/api/customers${query}`, undefined, key);
  return { api, link, clickId, customer, put, del, get };
}

const ids = (list: { id: string }[]) => list.map((c) => c.id);

describe('customer upsert by customerExternalId on every accepted event', () => {
  it('reuses the active customer and updates name, email and avatar as given (omitted keeps, null clears)', async () => {
    const { api, clickId } = await withClick();
    const first = await api.okLead(
      leadBody(clickId, { customerName: 'Ada', customerEmail: 'ada@example.com', customerAvatar: 'https://cdn.example.com/a.png' }),
    );
    const second = await api.okLead(leadBody(clickId, { customerName: 'Ada L.', customerEmail: 'ada.l@example.com' }));
    expect(second.customer).toMatchObject({
      id: first.customer.id,
      externalId: 'user-1',
      name: 'Ada L.',
      email: 'ada.l@example.com',
      avatar: 'https://cdn.example.com/a.png',
      createdAt: first.customer.createdAt,
    });
    expect(Date.parse(second.customer.updatedAt)).toBeGreaterThanOrEqual(Date.parse(first.customer.updatedAt));
    const third = await api.okSale({ customerExternalId: 'user-1', customerName: 'Ada King', amount: 1, customerEmail: null, customerAvatar: null });
    expect(third.customer).toMatchObject({ id: first.customer.id, name: 'Ada King', email: null, avatar: null });
    expect(await api.customers()).toEqual([third.customer]);
  });

  it('does not revive a soft-deleted customer: the next event creates a new one (new id)', async () => {
    const { api, clickId, del, get } = await shop();
    const old = await api.okLead(leadBody(clickId, { customerEmail: 'old@example.com' }));
    const res = await del([old.customer.id]);
    expect(res.statusCode, res.body).toBe(200);
    // The deleted customer's leads no longer attribute anything.
    expect((await api.lead(leadBody(''))).statusCode).toBe(400);
    expect((await api.sale({ customerExternalId: 'user-1', customerName: 'x', amount: 5 })).statusCode).toBe(400);
    expect(await api.customers()).toEqual([]);
    const fresh = await api.okLead(leadBody(clickId, { customerName: 'Ada again' }));
    expect(fresh.customer.id).not.toBe(old.customer.id);
    expect(fresh.customer).toMatchObject({ externalId: 'user-1', name: 'Ada again', email: null, avatar: null });
    expect(await api.customers()).toEqual([fresh.customer]);
    expect((await get(`?id=${old.customer.id}`)).json()).toEqual([]);
    expect((await get('?externalId=user-1')).json()).toEqual([fresh.customer]);
    // The events of both stay.
    expect(await api.totals()).toEqual({ leads: 2, sales: 0, saleAmount: 0 });
  });

  it('concurrent first events for one external id create exactly one customer', async () => {
    const { api, clickId, get } = await shop();
    const results = await Promise.all(
      Array.from({ length: 25 }, (_, i) => api.lead(leadBody(clickId, { customerExternalId: 'rush', customerName: `Rush ${i}` }))),
    );
    for (const res of results) expect(res.statusCode, res.body).toBe(200);
    const events = results.map((r) => r.json<LeadEvent>());
    expect(new Set(events.map((e) => e.id)).size).toBe(25);
    const list = (await get('?externalId=rush')).json<Customer[]>();
    expect(list).toHaveLength(1);
    expect(new Set(events.map((e) => e.customer.id))).toEqual(new Set([list[0]!.id]));
    expect(await api.totals()).toEqual({ leads: 25, sales: 0, saleAmount: 0 });
  });

  it('concurrent leads and sales for one new external id also create exactly one customer', async () => {
    const { api, clickId, get } = await shop();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        i % 2 === 0
          ? api.lead(leadBody(clickId, { customerExternalId: 'mixed' }))
          : api.sale({ customerExternalId: 'mixed', customerName: 'Mixed', amount: 10, clickId }),
      ),
    );
    for (const res of results) expect(res.statusCode, res.body).toBe(200);
    const list = (await get('?externalId=mixed')).json<Customer[]>();
    expect(list).toHaveLength(1);
    expect(new Set(results.map((r) => r.json<LeadEvent>().customer.id))).toEqual(new Set([list[0]!.id]));
    expect(await api.totals()).toEqual({ leads: 10, sales: 10, saleAmount: 100 });
  });
});

describe('GET /api/customers', () => {
  it('lists the workspace’s active customers, newest first by default, with the record fields', async () => {
    const { customer, get } = await shop();
    const a = await customer('a', { customerEmail: 'a@example.com', customerAvatar: 'https://cdn.example.com/a.png' });
    const b = await customer('b');
    const res = await get('');
    expect(res.statusCode, res.body).toBe(200);
    const list = res.json<Customer[]>();
    expect(ids(list)).toEqual([b.id, a.id]);
    expect(Object.keys(list[1]!).sort()).toEqual(['avatar', 'createdAt', 'email', 'externalId', 'id', 'name', 'partnerId', 'updatedAt']);
    expect(list[1]).toEqual({
      id: a.id,
      externalId: 'a',
      name: 'Name of a',
      email: 'a@example.com',
      avatar: 'https://cdn.example.com/a.png',
      partnerId: null,
      createdAt: a.createdAt,
      updatedAt: a.updatedAt,
    });
    expect(list[1]!.id).toMatch(UUID);
    expect(list[1]!.createdAt).toMatch(ISO);
  });

  it('filters by id or externalId; both given match any of them', async () => {
    const { customer, get } = await shop();
    const a = await customer('a');
    const b = await customer('b');
    await customer('c');
    expect(ids((await get(`?id=${a.id}`)).json())).toEqual([a.id]);
    expect(ids((await get('?externalId=b')).json())).toEqual([b.id]);
    expect(ids((await get(`?id=${a.id}&externalId=b&sort=asc`)).json())).toEqual([a.id, b.id]);
    expect((await get(`?id=${randomUUID()}`)).json()).toEqual([]);
    expect((await get('?externalId=nobody')).json()).toEqual([]);
    // externalId is matched exactly.
    expect((await get('?externalId=A')).json()).toEqual([]);
  });

  it('take, skip and sort page through every customer exactly once', async () => {
    const { customer, get } = await shop();
    const made: Customer[] = [];
    for (let i = 0; i < 7; i++) made.push(await customer(`c${i}`));
    const asc: string[] = [];
    for (let skip = 0; skip < 9; skip += 3) asc.push(...ids((await get(`?sort=asc&take=3&skip=${skip}`)).json()));
    expect(asc).toEqual(ids(made));
    expect(ids((await get('?sort=desc&take=2')).json())).toEqual([made[6]!.id, made[5]!.id]);
    expect(ids((await get('?take=5000')).json())).toEqual(ids(made).reverse());
  });

  it('bad list parameters are a 400', async () => {
    const { get } = await shop();
    for (const q of ['?take=0', '?take=5001', '?take=x', '?skip=-1', '?sort=up', '?id=not-a-uuid']) {
      expect400(await get(q), undefined, 'invalid_query');
    }
  });
});

describe('PUT /api/customers', () => {
  it('updates customers found by id or by externalId; answers the records in input order', async () => {
    const { customer, put, get } = await shop();
    const a = await customer('a', { customerEmail: 'a@example.com', customerAvatar: 'https://cdn.example.com/a.png' });
    const b = await customer('b', { customerEmail: 'b@example.com' });
    const res = await put([
      { externalId: 'b', name: 'Bea' },
      { id: a.id, email: null, avatar: 'https://cdn.example.com/a2.png' },
    ]);
    expect(res.statusCode, res.body).toBe(200);
    const [nb, na] = res.json<Customer[]>();
    expect(nb).toEqual({ ...b, name: 'Bea', updatedAt: nb!.updatedAt });
    expect(na).toEqual({ ...a, email: null, avatar: 'https://cdn.example.com/a2.png', updatedAt: na!.updatedAt });
    expect((await get('?sort=asc')).json()).toEqual([na, nb]);
  });

  it('never creates: an unknown id or externalId is a 400 and nothing changes', async () => {
    const { api, customer, put } = await shop();
    const a = await customer('a');
    const before = await api.customers();
    expect400(
      await put([
        { id: a.id, name: 'changed' },
        { id: randomUUID(), name: 'ghost' },
      ]),
    );
    expect400(
      await put([
        { externalId: 'a', name: 'changed' },
        { externalId: 'ghost', name: 'ghost' },
      ]),
    );
    expect400(await put([{ externalId: 'nobody', name: 'New' }]));
    expect(await api.customers()).toEqual(before);
  });

  it('a soft-deleted customer cannot be updated, by id or externalId', async () => {
    const { api, customer, put, del } = await shop();
    const a = await customer('a');
    await customer('b');
    expect((await del([a.id])).statusCode).toBe(200);
    const before = await api.customers();
    expect400(await put([{ id: a.id, name: 'back' }]));
    expect400(await put([{ externalId: 'a', name: 'back' }]));
    expect(await api.customers()).toEqual(before);
  });

  it('rejects bad entries with 400 and changes nothing', async () => {
    const { api, customer, put } = await shop();
    const a = await customer('a');
    const before = await api.customers();
    expect400(await put([{ id: a.id, avatar: 'http://cdn.example.com/a.png' }]), '[0].avatar');
    expect400(
      await put([
        { id: a.id, name: 'ok' },
        { id: a.id, email: 'not-an-email' },
      ]),
      '[1].email',
    );
    expect400(await put([{ id: a.id, name: 'n'.repeat(101) }]), '[0].name');
    expect400(await put([{ id: a.id }]));
    expect400(await put([{ name: 'no id' }]));
    expect400(await put([{ id: 'not-a-uuid', name: 'x' }]), '[0].id');
    expect400(await put([]));
    expect400(await put({ id: a.id, name: 'not an array' }));
    expect(await api.customers()).toEqual(before);
  });
});

describe('DELETE /api/customers', () => {
  it('soft-deletes by id: answers deletedIds, the customer disappears from GET, its events stay', async () => {
    const { api, customer, del, get } = await shop();
    const a = await customer('a');
    const b = await customer('b');
    const res = await del([a.id]);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ deletedIds: [a.id] });
    expect(ids(await api.customers())).toEqual([b.id]);
    expect((await get(`?id=${a.id}`)).json()).toEqual([]);
    expect((await get('?externalId=a')).json()).toEqual([]);
    expect(await api.totals()).toEqual({ leads: 0, sales: 2, saleAmount: 200 });
  });

  it('deleting again, an unknown id or a non-UUID is a 400; one bad id deletes nothing', async () => {
    const { api, customer, del } = await shop();
    const a = await customer('a');
    const b = await customer('b');
    expect((await del([a.id])).statusCode).toBe(200);
    expect400(await del([a.id]));
    expect400(await del([b.id, randomUUID()]));
    expect400(await del([b.id, a.id]));
    expect400(await del(['not-a-uuid']));
    expect400(await del([]));
    expect(ids(await api.customers())).toEqual([b.id]);
  });
});

describe('customers: scopes', () => {
  it('GET needs customersRead; PUT and DELETE need customersWrite', async () => {
    const { api, customer, put, del, get } = await shop();
    const a = await customer('a');
    const { key: readOnly } = await api.ws.newKey(['customersRead']);
    const { key: writeOnly } = await api.ws.newKey(['customersWrite']);
    const denied = (res: LightMyRequestResponse, scope: string) => {
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json()).toMatchObject({ error: { code: 'missing_scopes' }, missingScopes: [scope] });
    };
    denied(await get('', writeOnly), 'customersRead');
    denied(await put([{ id: a.id, name: 'x' }], readOnly), 'customersWrite');
    denied(await del([a.id], readOnly), 'customersWrite');
    expect(await api.customers()).toEqual([a]);
    expect(ids((await get('', readOnly)).json())).toEqual([a.id]);
    expect((await put([{ id: a.id, name: 'Renamed' }], writeOnly)).statusCode).toBe(200);
    expect((await del([a.id], writeOnly)).statusCode).toBe(200);
    expect(await api.customers()).toEqual([]);
  });
});

describe('customers: isolation between workspaces', () => {
  it('another workspace can neither see, update nor delete them; the same externalId is a separate customer there', async () => {
    const a = await shop();
    const b = await shop();
    const mine = await a.customer('shared-id');
    const before = await a.api.customers();
    expect((await b.get('')).json()).toEqual([]);
    expect((await b.get(`?id=${mine.id}`)).json()).toEqual([]);
    expect((await b.get('?externalId=shared-id')).json()).toEqual([]);
    expect400(await b.put([{ id: mine.id, name: 'hijack' }]));
    expect400(await b.put([{ externalId: 'shared-id', name: 'hijack' }]));
    expect400(await b.del([mine.id]));
    expect(await a.api.customers()).toEqual(before);
    const theirs = await b.customer('shared-id');
    expect(theirs.id).not.toBe(mine.id);
    expect(ids(await a.api.customers())).toEqual([mine.id]);
    expect(ids(await b.api.customers())).toEqual([theirs.id]);
    // Deleting B's customer leaves A's alone.
    expect((await b.del([theirs.id])).statusCode).toBe(200);
    expect(await a.api.customers()).toEqual(before);
  });
});
