/**
 * Click rewards (operations.md §18 "Commissions" → "Click rewards"), through HTTP and the periodic
 * maintenance: visitors click partners' links on a UTC day D; an hour into D+1 the job writes,
 * per approved partner, one `click` commission for the day's distinct visitors (several clicks
 * of one visitor, on one link or several, count once; bots, HEAD requests and prefetches not at
 * all), capped by maxPerDay, each visitor by the first click reward whose conditions (the click's
 * country) hold; pending until createdAt + holdingDays; commission.created emitted; written once
 * however often the job runs, and not before 01:00 of D+1. A database of its own: the job pays
 * every workspace's clicks, and maintenance with a clock a day ahead forgets other files' rows.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { workspaceWithCollection } from '../../helpers/client.js';
import { dropFreshDatabases, freshDatabase } from '../../helpers/fresh-database.js';
import { DESKTOP, IP_DE, IP_GB, IP_US } from '../../helpers/visitors.js';
import { endpoint, eventsOf } from '../webhooks/emit-helpers.js';
import { DAY_MS, mutableClock } from '../people/helpers.js';

const HOUR_MS = 3_600_000;
// A minute ahead of the database, so that every program below exists before its clicks.
const START = Date.now() + 60_000;
const clock = mutableClock(new Date(START));
const D = Math.floor(START / DAY_MS) * DAY_MS;
const clickDay = new Date(D).toISOString().slice(0, 10);

let t: TestApp;

interface Commission {
  id: string;
  partnerId: string;
  type: string;
  linkId: string | null;
  customerId: string | null;
  eventId: string | null;
  currency: string;
  earnings: number;
  status: string;
  createdAt: string;
  payableAt: string;
}

/** A workspace whose program pays by `rewards` (its default group), subscribed to commission.created. */
async function programWith(rewards: Record<string, unknown>[], holdingDays = 30) {
  const { ws, send, collectionId } = await workspaceWithCollection(t);
  const ok = async (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown) => {
    const res = await send(method, url, body);
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
    return res.json();
  };
  await endpoint(t, ws.id, ['commission.created']);
  await ok('PUT', '/api/program', {
    name: 'Friends',
    slug: `c-${randomUUID().slice(0, 8)}`,
    landingUrl: 'https://shop.example/',
    currency: 'eur',
    holdingDays,
  });
  const [group] = await ok('GET', '/api/partner-groups');
  await ok('PUT', '/api/partner-groups', [{ id: group.id, rewards }]);
  return {
    ws,
    ok,
    async partner(name: string): Promise<{ id: string; link: () => Promise<string> }> {
      const [p] = await ok('POST', '/api/partners', [{ name }]);
      const link = async () => {
        const [made] = await ok('POST', '/api/links', [{ url: 'https://shop.example/spring', collectionId, partnerId: p.id }]);
        return new URL(made.shortUrl).pathname;
      };
      return { id: p.id, link };
    },
    async plainLink(): Promise<string> {
      const [made] = await ok('POST', '/api/links', [{ url: 'https://shop.example/plain', collectionId }]);
      return new URL(made.shortUrl).pathname;
    },
    clickCommissions: (): Promise<Commission[]> => ok('GET', '/api/commissions?type=click&sort=asc'),
  };
}

/** A visit of `path`: visitor `n` (its own User-Agent) from `ip`; a GET unless told. */
async function visit(path: string, n: number, o: { ip?: string; method?: 'GET' | 'HEAD'; agent?: string; headers?: Record<string, string> } = {}) {
  const res = await t.inject({
    method: o.method ?? 'GET',
    url: path,
    remoteAddress: o.ip ?? IP_GB,
    headers: { 'user-agent': o.agent ?? `${DESKTOP} v${n}`, ...o.headers },
  });
  expect(res.statusCode, res.body).toBe(302);
}

const byPartner = (list: Commission[]) => Object.fromEntries(list.map((c) => [c.partnerId, c.earnings]));

let plain: Awaited<ReturnType<typeof programWith>>;
let ana: { id: string };
let bo: { id: string };
let cy: { id: string };
let capped: Awaited<ReturnType<typeof programWith>>;
let conditioned: Awaited<ReturnType<typeof programWith>>;
let late: { clickCommissions: () => Promise<Commission[]> };
let catchUp: Awaited<ReturnType<typeof programWith>>;

