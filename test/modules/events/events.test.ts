/**
 * GET /api/events over HTTP (an extension of api.md; issue 15 "Events API"): the leads and
 * sales of the workspace as one list — the record, each filter (type, id, linkId, customerId,
 * customerExternalId, startDate/endDate read and clamped as in /api/analytics), the order
 * (createdAt, then leads before sales, then insertion order; desc is asc reversed), paging
 * across both tables without gaps or repeats (fast-check walks), ids of another workspace
 * (an empty list, as /api/analytics does with a foreign linkId), the analyticsRead scope, and
 * 400s naming the parameter.
 *
 * Events come from the tracking endpoints with click ids from real redirects. Where a test
 * needs known instants or ties, it restamps created_at in the database, since the database
 * stamps events itself.
 */
import fc from 'fast-check';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../../src/core/scopes.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { conversionClient, expect400, type LeadEvent, type Link, type SaleEvent } from '../conversions/helpers.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t?.close();
});

interface Event {
  type: 'lead' | 'sale';
  id: string;
  eventName: string;
  linkId: string;
  clickId: string;
  customerId: string;
  customerExternalId: string;
  leadId: string | null;
  amount: number | null;
  refundedAmount: number | null;
  source: string;
  currency: string | null;
  metadata: Record<string, unknown> | null;
  createdAt: string;
  shortUrl: string | null;
  linkTitle: string | null;
  customerName: string | null;
  customerEmail: string | null;
}

/** An expected event and the order in which it was tracked (insertion order within its table). */
interface Tracked {
  event: Event;
  n: number;
}

const asEvent = (e: LeadEvent | SaleEvent, type: 'lead' | 'sale', link: Link): Event => ({
  type,
  id: e.id,
  eventName: e.eventName,
  linkId: e.linkId,
  clickId: e.clickId,
  customerId: e.customer.id,
  customerExternalId: e.customer.externalId,
  leadId: type === 'sale' ? (e as SaleEvent).leadId : null,
  amount: type === 'sale' ? (e as SaleEvent).amount : null,
  refundedAmount: type === 'sale' ? 0 : null,
  source: 'server',
  currency: type === 'sale' ? (e as SaleEvent).currency : null,
  metadata: e.metadata,
  createdAt: e.createdAt,
  shortUrl: link.shortUrl,
  linkTitle: (link as Link & { title?: string | null }).title ?? null,
  customerName: e.customer.name,
  customerEmail: e.customer.email,
});

/** The documented order: createdAt, leads before sales at one instant, then insertion order; desc reversed. */
function ordered(events: Tracked[], sort: 'asc' | 'desc' = 'desc'): Event[] {
  const asc = [...events].sort(
    (a, b) => Date.parse(a.event.createdAt) - Date.parse(b.event.createdAt) || Number(a.event.type === 'sale') - Number(b.event.type === 'sale') || a.n - b.n,
  );
  return (sort === 'asc' ? asc : asc.reverse()).map((x) => x.event);
}

/** A fresh workspace that tracks through HTTP and reads GET /api/events. */
async function eventClient() {
  const api = await conversionClient(t);
  const tracked: Tracked[] = [];
  const links = new Map<string, Link>();
  const client = {
    ...api,
    tracked,
    async link(): Promise<Link> {
      const link = await api.link();
      links.set(link.id, link);
      return link;
    },
    get: (query = '', key?: string) => api.send('GET', `/api/events${query}`, undefined, key),
    async list(query = ''): Promise<Event[]> {
      const res = await client.get(query);
      expect(res.statusCode, res.body).toBe(200);
      return res.json<Event[]>();
    },
    async trackLead(clickId: string, externalId: string, extra: Record<string, unknown> = {}): Promise<Event> {
      const lead = await api.okLead({ clickId, eventName: 'Sign up', customerExternalId: externalId, customerName: `Name of ${externalId}`, ...extra });
      const event = asEvent(lead, 'lead', links.get(lead.linkId)!);
      tracked.push({ event, n: tracked.length });
      return event;
    },
    async trackSale(externalId: string, extra: Record<string, unknown> = {}): Promise<Event> {
      const sale = await api.okSale({ customerExternalId: externalId, customerName: `Name of ${externalId}`, amount: 100, ...extra });
      const event = asEvent(sale, 'sale', links.get(sale.linkId)!);
      tracked.push({ event, n: tracked.length });
      return event;
    },
    /** Restamps events (and their expected records) at `iso`. */
    async stamp(events: Event[], iso: string): Promise<void> {
      for (const e of events) {
        const table = sql.raw(e.type === 'lead' ? 'lead_events' : 'sale_events');
        await t.database.db.execute(sql`UPDATE ${table} SET created_at = ${iso}::timestamptz WHERE id = ${e.id}::uuid`);
        e.createdAt = new Date(iso).toISOString();
      }
    },
  };
  return client;
}

