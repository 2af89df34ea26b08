/**
 * Property (operations.md §18): for random rewards, sales, refunds and a payout, the commissions
 * the service wrote equal those computed here from the events and rewards alone — the first
 * matching reward, half-to-even percentages, net of refunds from the original, a whole refund
 * reversed — and the payout pays exactly the payable sum. Through HTTP, a fresh workspace a run.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { workspaceWithCollection } from '../../helpers/client.js';
import { DESKTOP } from '../../helpers/visitors.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

/** Half to even, written apart from the service's: q = n / d by BigInt, then the remainder decides. */
function halfEven(n: bigint, d: bigint): bigint {
  const q = n / d;
  const r2 = (n % d) * 2n;
  if (r2 > d || (r2 === d && q % 2n !== 0n)) return q + 1n;
  return q;
}

interface Reward {
  event: 'sale';
  type: 'flat' | 'percentage';
  amount: number;
  conditions?: { field: 'amount'; op: 'gte'; value: number }[];
}

const rewardArb: fc.Arbitrary<Reward> = fc.oneof(
  fc.record({ event: fc.constant('sale' as const), type: fc.constant('flat' as const), amount: fc.integer({ min: 0, max: 100_000 }) }),
  fc.record({ event: fc.constant('sale' as const), type: fc.constant('percentage' as const), amount: fc.integer({ min: 1, max: 10_000 }) }),
  fc.record({
    event: fc.constant('sale' as const),
    type: fc.constant('percentage' as const),
    amount: fc.integer({ min: 1, max: 10_000 }),
    conditions: fc.tuple(fc.integer({ min: 0, max: 50_000 })).map(([v]) => [{ field: 'amount' as const, op: 'gte' as const, value: v }]),
  }),
);

const saleArb = fc.record({ amount: fc.integer({ min: 0, max: 99_999 }), refundShare: fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }) });

function expected(rewards: Reward[], amount: number, refunded: number): { earnings: number; status: string } | undefined {
  const reward = rewards.find((r) => (r.conditions ?? []).every((c) => amount >= c.value));
  if (!reward) return undefined;
  const original = reward.type === 'flat' ? BigInt(reward.amount) : halfEven(BigInt(amount) * BigInt(reward.amount), 10_000n);
  const net = amount === 0 ? (refunded === 0 ? original : 0n) : halfEven(original * BigInt(amount - refunded), BigInt(amount));
  return { earnings: Number(net), status: refunded >= amount && amount > 0 ? 'reversed' : 'payable' };
}

describe('commissions computed from events and rewards', () => {
  test('equal what the service wrote, and a payout pays the payable sum', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(rewardArb, { minLength: 1, maxLength: 3 }), fc.array(saleArb, { minLength: 1, maxLength: 6 }), async (rewards, sales) => {
        const { ws, send, collectionId } = await workspaceWithCollection(t);
        const ok = async (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown) => {
          const res = await send(method, url, body);
          expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
          return res.json();
        };
        await ok('PUT', '/api/program', {
          name: 'P',
          slug: `q-${randomUUID().slice(0, 8)}`,
          landingUrl: 'https://shop.example/',
          currency: 'usd',
          holdingDays: 0,
          minPayout: {},
        });
        const [group] = await ok('GET', '/api/partner-groups');
        await ok('PUT', '/api/partner-groups', [{ id: group.id, rewards }]);
        const [partner] = await ok('POST', '/api/partners', [{ name: 'Ana' }]);
        const [link] = await ok('POST', '/api/links', [{ url: 'https://shop.example/', collectionId, partnerId: partner.id }]);
        const click = await t.inject({ method: 'GET', url: new URL(link.shortUrl).pathname, headers: { 'user-agent': DESKTOP } });
        const clickId = new URL(click.headers.location as string).searchParams.get('ltid');
        const want: { earnings: number; status: string }[] = [];
        for (const s of sales) {
          const sale = await ok('POST', '/api/track/sale', { clickId, customerExternalId: 'c', customerName: 'C', amount: s.amount, currency: 'usd' });
          const refunded = s.refundShare === undefined ? 0 : Math.floor((s.amount * s.refundShare) / 100);
          if (refunded > 0) await ok('POST', '/api/track/refund', { saleId: sale.id, refundedAmount: refunded });
          const e = expected(rewards, s.amount, refunded);
          if (e) want.push(e);
        }
        const got = (await ok('GET', '/api/commissions?sort=asc&take=100')) as { earnings: number; status: string }[];
        expect(got.map((c) => ({ earnings: c.earnings, status: c.status }))).toEqual(want);
        await t.database.db.execute(sql`UPDATE partners SET payout_method = 'paypal' WHERE id = ${partner.id}::uuid`);
        const payable = want.filter((w) => w.status === 'payable').reduce((n, w) => n + w.earnings, 0);
        const payout = await send('POST', '/api/payouts', { currency: 'usd' });
        expect(payout.statusCode, payout.body).toBe(201);
        expect(payout.json().total).toBe(payable > 0 ? payable : 0);
        expect(ws.id).toBeTruthy();
      }),
      { numRuns: Number(process.env.FUZZ_SCALE ?? 1) < 1 ? 8 : 20 },
    );
  });
});
