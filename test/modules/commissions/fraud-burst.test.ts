/**
 * The fraud rules `burst` and `sameVisitor` (operations.md §18 "Fraud rules"), through HTTP as a
 * client would: a program paying for leads, a partner's link clicked from known addresses and
 * agents, leads tracked. `burst`: the 11th lead within an hour whose click shares a visitor (the
 * address and agent's daily hash) or a network (/24) with the earlier ones is held, the first 10
 * are not, nor a lead from another network; off with fraudRules.burst = false. `sameVisitor`: a
 * lead whose click came from the address and agent the partner's user signed in from that day is
 * held, one from elsewhere is not. A released commission is not held again for later ones of
 * its (partner, customer) pair.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { ANDROID, DESKTOP, IPHONE } from '../../helpers/visitors.js';
import { workspaceWithCollection } from '../../helpers/client.js';
import { createUser, sessionCookieFrom } from '../people/helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

interface Commission {
  id: string;
  customerId: string | null;
  type: string;
  status: string;
  holdReasons: string[];
}

const ALL_RULES = { selfReferral: true, sameVisitor: true, disposableEmail: true, burst: true, duplicateCustomer: true };

/** A workspace whose program pays 100 per lead and 50 per sale, a partner with a link, and a client for it. */
async function program(fraudRules: Record<string, boolean> = ALL_RULES) {
  const { send, collectionId } = await workspaceWithCollection(t);
  const ok = async (method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, body?: unknown, status = 200) => {
    const res = await send(method, url, body);
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(status);
    return res.json();
  };
  await ok('PUT', '/api/program', { name: 'Friends', slug: `f-${randomUUID().slice(0, 8)}`, landingUrl: 'https://shop.example/', currency: 'usd', fraudRules });
  const [group] = await ok('GET', '/api/partner-groups');
  await ok('PUT', '/api/partner-groups', [
    {
      id: group.id,
      rewards: [
        { event: 'lead', type: 'flat', amount: 100 },
        { event: 'sale', type: 'flat', amount: 50 },
      ],
    },
  ]);
  const partner = async (name: string) => {
    const [p] = await ok('POST', '/api/partners', [{ name, email: `${name.toLowerCase()}-${randomUUID().slice(0, 6)}@partner.example` }], 201);
    const [link] = await ok('POST', '/api/links', [{ url: 'https://shop.example/spring', collectionId, partnerId: p.id }], 201);
    return { id: p.id as string, linkPath: new URL(link.shortUrl).pathname };
  };
  return {
    ok,
    partner,
    /** A click on `path` from `ip` with `agent`: its click id. */
    async click(path: string, ip: string, agent = DESKTOP): Promise<string> {
      const res = await t.inject({ method: 'GET', url: path, remoteAddress: ip, headers: { 'user-agent': agent } });
      expect(res.statusCode, res.body).toBe(302);
      return new URL(res.headers.location as string).searchParams.get('ltid')!;
    },
    lead: (clickId: string, customer: string) =>
      ok('POST', '/api/track/lead', { clickId, eventName: 'Sign up', customerExternalId: customer, customerName: 'Cam Buyer' }) as Promise<{
        customer: { id: string };
      }>,
    sale: (customer: string) => ok('POST', '/api/track/sale', { customerExternalId: customer, customerName: 'Cam Buyer', amount: 1000, currency: 'usd' }),
    commissions: (): Promise<Commission[]> => ok('GET', '/api/commissions?sort=asc&limit=100'),
  };
}

type Api = Awaited<ReturnType<typeof program>>;

/** One lead per (click, new customer), clicked on `path` from each address and agent in turn; the commissions' statuses and reasons in order. */
async function leadsFrom(api: Api, path: string, visits: { ip: string; agent?: string }[], prefix = 'c'): Promise<[string, string[]][]> {
  for (const [i, v] of visits.entries()) await api.lead(await api.click(path, v.ip, v.agent), `${prefix}-${i}`);
  return (await api.commissions()).map((c) => [c.status, c.holdReasons]);
}

const times = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));
const CLEAN: [string, string[]] = ['pending', []];
const BURST: [string, string[]] = ['held', ['burst']];