type Client = Awaited<ReturnType<typeof eventClient>>;

/**
 * Two links, three clicks, two customers; three leads and three sales attributed each way the
 * tracking endpoints allow (clickId, most recent lead, leadEventName).
 */
async function shop() {
  const c = await eventClient();
  const [l1, l2] = [await c.link(), await c.link()] as [Link, Link];
  const [k1, k2, k3] = [await c.click(l1), await c.click(l2), await c.click(l1)];
  const lead1 = await c.trackLead(k1, 'user-1', { metadata: { plan: 'pro', seats: 3 } });
  const lead2 = await c.trackLead(k2, 'user-2');
  const lead3 = await c.trackLead(k3, 'user-1', { eventName: 'Demo' });
  const sale1 = await c.trackSale('user-1', { clickId: k1, amount: 1_000_000_000_000, currency: 'eur', metadata: { order: 'A-1' } });
  const sale2 = await c.trackSale('user-2');
  const sale3 = await c.trackSale('user-1', { leadEventName: 'Sign up', eventName: 'Renewal' });
  return { c, l1, l2, lead1, lead2, lead3, sale1, sale2, sale3 };
}

describe('GET /api/events: the record', () => {
  it('lists every lead and sale of the workspace with the documented fields, sale-only fields null on leads', async () => {
    const { c, l1, l2, lead1, lead2, sale1, sale2, sale3 } = await shop();
    const list = await c.list();
    expect(list).toEqual(ordered(c.tracked));
    for (const e of list) {
      expect(Object.keys(e).sort()).toEqual([
        'amount',
        'clickId',
        'createdAt',
        'currency',
        'customerEmail',
        'customerExternalId',
        'customerId',
        'customerName',
        'eventName',
        'id',
        'leadId',
        'linkId',
        'linkTitle',
        'metadata',
        'refundedAmount',
        'shortUrl',
        'source',
        'type',
      ]);
    }
    const byId = new Map(list.map((e) => [e.id, e]));
    expect(byId.get(lead1.id)).toMatchObject({ type: 'lead', linkId: l1.id, leadId: null, amount: null, currency: null, metadata: { plan: 'pro', seats: 3 } });
    expect(byId.get(lead2.id)).toMatchObject({
      type: 'lead',
      linkId: l2.id,
      customerExternalId: 'user-2',
      metadata: null,
      shortUrl: l2.shortUrl,
      customerName: 'Name of user-2',
    });
    expect(byId.get(lead1.id)!.shortUrl).toBe(l1.shortUrl);
    // The largest sale the API takes comes back exact, with its currency and the click it was attributed to.
    expect(byId.get(sale1.id)).toMatchObject({ type: 'sale', amount: 1_000_000_000_000, currency: 'eur', clickId: lead1.clickId, metadata: { order: 'A-1' } });
    expect(byId.get(sale2.id)).toMatchObject({ type: 'sale', leadId: lead2.id, linkId: l2.id, amount: 100, currency: 'usd', eventName: 'Purchase' });
    expect(byId.get(sale3.id)).toMatchObject({ type: 'sale', leadId: lead1.id, eventName: 'Renewal', customerId: lead1.customerId });
  });

  it('is in the OpenAPI document as an extension with the Event schema', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json<{ paths: Record<string, { get?: { description?: string } }>; components: { schemas: Record<string, unknown> } }>();
    expect(doc.paths['/api/events']?.get?.description).toMatch(/Extension/);
    expect(doc.paths['/api/events']?.get?.description).toContain('analyticsRead');
    expect(doc.components.schemas.Event).toBeDefined();
  });
});

