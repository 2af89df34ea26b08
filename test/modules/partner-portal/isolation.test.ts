/**
 * A partner sees only their own data (operations.md §18 "Partner portal"): partner A walks every
 * /api/partner route of the OpenAPI document with each of partner B's ids in every id parameter,
 * and with the id of a program only B partners in; nothing of B's comes back. A property test
 * then gives random partners random commissions: each reads exactly their own, and their sums.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { propertyRuns } from '../../helpers/property-runs.js';
import { PASSWORD, expectError } from '../people/helpers.js';
import { acceptInvite, click, invitedPartner, portal, programWorkspace, type PartnerFixture, type ProgramFixture } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

interface Operation {
  method: 'get' | 'post' | 'put';
  path: string;
  idParams: string[];
}

/** Every operation under /api/partner of the served document, with its query parameters that take an id. */
async function portalOperations(): Promise<Operation[]> {
  const doc = (await t.inject({ method: 'GET', url: '/api/openapi.json' })).json<{
    paths: Record<string, Record<string, { parameters?: { name: string; in: string; schema?: { format?: string } }[] }>>;
  }>();
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    if (path !== '/api/partner' && !path.startsWith('/api/partner/')) continue;
    for (const [method, op] of Object.entries(methods)) {
      const idParams = (op.parameters ?? []).filter((p) => p.in === 'query' && p.schema?.format === 'uuid').map((p) => p.name);
      ops.push({ method: method as Operation['method'], path, idParams });
    }
  }
  return ops;
}

/** What B has that A must never read: ids and words only B's records carry. */
async function partnerWithEverything(p: ProgramFixture, b: PartnerFixture) {
  const made = await portal(t, b.cookie, 'POST', '/api/partner/links', { url: 'https://shop.example/b-only', title: 'Bee link' });
  expect(made.statusCode, made.body).toBe(201);
  const link = made.json<{ id: string; shortUrl: string }>();
  const clickId = await click(t, link.shortUrl);
  const lead = await p.ok<{ customer: { id: string } }>('POST', '/api/track/lead', {
    clickId,
    eventName: 'Sign up',
    customerExternalId: 'bee-customer-ext',
    customerName: 'Zed Secretname',
    customerEmail: 'zed.secret@buyer.example',
  });
  await p.ok('POST', '/api/track/sale', { customerExternalId: 'bee-customer-ext', customerName: 'Zed Secretname', amount: 7_777, currency: 'usd' });
  const details = await portal(t, b.cookie, 'PUT', '/api/partner/payout-details', {
    method: 'paypal',
    email: 'bee.payout@partner.example',
    password: PASSWORD,
  });
  expect(details.statusCode, details.body).toBe(200);
  const commissions = await p.ok<{ id: string; partnerId: string }[]>('GET', `/api/commissions?partnerId=${b.id}`);
  expect(commissions.length).toBe(2);
  return {
    linkId: link.id,
    customerId: lead.customer.id,
    commissionIds: commissions.map((c) => c.id),
    words: ['Bee link', 'b-only', 'Secretname', 'bee.payout', 'zed', 'bee-customer-ext'],
  };
}