describe('fraud rule burst', () => {
  test('the 11th lead in an hour from one visitor is held as a burst, the first 10 are not', async () => {
    const api = await program();
    const ana = await api.partner('Ana');
    const statuses = await leadsFrom(
      api,
      ana.linkPath,
      times(11, () => ({ ip: '203.0.113.7' })),
    );
    expect(statuses).toEqual([...times(10, () => CLEAN), BURST]);
  });

  test('the 11th lead from one /24 network held, from different addresses and agents; one from another network is not', async () => {
    const api = await program();
    const ana = await api.partner('Ana');
    const agents = [DESKTOP, IPHONE, ANDROID];
    const tenOfOneNetwork = times(10, (i) => ({ ip: `198.51.100.${i + 1}`, agent: agents[i % 3] }));
    // After ten from 198.51.100.0/24, one from 198.51.101.0/24 (another network, another visitor) is clean…
    expect(await leadsFrom(api, ana.linkPath, [...tenOfOneNetwork, { ip: '198.51.101.1' }])).toEqual(times(11, () => CLEAN));
    // …and the next from 198.51.100.0/24 is its network's 11th of the hour.
    await api.lead(await api.click(ana.linkPath, '198.51.100.200', IPHONE), 'c-last');
    expect((await api.commissions()).map((c) => [c.status, c.holdReasons])).toEqual([...times(11, () => CLEAN), BURST]);
  });

  test('IPv6: one /48 is one network', async () => {
    const api = await program();
    const ana = await api.partner('Ana');
    const statuses = await leadsFrom(
      api,
      ana.linkPath,
      times(11, (i) => ({ ip: `2001:db8:abcd:${i + 1}::1` })),
    );
    expect(statuses).toEqual([...times(10, () => CLEAN), BURST]);
  });

  test('fraudRules.burst = false holds none of them', async () => {
    const api = await program({ ...ALL_RULES, burst: false });
    const ana = await api.partner('Ana');
    const statuses = await leadsFrom(
      api,
      ana.linkPath,
      times(12, () => ({ ip: '203.0.113.7' })),
    );
    expect(statuses).toEqual(times(12, () => CLEAN));
  });

  test('a released commission is not held again for later ones of its pair, while a new pair is', async () => {
    const api = await program();
    const ana = await api.partner('Ana');
    await leadsFrom(
      api,
      ana.linkPath,
      times(11, () => ({ ip: '203.0.113.9' })),
    );
    const held = (await api.commissions())[10]!;
    expect([held.status, held.holdReasons]).toEqual(BURST);
    // Held, a later sale of the pair follows its first.
    await api.sale('c-10');
    expect((await api.commissions())[11]!.holdReasons).toEqual(['burst']);
    const [released] = await api.ok('PATCH', '/api/commissions', [{ id: held.id, status: 'pending' }]);
    expect(released.status).toBe('pending');
    // Released: the pair's next sale is clean, though its visitor is still in a burst (a new customer's lead is held).
    await api.sale('c-10');
    await api.lead(await api.click(ana.linkPath, '203.0.113.9'), 'c-new');
    const after = await api.commissions();
    expect(after.slice(12).map((c) => [c.type, c.customerId === held.customerId, c.status, c.holdReasons])).toEqual([
      ['sale', true, 'pending', []],
      ['lead', false, 'held', ['burst']],
    ]);
  });
});

describe('fraud rule sameVisitor', () => {
  /** A partner whose user (set with SQL: invitations set it, not the API) signed in through the login route from `ip` with `agent`. */
  async function partnerSignedIn(api: Api, name: string, ip: string, agent: string) {
    const partner = await api.partner(name);
    const user = await createUser(t);
    await t.database.db.execute(sql`UPDATE partners SET user_id = ${user.id}::uuid WHERE id = ${partner.id}::uuid`);
    const res = await t.inject({
      method: 'POST',
      url: '/api/auth/login',
      remoteAddress: ip,
      headers: { 'user-agent': agent },
      payload: { email: user.email, password: user.password },
    });
    expect(res.statusCode, res.body).toBe(200);
    sessionCookieFrom(res);
    return partner;
  }

  test("held when the click came from the address and agent the partner's user signed in from that day; not from another", async () => {
    const api = await program();
    const ana = await partnerSignedIn(api, 'Ana', '192.0.2.44', IPHONE);
    const ben = await partnerSignedIn(api, 'Ben', '192.0.2.45', IPHONE);
    // Ana's own click, from where she signed in; Ben's link clicked by someone else (another address; then his address with another agent).
    await api.lead(await api.click(ana.linkPath, '192.0.2.44', IPHONE), 'self');
    await api.lead(await api.click(ben.linkPath, '192.0.2.99', IPHONE), 'other');
    await api.lead(await api.click(ben.linkPath, '192.0.2.45', DESKTOP), 'other-agent');
    expect((await api.commissions()).map((c) => [c.status, c.holdReasons])).toEqual([['held', ['sameVisitor']], CLEAN, CLEAN]);
  });

  test('fraudRules.sameVisitor = false holds nothing', async () => {
    const api = await program({ ...ALL_RULES, sameVisitor: false });
    const ana = await partnerSignedIn(api, 'Ana', '192.0.2.46', ANDROID);
    await api.lead(await api.click(ana.linkPath, '192.0.2.46', ANDROID), 'self');
    expect((await api.commissions()).map((c) => [c.status, c.holdReasons])).toEqual([CLEAN]);
  });

  test("sign-ins' visitor hashes are kept for today and yesterday: the sessions maintenance job deletes older days", async () => {
    const user = await createUser(t);
    const res = await t.inject({
      method: 'POST',
      url: '/api/auth/login',
      remoteAddress: '192.0.2.47',
      headers: { 'user-agent': DESKTOP },
      payload: { email: user.email, password: user.password },
    });
    expect(res.statusCode, res.body).toBe(200);
    // Earlier days' rows, as sign-ins on those days left them.
    await t.database.db.execute(
      sql`INSERT INTO sign_in_visitors (user_id, day, hash)
          VALUES (${user.id}::uuid, (now() AT TIME ZONE 'UTC')::date - 1, 1), (${user.id}::uuid, (now() AT TIME ZONE 'UTC')::date - 2, 2)`,
    );
    const days = async () =>
      (
        await rows<{ age: number }>(
          t.database.db,
          sql`SELECT ((now() AT TIME ZONE 'UTC')::date - day)::int AS age FROM sign_in_visitors WHERE user_id = ${user.id}::uuid ORDER BY 1`,
        )
      ).map((r) => r.age);
    expect(await days()).toEqual([0, 1, 2]);
    await t.runtime.maintain();
    expect(await days()).toEqual([0, 1]);
  });
});