describe('GET /api/events: filters', () => {
  it('filters by type, id, linkId, customerId and customerExternalId; filters combine', async () => {
    const { c, l1, l2, lead1, lead2, sale2 } = await shop();
    const all = ordered(c.tracked);
    const cases: [string, (e: Event) => boolean][] = [
      ['?type=lead', (e) => e.type === 'lead'],
      ['?type=sale', (e) => e.type === 'sale'],
      [`?id=${sale2.id}`, (e) => e.id === sale2.id],
      [`?id=${sale2.id.toUpperCase()}`, (e) => e.id === sale2.id],
      [`?id=${lead1.id}&type=sale`, () => false],
      [`?linkId=${l1.id}`, (e) => e.linkId === l1.id],
      [`?linkId=${l2.id}&type=sale`, (e) => e.linkId === l2.id && e.type === 'sale'],
      [`?customerId=${lead1.customerId}`, (e) => e.customerId === lead1.customerId],
      ['?customerExternalId=user-2', (e) => e.customerExternalId === 'user-2'],
      ['?customerExternalId=user-3', () => false],
      [`?customerId=${lead1.customerId}&customerExternalId=user-1`, (e) => e.customerId === lead1.customerId],
      [`?customerId=${lead1.customerId}&customerExternalId=user-2`, () => false],
      [`?customerId=${lead2.customerId}&linkId=${l1.id}`, () => false],
    ];
    for (const [query, keep] of cases) {
      const expected = all.filter(keep);
      expect(await c.list(query), query).toEqual(expected);
    }
    // Not vacuous: every case above that keeps something keeps less than all.
    expect(all).toHaveLength(6);
    expect((await c.list('?type=lead')).length).toBe(3);
  });

  it("keeps a deleted customer's events: customerExternalId finds them and the new customer's", async () => {
    const { c, l1, lead1 } = await shop();
    const del = await c.send('DELETE', '/api/customers', [lead1.customerId]);
    expect(del.statusCode, del.body).toBe(200);
    const again = await c.trackLead(await c.click(l1), 'user-1');
    expect(again.customerId).not.toBe(lead1.customerId);
    const all = ordered(c.tracked);
    expect(await c.list('?customerExternalId=user-1')).toEqual(all.filter((e) => e.customerExternalId === 'user-1'));
    expect((await c.list('?customerExternalId=user-1')).map((e) => e.customerId)).toContain(lead1.customerId);
    expect(await c.list(`?customerId=${again.customerId}`)).toEqual([again]);
    expect(await c.list(`?customerId=${lead1.customerId}`)).toEqual(all.filter((e) => e.customerId === lead1.customerId));
  });
});