/** Visits made at `at` (the clock then back where it was). */
async function at(ms: number, visits: () => Promise<void>) {
  clock.set(new Date(ms));
  await visits();
  clock.set(new Date(START));
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

beforeAll(async () => {
  t = await startTestApp({ database: await freshDatabase(), clock: clock.now });

  // 25 a visitor: Ana has two links; Bo and Cy one each; Cy is banned after the day's clicks.
  plain = await programWith([{ event: 'click', type: 'flat', amount: 25 }]);
  const a = await plain.partner('Ana');
  const [a1, a2] = [await a.link(), await a.link()];
  const b = await plain.partner('Bo');
  const c = await plain.partner('Cy');
  [ana, bo, cy] = [a, b, c];
  const [b1, c1, none] = [await b.link(), await c.link(), await plain.plainLink()];
  // Ana: visitor 1 four times on both links, visitors 2 and 3 once: 3 visitors.
  for (const path of [a1, a1, a2, a1]) await visit(path, 1);
  await visit(a2, 2);
  await visit(a1, 3);
  // Not counted: a bot, a HEAD request, a prefetch (visitors of their own), a link of no partner.
  await visit(a1, 4, { agent: 'Googlebot/2.1 (+http://www.google.com/bot.html)' });
  await visit(a1, 5, { method: 'HEAD' });
  await visit(a2, 6, { headers: { 'sec-purpose': 'prefetch' } });
  await visit(none, 7);
  // Bo: visitor 1 (Ana's too: counted for each partner) and visitor 8.
  await visit(b1, 1);
  await visit(b1, 8);
  await visit(c1, 9);
  await plain.ok('PUT', '/api/partners', [{ id: c.id, status: 'banned' }]);

  // maxPerDay 2 of 10 each: four visitors pay 20.
  capped = await programWith([{ event: 'click', type: 'flat', amount: 10, maxPerDay: 2 }]);
  const d1 = await (await capped.partner('Dee')).link();
  for (const n of [1, 2, 3, 4]) await visit(d1, n);

  // 50 a visitor from Germany, else 5: two German visitors, one British, one American.
  conditioned = await programWith([
    { event: 'click', type: 'flat', amount: 50, conditions: [{ field: 'country', op: 'eq', value: 'DE' }] },
    { event: 'click', type: 'flat', amount: 5 },
  ]);
  const e1 = await (await conditioned.partner('Eve')).link();
  await visit(e1, 1, { ip: IP_DE });
  await visit(e1, 2, { ip: IP_DE });
  await visit(e1, 2, { ip: IP_DE });
  await visit(e1, 3, { ip: IP_GB });
  await visit(e1, 4, { ip: IP_US });

  // A partner's link clicked the day before its program exists (partners and their links may
  // come first), and again on D: only D's visitor earns.
  const early = await workspaceWithCollection(t);
  const send = async (method: 'POST' | 'PUT' | 'GET', url: string, body?: unknown) => {
    const res = await early.send(method, url, body);
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
    return res.json();
  };
  const [fay] = await send('POST', '/api/partners', [{ name: 'Fay' }]);
  const [earlyLink] = await send('POST', '/api/links', [{ url: 'https://shop.example/', collectionId: early.collectionId, partnerId: fay.id }]);
  const f1 = new URL(earlyLink.shortUrl).pathname;
  await at(D - DAY_MS + HOUR_MS, () => visit(f1, 1));
  await send('PUT', '/api/program', { name: 'Late', slug: `l-${randomUUID().slice(0, 8)}`, landingUrl: 'https://shop.example/', currency: 'eur' });
  const [group] = await send('GET', '/api/partner-groups');
  await send('PUT', '/api/partner-groups', [{ id: group.id, rewards: [{ event: 'click', type: 'flat', amount: 7 }] }]);
  await visit(f1, 2);
  late = { clickCommissions: () => send('GET', '/api/commissions?type=click&sort=asc') as Promise<Commission[]> };

  // A program ten days old: a run pays the last 7 days that are over, so D-8 is not paid, D-6 is.
  catchUp = await programWith([{ event: 'click', type: 'flat', amount: 3 }]);
  await t.database.db.execute(sql`UPDATE programs SET created_at = created_at - interval '10 days' WHERE workspace_id = ${catchUp.ws.id}::uuid`);
  const g1 = await (await catchUp.partner('Gil')).link();
  await at(D - 8 * DAY_MS + HOUR_MS, () => visit(g1, 1));
  await at(D - 6 * DAY_MS + HOUR_MS, async () => {
    await visit(g1, 1);
    await visit(g1, 2);
  });
  await visit(g1, 1);
});

afterAll(async () => {
  await t?.close();
  await dropFreshDatabases();
});

describe('click rewards', () => {
  test('nothing is written for day D before 01:00 UTC of D+1', async () => {
    clock.set(new Date(D + DAY_MS + HOUR_MS - 60_000));
    await t.runtime.maintain();
    for (const w of [plain, capped, conditioned, late]) expect(await w.clickCommissions()).toEqual([]);
    // D-1 and D-6 were over an hour before: paid already (D-6 by the catch-up), D-8 never.
    const caught = await rows<{ day: string; earnings: number }>(
      t.database.db,
      sql`SELECT click_day::text AS day, earnings::int AS earnings FROM commissions WHERE workspace_id = ${catchUp.ws.id}::uuid ORDER BY 1`,
    );
    expect(caught).toEqual([{ day: dayOf(D - 6 * DAY_MS), earnings: 6 }]);
  });

  test("after 01:00 of D+1, each approved partner earns for the day's distinct human visitors", async () => {
    clock.set(new Date(D + DAY_MS + HOUR_MS + 5 * 60_000));
    await t.runtime.maintain();
    const written = await plain.clickCommissions();
    // Ana 3 visitors, Bo 2; Cy, banned, nothing.
    expect(byPartner(written)).toEqual({ [ana.id]: 75, [bo.id]: 50 });
    expect(written.map((c) => c.partnerId)).not.toContain(cy.id);
    for (const c of written) {
      expect(c).toMatchObject({ type: 'click', linkId: null, customerId: null, eventId: null, currency: 'eur', status: 'pending' });
      expect(c.createdAt).toBe(clock.now().toISOString());
      expect(Date.parse(c.payableAt) - Date.parse(c.createdAt)).toBe(30 * DAY_MS);
    }
  });

  test('maxPerDay caps the visitors paid', async () => {
    expect((await capped.clickCommissions()).map((c) => c.earnings)).toEqual([20]);
  });

  test("each visitor earns by the first reward whose conditions hold for their click's country", async () => {
    expect((await conditioned.clickCommissions()).map((c) => c.earnings)).toEqual([2 * 50 + 2 * 5]);
  });

  test('nothing is paid for clicks before the program existed', async () => {
    expect((await late.clickCommissions()).map((c) => c.earnings)).toEqual([7]);
  });

  test('a missed day is caught up within the last 7 days', async () => {
    const caught = await rows<{ day: string; earnings: number }>(
      t.database.db,
      sql`SELECT click_day::text AS day, earnings::int AS earnings FROM commissions WHERE workspace_id = ${catchUp.ws.id}::uuid ORDER BY 1`,
    );
    expect(caught).toEqual([
      { day: dayOf(D - 6 * DAY_MS), earnings: 6 },
      { day: clickDay, earnings: 3 },
    ]);
  });

  test('commission.created is emitted for each, and running the job again writes nothing more', async () => {
    const first = await plain.clickCommissions();
    const events = async () =>
      (await eventsOf(t, plain.ws.id, 'commission.created')).map((e) => [e.body.data.id, e.body.data.type, e.body.data.earnings]).sort();
    const expected = first.map((c) => [c.id, 'click', c.earnings]).sort();
    expect(await events()).toEqual(expected);
    await t.runtime.maintain();
    clock.set(new Date(D + DAY_MS + 5 * HOUR_MS));
    await t.runtime.maintain();
    expect(await plain.clickCommissions()).toEqual(first);
    expect(await events()).toEqual(expected);
    // Kept under the day the clicks were made (the key that writes it once).
    const days = await rows<{ day: string }>(t.database.db, sql`SELECT click_day::text AS day FROM commissions WHERE workspace_id = ${plain.ws.id}::uuid`);
    expect(days.map((r) => r.day)).toEqual([clickDay, clickDay]);
  });
});
