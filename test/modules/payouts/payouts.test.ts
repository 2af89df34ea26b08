/**
 * Payouts through HTTP (operations.md §18 "Payouts"): what is payable gathered per currency for
 * approved partners with payout details above the minimum, the others listed in `skipped` with
 * why; one pending payout per currency (the loser of two at once 409); frozen items with a refund
 * kept as an adjustment; the provider's files; complete (failed partners back to payable, the
 * adjustment settled) and cancel, each once; owners only; sums exact past 2^53.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Sealer } from '../../../src/core/sealed.js';
import { SECRET, startTestApp, type TestApp } from '../../helpers/app.js';
import { workspaceWithCollection } from '../../helpers/client.js';
import { DESKTOP } from '../../helpers/visitors.js';
import { asSession, signedInMember } from '../people/helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const sealer = new Sealer(SECRET);
const DAY = 86_400_000;

/**
 * Sets a partner's payout details as the partner portal will (its route is another issue's):
 * sealed with SECRET, masked beside them, and the time of a replacement.
 */
async function setPayoutDetails(
  partnerId: string,
  d: { method: 'paypal' | 'wise' | 'bank'; email?: string; holderName?: string },
  changedAt: Date | null = null,
) {
  const masked = d.email ? `${d.email[0]}•••${d.email.slice(d.email.indexOf('@'))}` : '•••';
  await t.database.db.execute(
    sql`UPDATE partners SET payout_method = ${d.method}, payout_details_sealed = ${sealer.seal('payout-details', JSON.stringify(d))},
        payout_destination_masked = ${masked}, payout_details_changed_at = ${changedAt?.toISOString() ?? null}::timestamptz WHERE id = ${partnerId}::uuid`,
  );
}

async function programClient(program: Record<string, unknown> = {}) {
  const { ws, send, collectionId } = await workspaceWithCollection(t);
  const ok = async (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: unknown, status = 200) => {
    const res = await send(method, url, body);
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(status);
    return res.json();
  };
  await ok('PUT', '/api/program', {
    name: 'Friends',
    slug: `f-${randomUUID().slice(0, 8)}`,
    landingUrl: 'https://shop.example/',
    currency: 'usd',
    holdingDays: 0,
    minPayout: { usd: 1000 },
    ...program,
  });
  const partner = async (name: string) => (await ok('POST', '/api/partners', [{ name }], 201))[0] as { id: string };
  const custom = (partnerId: string, earnings: number, currency = 'usd') =>
    ok('POST', '/api/commissions', [{ partnerId, earnings, currency, description: 'Bonus' }], 201);
  return { ws, send, ok, partner, custom, collectionId };
}