describe('GET /api/events: dates', () => {
  /** Six events at known instants around the 1 and 2 March 2024 boundaries. */
  const INSTANTS = [
    '2024-03-01T00:00:00.000Z',
    '2024-03-01T23:59:59.999Z',
    '2024-03-02T00:00:00.000Z',
    '2024-03-02T12:00:00.000Z',
    '2024-03-31T10:00:00.000Z',
    '2024-04-01T00:00:00.000Z',
  ];

  let c: Client;
  let stamped: Event[];

  beforeAll(async () => {
    const s = await shop();
    c = s.c;
    // Leads and sales alternate across the instants, so each bound cuts through both tables.
    stamped = [s.lead1, s.sale1, s.lead2, s.sale2, s.lead3, s.sale3];
    for (const [i, e] of stamped.entries()) await c.stamp([e], INSTANTS[i]!);
  });

  it('reads startDate and endDate as /api/analytics does: inclusive, whole UTC days, offsets, clamped to years 0001–9999', async () => {
    const cases: [string, number[]][] = [
      ['', [0, 1, 2, 3, 4, 5]],
      ['?startDate=2024-03-02', [2, 3, 4, 5]],
      ['?endDate=2024-03-01', [0, 1]],
      ['?startDate=2024-03-02&endDate=2024-03-02', [2, 3]],
      ['?startDate=2024-03-01T23:59:59.999Z&endDate=2024-03-02T12:00:00Z', [1, 2, 3]],
      ['?startDate=2024-03-02T05:00:00%2B05:00', [2, 3, 4, 5]],
      ['?endDate=2024-03-01T19:59:59.999-04:00', [0, 1]],
      ['?endDate=2024-03-01T23:59:59.9989999Z', [0]],
      ['?startDate=2024-03-31&endDate=2024-03-31', [4]],
      ['?startDate=0000-01-01&endDate=9999-12-31', [0, 1, 2, 3, 4, 5]],
      ['?endDate=9999-12-31T23:59:59-14:00', [0, 1, 2, 3, 4, 5]],
      ['?startDate=9999-12-31T23:59:59.999-00:01', []],
      ['?endDate=0001-01-01T00:00:00%2B00:01', []],
      ['?startDate=2024-03-01&endDate=2024-03-01&type=sale', [1]],
    ];
    for (const [query, indexes] of cases) {
      const expected = ordered(c.tracked).filter((e) => indexes.some((i) => stamped[i]!.id === e.id));
      expect(expected, query).toHaveLength(indexes.length);
      expect(await c.list(query), query).toEqual(expected);
    }
  });

  it('answers 400 naming the bound for an impossible date or a reversed period', async () => {
    for (const [query, field] of [
      ['?startDate=2024-02-30', 'startDate'],
      ['?startDate=yesterday', 'startDate'],
      ['?endDate=2024-03-01T24:00:00Z', 'endDate'],
      ['?endDate=2024-03-01T10:00:00%2B24:00', 'endDate'],
      ['?endDate=2024-03-01T10:00:00', 'endDate'],
      ['?startDate=2024-03-02&endDate=2024-03-01', 'startDate'],
      ['?startDate=2024-03-01T00:00:01Z&endDate=2024-03-01T00:00:00Z', 'startDate'],
    ] as const) {
      expect400(await c.get(query), field, 'invalid_query');
    }
  });
});

describe('GET /api/events: order and paging', () => {
  let c: Client;
  let links: Link[];

  beforeAll(async () => {
    c = await eventClient();
    links = [await c.link(), await c.link()];
    const clicks = [await c.click(links[0]!), await c.click(links[1]!), await c.click(links[0]!)];
    // Leads and sales interleaved in time, then restamped onto three instants: ties within each
    // table and across the two, which only the documented tiebreak orders.
    for (let i = 0; i < 9; i++) {
      await c.trackLead(clicks[i % 3]!, `user-${i % 2}`);
      if (i < 8) await c.trackSale(`user-${i % 2}`, { clickId: clicks[(i + 1) % 3]!, amount: i });
    }
    const instants = ['2024-05-01T10:00:00.000Z', '2024-05-01T10:00:00.001Z', '2024-05-02T00:00:00.000Z'];
    for (const { event, n } of c.tracked) await c.stamp([event], instants[n % 3]!);
  });

  it('orders by createdAt, then leads before sales, then insertion order; desc is asc reversed', async () => {
    const asc = await c.list('?sort=asc&take=5000');
    const desc = await c.list('?take=5000');
    expect(asc).toHaveLength(17);
    expect(asc).toEqual(ordered(c.tracked, 'asc'));
    expect(desc).toEqual([...asc].reverse());
    // The ties are real: several events share each instant, of both kinds.
    const first = asc.filter((e) => e.createdAt === asc[0]!.createdAt);
    expect(new Set(first.map((e) => e.type))).toEqual(new Set(['lead', 'sale']));
    expect(await c.list('?take=1')).toEqual([desc[0]]);
  });

  it('defaults to take 50 and answers [] beyond the end, even at the largest skip', async () => {
    expect(await c.list()).toHaveLength(17);
    expect(await c.list('?skip=17')).toEqual([]);
    expect(await c.list(`?skip=${Number.MAX_SAFE_INTEGER}&take=5000`)).toEqual([]);
  });

  it('random take/skip walks visit each event exactly once, and any window is the same slice of the whole', async () => {
    const filters: [string, (e: Event) => boolean][] = [
      ['', () => true],
      ['&type=lead', (e) => e.type === 'lead'],
      ['&type=sale', (e) => e.type === 'sale'],
      [`&linkId=${links[0]!.id}`, (e) => e.linkId === links[0]!.id],
      ['&customerExternalId=user-1', (e) => e.customerExternalId === 'user-1'],
      ['&startDate=2024-05-01T10:00:00.001Z', (e) => e.createdAt >= '2024-05-01T10:00:00.001Z'],
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<'asc' | 'desc'>('asc', 'desc'),
        fc.constantFrom(...filters),
        fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 1, max: 20 }),
        async (sort, [filter, keep], takes, skip, take) => {
          const whole = ordered(c.tracked, sort).filter(keep);
          expect(whole.length).toBeGreaterThan(0);
          const seen: Event[] = [];
          for (let offset = 0, i = 0; ; i++) {
            const size = takes[i % takes.length]!;
            const page = await c.list(`?sort=${sort}&skip=${offset}&take=${size}${filter}`);
            seen.push(...page);
            if (page.length < size) break;
            offset += size;
          }
          expect(seen).toEqual(whole);
          expect(new Set(seen.map((e) => e.id)).size).toBe(whole.length);
          expect(await c.list(`?sort=${sort}&skip=${skip}&take=${take}${filter}`)).toEqual(whole.slice(skip, skip + take));
        },
      ),
      { numRuns: 30 },
    );
  });
});

