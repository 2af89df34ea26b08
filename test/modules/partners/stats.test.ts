/**
 * GET /api/partners?withStats=true (operations.md §18 "Partners in a program") over HTTP: each
 * partner's clicks, leads, sales and revenue per currency are their links' (visits through the
 * redirect, /api/track/lead and /api/track/sale), and their earnings per currency the
 * commissions in each state: pending (held back), held (a fraud rule), payable (earned under
 * holdingDays 0) and paid (by a completed payout). The range filters figures and earnings alike;
 * earnings are left out without programsRead; withStats without analyticsRead is a 403; another
 * workspace's links and commissions are never counted. Runs on PGlite, and on PostgreSQL + Redis
 * with DATABASE_URL.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sealer } from '../../../src/core/sealed.js';
import { SECRET, startTestApp, type TestApp } from '../../helpers/app.js';
import { workspaceWithCollection } from '../../helpers/client.js';
import { DESKTOP, IP_DE, IP_GB, IP_US } from '../../helpers/visitors.js';
import { expect400, settle } from '../links/stats.helpers.js';

type Money = Record<string, number>;
interface Earnings {
  pending: number;
  held: number;
  payable: number;
  paid: number;
}
interface Stats {
  clicks: number;
  leads: number;
  sales: number;
  revenue: Money;
  earnings?: Record<string, Earnings>;
}
interface Partner {
  id: string;
  name: string;
  stats?: Stats;
}

let pinned: number | undefined;
const clock = () => new Date(pinned ?? Date.now());
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ clock });
});
afterAll(() => t.close());

const sealer = new Sealer(SECRET);

/** A workspace with a program (10 % of each sale, 5.00 per lead), and a client for it. */
async function programClient() {
  const { ws, send, collectionId } = await workspaceWithCollection(t);
  const ok = async (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: unknown, status = 200) => {
    const res = await send(method, url, body);
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(status);
    return res.json();
  };
  const program = { name: 'Friends', slug: `f-${randomUUID().slice(0, 8)}`, landingUrl: 'https://shop.example/', currency: 'usd', minPayout: {} };
  await ok('PUT', '/api/program', { ...program, holdingDays: 30 });
  const [group] = await ok('GET', '/api/partner-groups');
  await ok('PUT', '/api/partner-groups', [
    {
      id: group.id,
      rewards: [
        { event: 'lead', type: 'flat', amount: 500 },
        { event: 'sale', type: 'percentage', amount: 1000 },
      ],
    },
  ]);
  return {
    ws,
    send,
    ok,
    holdingDays: (days: number) => ok('PUT', '/api/program', { ...program, holdingDays: days }),
    async partner(name: string): Promise<{ id: string; email: string; linkPath: string }> {
      const email = `${name.toLowerCase()}-${randomUUID().slice(0, 6)}@partner.example`;
      const [p] = await ok('POST', '/api/partners', [{ name, email }], 201);
      const [link] = await ok('POST', '/api/links', [{ url: 'https://shop.example/spring', collectionId, partnerId: p.id }], 201);
      return { id: p.id, email, linkPath: new URL(link.shortUrl).pathname };
    },
    async click(path: string, ip = IP_GB): Promise<string> {
      const res = await t.inject({ method: 'GET', url: path, remoteAddress: ip, headers: { 'user-agent': DESKTOP } });
      expect(res.statusCode, res.body).toBe(302);
      return new URL(res.headers.location as string).searchParams.get('ltid')!;
    },
    lead: (clickId: string, customer: string, extra: Record<string, unknown> = {}) =>
      ok('POST', '/api/track/lead', { clickId, eventName: 'Sign up', customerExternalId: customer, customerName: 'Cam Buyer', ...extra }),
    sale: (customer: string, amount: number, currency: string, extra: Record<string, unknown> = {}) =>
      ok('POST', '/api/track/sale', { customerExternalId: customer, customerName: 'Cam Buyer', amount, currency, ...extra }),
    list: async (query: string, key = ws.key): Promise<Partner[]> => {
      const res = await send('GET', `/api/partners?sort=asc&${query}`, undefined, key);
      expect(res.statusCode, res.body).toBe(200);
      return res.json<Partner[]>();
    },
  };
}

/** Payout details as the partner portal sets them (sealed with SECRET, masked beside), as the payouts tests do. */
async function setPayoutDetails(partnerId: string) {
  const d = { method: 'paypal', email: 'ana@pay.example' };
  await t.database.db.execute(
    sql`UPDATE partners SET payout_method = 'paypal', payout_details_sealed = ${sealer.seal('payout-details', JSON.stringify(d))},
        payout_destination_masked = 'a•••@pay.example' WHERE id = ${partnerId}::uuid`,
  );
}