describe('payouts', () => {
  test('gathers the payable, skips with reasons, files, refunds as adjustments, completes once', async () => {
    const api = await programClient();
    const [group] = await api.ok('GET', '/api/partner-groups');
    await api.ok('PUT', '/api/partner-groups', [{ id: group.id, rewards: [{ event: 'sale', type: 'flat', amount: 600 }] }]);
    const [ana, ben, cy, di] = [await api.partner('=Ana'), await api.partner('Ben'), await api.partner('Cy'), await api.partner('Di')];
    await setPayoutDetails(ana.id, { method: 'paypal', email: 'ana@pay.example' });
    await setPayoutDetails(cy.id, { method: 'paypal', email: 'cy@pay.example' }, new Date(Date.now() - DAY));
    await setPayoutDetails(di.id, { method: 'wise', email: 'di@pay.example', holderName: 'Di Holder' });
    // Ana: a sale on her link (600) and a bonus (1,234); the others bonuses of their own.
    const [link] = await api.ok('POST', '/api/links', [{ url: 'https://shop.example/a', collectionId: api.collectionId, partnerId: ana.id }], 201);
    const click = await t.inject({ method: 'GET', url: new URL(link.shortUrl).pathname, headers: { 'user-agent': DESKTOP } });
    const clickId = new URL(click.headers.location as string).searchParams.get('ltid');
    const sale = await api.ok('POST', '/api/track/sale', { clickId, customerExternalId: 'c1', customerName: 'C', amount: 5000, currency: 'usd' });
    await api.custom(ana.id, 1234);
    await api.custom(ben.id, 5000);
    await api.custom(cy.id, 5000);
    await api.custom(di.id, 500);
    await api.custom(ana.id, 700, 'eur');

    const made = await api.send('POST', '/api/payouts', { currency: 'usd' });
    expect(made.statusCode, made.body).toBe(201);
    const payout = made.json();
    expect(payout).toMatchObject({ status: 'pending', currency: 'usd', method: null, total: 1834 });
    expect(payout.items).toEqual([
      { partnerId: ana.id, amount: 1834, commissions: expect.any(Array), method: 'paypal', destination: 'a•••@pay.example', detailsChangedAt: null },
    ]);
    expect(payout.items[0].commissions).toHaveLength(2);
    expect(new Map(payout.skipped.map((s: { partnerId: string; reason: string }) => [s.partnerId, s.reason]))).toEqual(
      new Map([
        [ben.id, 'no_payout_details'],
        [cy.id, 'details_changed_recently'],
        [di.id, 'below_minimum'],
      ]),
    );
    const again = await api.send('POST', '/api/payouts', { currency: 'usd', partnerIds: [cy.id] });
    expect(again.statusCode, again.body).toBe(409);
    expect(again.json().error.code).toBe('payout_pending');

    // The files: PayPal's rows (no header), the csv with every item, formula-guarded.
    const paypal = await api.send('GET', `/api/payouts/${payout.id}/file?format=paypal`);
    expect(paypal.statusCode, paypal.body).toBe(200);
    expect(paypal.headers['linktrail-parts']).toBe('1');
    expect(paypal.body).toBe(`ana@pay.example,18.34,USD,${ana.id.replaceAll('-', '').slice(0, 30)},Payout ${payout.id.slice(0, 8)},PAYPAL\r\n`);
    const csv = await api.send('GET', `/api/payouts/${payout.id}/file?format=csv`);
    expect(csv.body.split('\r\n')[1]).toBe(`'=Ana,${ana.id},paypal,a•••@pay.example,18.34,USD`);
    const wise = await api.send('GET', `/api/payouts/${payout.id}/file?format=wise`);
    expect(wise.body.split('\r\n').filter(Boolean)).toHaveLength(1); // the header only: Di was below the minimum

    // A whole refund of Ana's sale while the payout is pending: the item stays, the commission's adjustment takes it.
    expect((await api.send('POST', '/api/track/refund', { saleId: sale.id, refundedAmount: 5000 })).statusCode).toBe(200);
    expect((await api.ok('GET', `/api/payouts/${payout.id}`)).total).toBe(1834);
    const [saleCommission] = await api.ok('GET', `/api/commissions?type=sale`);
    expect([saleCommission.status, saleCommission.earnings, saleCommission.adjustment, saleCommission.payoutId]).toEqual(['payable', 600, -600, payout.id]);

    const done = await api.ok('POST', `/api/payouts/${payout.id}/complete`, { reference: 'PP-123' });
    expect([done.status, done.reference]).toEqual(['completed', 'PP-123']);
    const ana2 = await api.ok('GET', `/api/commissions?partnerId=${ana.id}&currency=usd&sort=asc`);
    expect(ana2.map((c: { type: string; status: string; earnings: number }) => [c.type, c.status, c.earnings])).toEqual([
      ['sale', 'paid', 600],
      ['custom', 'paid', 1234],
      ['custom', 'payable', -600],
    ]);
    const twice = await api.send('POST', `/api/payouts/${payout.id}/complete`, {});
    expect(twice.statusCode).toBe(409);
    expect(twice.json().error.code).toBe('payout_not_pending');
    expect((await api.send('POST', `/api/payouts/${payout.id}/cancel`, {})).statusCode).toBe(409);
    expect((await api.send('POST', `/api/payouts/${randomUUID()}/cancel`, {})).statusCode).toBe(404);
  });

  test('failed partners and a cancelled payout go back to payable; a reversal made meanwhile holds', async () => {
    const api = await programClient({ minPayout: {} });
    const [ana, ben] = [await api.partner('Ana'), await api.partner('Ben')];
    await setPayoutDetails(ana.id, { method: 'paypal', email: 'ana@pay.example' });
    await setPayoutDetails(ben.id, { method: 'wise', email: 'ben@pay.example' });
    const [a1] = await api.custom(ana.id, 100);
    const [b1] = await api.custom(ben.id, 200);
    const first = await api.ok('POST', '/api/payouts', { currency: 'usd' }, 201);
    expect(first.total).toBe(300);
    await api.ok('POST', `/api/payouts/${first.id}/complete`, { failed: [ben.id] });
    const after = await api.ok('GET', '/api/commissions?sort=asc');
    expect(after.map((c: { id: string; status: string; payoutId: string | null }) => [c.id, c.status, c.payoutId])).toEqual([
      [a1.id, 'paid', first.id],
      [b1.id, 'payable', null],
    ]);
    const second = await api.ok('POST', '/api/payouts', { currency: 'usd' }, 201);
    expect(second.items.map((i: { partnerId: string }) => i.partnerId)).toEqual([ben.id]);
    await api.ok('PATCH', '/api/commissions', [{ id: b1.id, status: 'reversed' }]);
    const cancelled = await api.ok('POST', `/api/payouts/${second.id}/cancel`, {});
    expect([cancelled.status, cancelled.total]).toEqual(['cancelled', 200]);
    const [b] = await api.ok('GET', `/api/commissions?partnerId=${ben.id}`);
    expect([b.status, b.reversedReason, b.payoutId, b.earnings]).toEqual(['reversed', 'manual', null, 200]);
    const third = await api.send('POST', '/api/payouts', { currency: 'usd' });
    expect(third.statusCode).toBe(201);
    expect(third.json().items).toEqual([]);
  });

  test('two payouts asked at once: one 201, one 409; a member is refused by role', async () => {
    const api = await programClient({ minPayout: {} });
    const ana = await api.partner('Ana');
    await setPayoutDetails(ana.id, { method: 'paypal', email: 'ana@pay.example' });
    await api.custom(ana.id, 100);
    const answers = await Promise.all([api.send('POST', '/api/payouts', { currency: 'usd' }), api.send('POST', '/api/payouts', { currency: 'usd' })]);
    expect(answers.map((r) => r.statusCode).sort()).toEqual([201, 409]);
    const member = await signedInMember(t, api.ws.id, 'member');
    const refused = await asSession(t, member.cookie, 'POST', '/api/payouts', { currency: 'eur' }, { workspaceId: api.ws.id });
    expect(refused.statusCode, refused.body).toBe(403);
    expect(refused.json().error.code).toBe('owner_required');
    const bad = await api.send('POST', '/api/payouts', { currency: 'abc' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().field).toBe('currency');
  });

  test('a partner banned mid-payout: the unpaid commissions reversed, the one in the payout kept as an adjustment and taken back on completion', async () => {
    const api = await programClient({ minPayout: {} });
    const ana = await api.partner('Ana');
    await setPayoutDetails(ana.id, { method: 'paypal', email: 'ana@pay.example' });
    const [inPayout] = await api.custom(ana.id, 100);
    const payout = await api.ok('POST', '/api/payouts', { currency: 'usd' }, 201);
    const [outside] = await api.custom(ana.id, 40);
    await api.ok('PUT', '/api/partners', [{ id: ana.id, status: 'banned' }]);
    const read = async () =>
      new Map(
        (await api.ok('GET', `/api/commissions?partnerId=${ana.id}`)).map((c: Record<string, unknown>) => [
          c.id,
          [c.status, c.reversedReason, c.adjustment, c.earnings],
        ]),
      );
    expect(await read()).toEqual(
      new Map([
        [inPayout.id, ['payable', 'banned', -100, 100]],
        [outside.id, ['reversed', 'banned', null, 40]],
      ]),
    );
    expect((await api.ok('GET', `/api/payouts/${payout.id}`)).total).toBe(100);
    await api.ok('POST', `/api/payouts/${payout.id}/complete`, {});
    const after = await api.ok('GET', `/api/commissions?partnerId=${ana.id}&sort=asc`);
    expect(after.map((c: { type: string; status: string; earnings: number }) => [c.type, c.status, c.earnings])).toEqual([
      ['custom', 'paid', 100],
      ['custom', 'reversed', 40],
      ['custom', 'payable', -100],
    ]);
  });

  test('a total past 2^53 is written exactly', async () => {
    const api = await programClient({ minPayout: {} });
    const ana = await api.partner('Ana');
    await setPayoutDetails(ana.id, { method: 'paypal', email: 'ana@pay.example' });
    // 9,008 × 10^12 + 999,999,999,999 = 9,008,999,999,999,999: odd and past 2^53, so no double holds it.
    const items = Array.from({ length: 9_009 }, (_, i) => ({
      partnerId: ana.id,
      earnings: i === 0 ? 999_999_999_999 : 1e12,
      currency: 'usd',
      description: 'Big',
    }));
    const added = await api.send('POST', '/api/commissions', items);
    expect(added.statusCode, added.body.slice(0, 300)).toBe(201);
    const made = await api.send('POST', '/api/payouts', { currency: 'usd' });
    expect(made.statusCode, made.body.slice(0, 300)).toBe(201);
    expect(made.body).toContain('"total":9008999999999999');
    expect(made.body).toContain('"amount":9008999999999999');
    const csv = await api.send('GET', `/api/payouts/${made.json().id}/file?format=csv`);
    expect(csv.body).toContain(',90089999999999.99,USD');
  });
});