describe('GET /api/events: other workspaces', () => {
  it("never lists another workspace's events: its link, customer or event id matches nothing", async () => {
    const a = await shop();
    const b = await shop();
    const aAll = await a.c.list('?take=5000');
    const bAll = await b.c.list('?take=5000');
    expect(aAll).toEqual(ordered(a.c.tracked));
    expect(bAll).toEqual(ordered(b.c.tracked));
    for (const query of [`?linkId=${b.l1.id}`, `?customerId=${b.lead1.customerId}`, `?id=${b.sale1.id}`, `?id=${b.lead1.id}`, `?linkId=${b.l2.id}&type=sale`]) {
      expect(await a.c.list(query), query).toEqual([]);
    }
    // Both workspaces have a user-1: each sees only its own.
    expect(await a.c.list('?customerExternalId=user-1')).toEqual(aAll.filter((e) => e.customerExternalId === 'user-1'));
    expect((await a.c.list('?customerExternalId=user-1')).length).toBe(4);
    const bIds = new Set(bAll.map((e) => e.id));
    expect(aAll.filter((e) => bIds.has(e.id))).toEqual([]);
  });
});

describe('GET /api/events: scope and parameters', () => {
  it('needs analyticsRead: without it 403 with missingScopes, with only it 200', async () => {
    const { c } = await shop();
    const without = await c.ws.newKey(SCOPES.filter((s) => s !== 'analyticsRead'));
    const res = await c.get('', without.key);
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json()).toMatchObject({ missingScopes: ['analyticsRead'], error: { code: 'missing_scopes' } });
    const only = await c.ws.newKey(['analyticsRead']);
    const ok = await c.get('', only.key);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toEqual(ordered(c.tracked));
    const none = await c.get('', 'lt_not_a_key');
    expect(none.statusCode).toBe(401);
  });

  it('answers 400 naming the parameter for a bad value', async () => {
    const { c } = await shop();
    const cases: [string, string][] = [
      ['?type=click', 'type'],
      ['?type=', 'type'],
      ['?id=abc', 'id'],
      ['?linkId=123', 'linkId'],
      ['?customerId=nope', 'customerId'],
      ['?customerExternalId=', 'customerExternalId'],
      [`?customerExternalId=${'x'.repeat(101)}`, 'customerExternalId'],
      ['?take=0', 'take'],
      ['?take=5001', 'take'],
      ['?take=1.5', 'take'],
      ['?skip=-1', 'skip'],
      ['?skip=x', 'skip'],
      ['?sort=up', 'sort'],
    ];
    for (const [query, field] of cases) expect400(await c.get(query), field, 'invalid_query');
    // The longest valid customerExternalId is accepted.
    expect(await c.list(`?customerExternalId=${'x'.repeat(100)}`)).toEqual([]);
  });
});