const statsOf = (partners: Partner[]) => Object.fromEntries(partners.map((p) => [p.id, p.stats]));
const none: Earnings = { pending: 0, held: 0, payable: 0, paid: 0 };

describe('GET /api/partners?withStats', () => {
  it("each partner's links' figures and their earnings by state, over the range asked for", async () => {
    // The program and partners exist from February, and a click on Ana's link in March (events
    // and commissions take the database's time: the rest happens now, in two stretches).
    pinned = Date.parse('2026-02-01T10:00:00Z');
    const api = await programClient();
    const ana = await api.partner('Ana');
    const ben = await api.partner('Ben');
    pinned = Date.parse('2026-03-10T12:00:00Z');
    await api.click(ana.linkPath);
    pinned = undefined;

    // First, under holdingDays 0: a lead (5.00 USD) and a sale (10 % of 100.00 USD), payable at
    // once, then paid by a payout; a sale of 30.00 EUR: 3.00 EUR payable (no payout in euros).
    await api.holdingDays(0);
    const first = new Date().toISOString();
    const c1 = await api.click(ana.linkPath, IP_GB);
    const c2 = await api.click(ana.linkPath, IP_DE);
    await api.lead(c1, 'cust-1');
    await api.sale('cust-1', 10_000, 'usd', { clickId: c1 });
    await setPayoutDetails(ana.id);
    const payout = await api.ok('POST', '/api/payouts', { currency: 'usd' }, 201);
    expect(payout.items.map((i: { partnerId: string; amount: number }) => [i.partnerId, i.amount])).toEqual([[ana.id, 1500]]);
    await api.ok('POST', `/api/payouts/${payout.id}/complete`, {});
    await api.sale('cust-2', 3000, 'eur', { clickId: c2 });
    await settle(t);
    const then = new Date().toISOString();
    // Then, under holdingDays 30: a sale of 200.00 USD earns 20.00, pending; a lead by Ana's own address is held (selfReferral).
    await api.holdingDays(30);
    const c3 = await api.click(ana.linkPath, IP_US);
    await api.sale('cust-1', 20_000, 'usd');
    await api.lead(c3, 'cust-3', { customerEmail: ana.email });
    await settle(t);
    const held = await api.ok('GET', `/api/commissions?partnerId=${ana.id}&status=held`);
    expect(held.map((c: { earnings: number; holdReasons: string[] }) => [c.earnings, c.holdReasons])).toEqual([[500, ['selfReferral']]]);

    const nothing: Stats = { clicks: 0, leads: 0, sales: 0, revenue: {}, earnings: {} };
    const firstPart: Stats = {
      clicks: 2,
      leads: 1,
      sales: 2,
      revenue: { eur: 3000, usd: 10_000 },
      earnings: { eur: { ...none, payable: 300 }, usd: { ...none, paid: 1500 } },
    };
    const secondPart: Stats = { clicks: 1, leads: 1, sales: 1, revenue: { usd: 20_000 }, earnings: { usd: { ...none, pending: 2000, held: 500 } } };
    const recent: Stats = {
      clicks: 3,
      leads: 2,
      sales: 3,
      revenue: { eur: 3000, usd: 30_000 },
      earnings: { eur: { ...none, payable: 300 }, usd: { pending: 2000, held: 500, payable: 0, paid: 1500 } },
    };
    // The default range (the last 30 days): all that happened now.
    expect(statsOf(await api.list('withStats=true'))).toEqual({ [ana.id]: recent, [ben.id]: nothing });
    // Each stretch alone (date-times, inclusive), figures and earnings alike.
    expect(statsOf(await api.list(`withStats=true&startDate=${first}&endDate=${then}`))).toEqual({ [ana.id]: firstPart, [ben.id]: nothing });
    expect(statsOf(await api.list(`withStats=true&startDate=${then}`))).toEqual({ [ana.id]: secondPart, [ben.id]: nothing });
    // March alone, in whole days and as date-times: the click.
    const march: Stats = { ...nothing, clicks: 1 };
    expect(statsOf(await api.list('withStats=true&startDate=2026-03-01&endDate=2026-03-31'))).toEqual({ [ana.id]: march, [ben.id]: nothing });
    expect((await api.list('withStats=true&startDate=2026-03-10T11:59:00Z&endDate=2026-03-10T12:01:00Z'))[0]!.stats).toEqual(march);
    expect((await api.list('withStats=true&startDate=2026-03-10T12:00:01Z&endDate=2026-03-10T13:00:00Z'))[0]!.stats).toEqual(nothing);
    // From March to tomorrow: everything.
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    expect((await api.list(`withStats=true&startDate=2026-03-01&endDate=${tomorrow}`))[0]!.stats).toEqual({ ...recent, clicks: 4 });
    // A range before anything happened: zeros and empty maps. Without withStats: no stats.
    expect(statsOf(await api.list('withStats=true&startDate=2020-01-01&endDate=2020-01-31'))).toEqual({ [ana.id]: nothing, [ben.id]: nothing });
    expect((await api.list('')).map((p) => p.stats)).toEqual([undefined, undefined]);
    // The page alone: take and skip.
    expect((await api.list('withStats=true&take=1&skip=1')).map((p) => [p.id, p.stats])).toEqual([[ben.id, nothing]]);

    // The same figures as the partner's links' own stats (the link clicked, and the default link approval made, untouched).
    const links = await api.send('GET', `/api/links?partnerId=${ana.id}&withStats=true&sort=desc`);
    const linkStats = links.json<{ stats: Stats }[]>().map((l) => l.stats);
    expect(linkStats.map((s) => [s.clicks, s.leads, s.sales, s.revenue])).toEqual([
      [recent.clicks, recent.leads, recent.sales, recent.revenue],
      [0, 0, 0, {}],
    ]);

    // Earnings need programsRead: without it they are left out, the figures stay.
    const { key } = await api.ws.newKey(['partnersRead', 'analyticsRead']);
    const { earnings: _e, ...figures } = recent;
    expect(statsOf(await api.list('withStats=true', key))).toEqual({ [ana.id]: figures, [ben.id]: { clicks: 0, leads: 0, sales: 0, revenue: {} } });
    expect((await api.list('withStats=true', key)).every((p) => !('earnings' in p.stats!))).toBe(true);

    // Another workspace's link and commissions, even pointed at Ana's id, are never counted.
    const other = await programClient();
    const cy = await other.partner('Cy');
    await other.sale('o-1', 90_000, 'usd', { clickId: await other.click(cy.linkPath) });
    await other.ok('POST', '/api/commissions', [{ partnerId: cy.id, earnings: 7777, currency: 'usd', description: 'Bonus' }], 201);
    await settle(t);
    const before = (await other.list('withStats=true'))[0]!;
    expect([before.id, before.stats]).toEqual([
      cy.id,
      { clicks: 1, leads: 0, sales: 1, revenue: { usd: 90_000 }, earnings: { usd: { ...none, pending: 9000, payable: 7777 } } },
    ]);
    await t.database.db.execute(sql`UPDATE links SET partner_id = ${ana.id}::uuid WHERE workspace_id = ${other.ws.id}::uuid`);
    await t.database.db.execute(sql`UPDATE commissions SET partner_id = ${ana.id}::uuid WHERE workspace_id = ${other.ws.id}::uuid`);
    expect(statsOf(await api.list('withStats=true'))).toEqual({ [ana.id]: recent, [ben.id]: nothing });
  });

  it('withStats needs analyticsRead besides partnersRead (403 naming it); the range is checked as links’ (400)', async () => {
    const api = await programClient();
    await api.partner('Ana');
    const { key } = await api.ws.newKey(['partnersRead', 'programsRead']);
    const res = await api.send('GET', '/api/partners?withStats=true', undefined, key);
    expect(res.statusCode, res.body).toBe(403);
    const body = res.json<{ error: { code: string; en: string; ar: string }; missingScopes: string[] }>();
    expect([body.error.code, body.missingScopes]).toEqual(['missing_scopes', ['analyticsRead']]);
    expect(body.error.ar).toMatch(/[\u0600-\u06FF]/);
    // Without withStats the key lists; without partnersRead it is the list's own 403.
    expect((await api.send('GET', '/api/partners', undefined, key)).statusCode).toBe(200);
    // HEAD reads as GET: the same 403, and 200 with both scopes.
    const head = (k: string) => t.inject({ method: 'HEAD', url: '/api/partners?withStats=true', headers: { authorization: `Bearer ${k}` } });
    expect((await head(key)).statusCode).toBe(403);
    expect((await head(api.ws.key)).statusCode).toBe(200);
    const analyticsOnly = await api.ws.newKey(['analyticsRead']);
    const denied = await api.send('GET', '/api/partners?withStats=true', undefined, analyticsOnly.key);
    expect([denied.statusCode, denied.json().missingScopes]).toEqual([403, ['partnersRead']]);

    expect400(await api.send('GET', '/api/partners?withStats=true&startDate=2026-03-02&endDate=2026-03-01'), 'startDate', 'start_after_end');
    expect400(await api.send('GET', '/api/partners?withStats=true&startDate=2026-03-01&timezone=Mars/Olympus'), 'timezone', 'time_zone');
    expect((await api.send('GET', '/api/partners?withStats=maybe')).statusCode).toBe(400);
  });
});