describe('partner A asking for partner B', () => {
  test('every /api/partner route, every id parameter given each of B’s ids, answers nothing of B’s', async () => {
    const p = await programWorkspace(t, { minPayout: { usd: 1 } });
    const a = await invitedPartner(t, p, 'Ann Alpha');
    const b = await invitedPartner(t, p, 'Bee Beta');
    const bees = await partnerWithEverything(p, b);
    // A earns too, so every list of A's has rows to leak beside.
    await p.ok('POST', '/api/commissions', [{ partnerId: a.id, earnings: 500, currency: 'usd', description: 'Welcome bonus' }], 201);
    const payout = await p.ok<{ id: string }>('POST', '/api/payouts', { currency: 'usd', partnerIds: [b.id] }, 201);
    // B alone partners in a second program.
    const other = await programWorkspace(t);
    const [bElsewhere] = await other.ok<{ id: string }[]>('POST', '/api/partners', [{ name: 'Bee Beta', email: b.email, status: 'invited' }], 201);
    await acceptInvite(t, other.owner, other.workspaceId, bElsewhere!.id, b.cookie);

    const forbidden = [b.id, bElsewhere!.id, bees.linkId, bees.customerId, ...bees.commissionIds, b.email, ...bees.words];
    const ids = [b.id, bees.linkId, bees.customerId, payout.id, ...bees.commissionIds];
    const ops = await portalOperations();
    expect(ops.map((o) => `${o.method} ${o.path}`).sort()).toEqual(
      [
        'get /api/partner',
        'get /api/partner/analytics',
        'get /api/partner/commissions',
        'get /api/partner/links',
        'get /api/partner/payout-details',
        'get /api/partner/payouts',
        'post /api/partner/links',
        'put /api/partner/payout-details',
      ].sort(),
    );
    const bodies: Record<string, unknown> = {
      'post /api/partner/links': { url: 'https://shop.example/a-made', partnerId: b.id, id: bees.linkId },
      'put /api/partner/payout-details': { method: 'paypal', email: 'ann.pay@partner.example', password: PASSWORD, partnerId: b.id },
    };
    let asked = 0;
    for (const op of ops) {
      const queries = ['', ...op.idParams.flatMap((name) => ids.map((id) => `?${name}=${id}`))];
      for (const query of queries) {
        const res = await portal(t, a.cookie, op.method.toUpperCase() as 'GET', `${op.path}${query}`, bodies[`${op.method} ${op.path}`]);
        expect([200, 201, 409], `${op.method} ${op.path}${query}: ${res.body}`).toContain(res.statusCode);
        for (const secret of forbidden) expect(res.body.toLowerCase(), `${op.method} ${op.path}${query} leaked ${secret}`).not.toContain(secret.toLowerCase());
        asked++;
        // The program only B partners in is not A's: 404 as an unknown one.
        expectError(
          await portal(t, a.cookie, op.method.toUpperCase() as 'GET', `${op.path}${query}`, bodies[`${op.method} ${op.path}`], other.programId),
          404,
          'not_found',
        );
      }
    }
    expect(asked).toBeGreaterThan(ops.length * 2);
    // What A wrote is A's: the link is theirs, B's payout details are untouched.
    const bLinks = await p.ok<{ url: string }[]>('GET', `/api/links?partnerId=${b.id}`);
    expect(bLinks.map((l) => l.url)).not.toContain('https://shop.example/a-made');
    const partners = await p.ok<{ id: string; payoutDestination: string | null }[]>('GET', '/api/partners?take=100');
    expect(partners.find((x) => x.id === b.id)!.payoutDestination).toBe('b•••@partner.example');
    expect(partners.find((x) => x.id === a.id)!.payoutDestination).toBe('a•••@partner.example');
  });
});

describe('random partners', () => {
  test('each reads exactly their own commissions and earnings', async () => {
    const p = await programWorkspace(t);
    const pool = [await invitedPartner(t, p, 'Pat One'), await invitedPartner(t, p, 'Pat Two'), await invitedPartner(t, p, 'Pat Three')];
    const ledger = new Map<string, { id: string; earnings: number; currency: string }[]>(pool.map((x) => [x.id, []]));
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            who: fc.integer({ min: 0, max: 2 }),
            earnings: fc.integer({ min: -5_000, max: 50_000 }),
            currency: fc.constantFrom('usd', 'eur', 'jpy'),
          }),
          {
            minLength: 1,
            maxLength: 8,
          },
        ),
        async (items) => {
          const made = await p.ok<{ id: string; partnerId: string; earnings: number; currency: string }[]>(
            'POST',
            '/api/commissions',
            items.map((i) => ({ partnerId: pool[i.who]!.id, earnings: i.earnings, currency: i.currency, description: 'Random' })),
            201,
          );
          for (const c of made) ledger.get(c.partnerId)!.push({ id: c.id, earnings: c.earnings, currency: c.currency });
          for (const partner of pool) {
            const own = ledger.get(partner.id)!;
            const read = await portal(t, partner.cookie, 'GET', '/api/partner/commissions?take=5000');
            expect(read.statusCode, read.body).toBe(200);
            expect(
              read
                .json<{ id: string }[]>()
                .map((c) => c.id)
                .sort(),
            ).toEqual(own.map((c) => c.id).sort());
            const summary = await portal(t, partner.cookie, 'GET', '/api/partner');
            const payable = Object.fromEntries(
              Object.entries(summary.json<{ earnings: Record<string, { payable: number }> }>().earnings).map(([cur, e]) => [cur, e.payable]),
            );
            const expected: Record<string, number> = {};
            for (const c of own) expected[c.currency] = (expected[c.currency] ?? 0) + c.earnings;
            expect(payable).toEqual(expected);
          }
        },
      ),
      { numRuns: propertyRuns(15), seed: 4518 },
    );
  });
});
