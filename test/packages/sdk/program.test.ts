/**
 * The SDK's partner program (operations.md §18) against the live service: the program, its
 * groups, commissions (created, listed with filters across pages, reversed), a refund that
 * moves a sale's commission, and payouts (created, listed, read, their CSV files in parts,
 * completed, cancelled). A total past 2^53 arrives rounded, as the SDK documents, while the
 * CSV file carries it exactly.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sealer } from '../../../src/core/sealed.js';
import { Linktrail, LinktrailError } from '../../../packages/sdk/src/index.js';
import { SECRET } from '../../helpers/app.js';
import { click, countingClient, startLiveServer, type LiveServer } from './live.js';

let live: LiveServer;
const sealer = new Sealer(SECRET);

beforeAll(async () => {
  live = await startLiveServer();
});

afterAll(async () => {
  await live?.close();
});

/** A client of a new workspace, its program made with `program`'s settings. */
async function programClient(program: Record<string, unknown> = {}) {
  const ws = await live.t.workspace({ rateLimitPerMinute: 1_000_000 });
  const counted = countingClient({ apiKey: ws.key, baseUrl: live.baseUrl });
  await counted.client.program.put({
    name: 'Friends',
    slug: `f-${randomUUID().slice(0, 8)}`,
    landingUrl: 'https://shop.example/',
    currency: 'usd',
    holdingDays: 0,
    minPayout: {},
    ...program,
  });
  return counted;
}

/** Payout details as the partner portal will set them (sealed with SECRET, masked beside). */
async function setPayoutDetails(partnerId: string, email: string) {
  const masked = `${email[0]}•••${email.slice(email.indexOf('@'))}`;
  const sealed = sealer.seal('payout-details', JSON.stringify({ method: 'paypal', email }));
  await live.t.database.db.execute(
    sql`UPDATE partners SET payout_method = 'paypal', payout_details_sealed = ${sealed}, payout_destination_masked = ${masked} WHERE id = ${partnerId}::uuid`,
  );
}

async function failure(p: Promise<unknown>): Promise<LinktrailError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LinktrailError);
  return error as LinktrailError;
}

describe('program and partner groups', () => {
  it('get is 404 before the first put; put makes it; groups are listed, created, upserted, deleted', async () => {
    const ws = await live.t.workspace({ rateLimitPerMinute: 1_000_000 });
    const client = new Linktrail({ apiKey: ws.key, baseUrl: live.baseUrl });
    expect(await failure(client.program.get())).toMatchObject({ status: 404, code: 'not_found' });
    const slug = `p-${randomUUID().slice(0, 8)}`;
    const made = await client.program.put({ name: 'Friends', slug, landingUrl: 'https://shop.example/', currency: 'usd' });
    expect(made).toMatchObject({ name: 'Friends', slug, currency: 'usd', holdingDays: 30, minPayout: { usd: 5000 } });
    expect(await client.program.put({ name: 'Friends', slug, landingUrl: 'https://shop.example/', currency: 'usd', holdingDays: 7 })).toMatchObject({
      id: made.id,
      holdingDays: 7,
    });
    expect(await client.program.get()).toMatchObject({ id: made.id, holdingDays: 7 });

    expect((await client.partnerGroups.list().toArray()).map((g) => g.name)).toEqual(['default']);
    const [vip] = await client.partnerGroups.create([{ name: 'vip', rewards: [{ event: 'sale', type: 'flat', amount: 600 }] }]);
    expect(vip).toMatchObject({ name: 'vip' });
    const [renamed] = await client.partnerGroups.upsert([{ id: vip!.id, name: 'gold' }]);
    expect(renamed!.name).toBe('gold');
    expect((await client.partnerGroups.list({ sort: 'asc' }).toArray()).map((g) => g.name)).toEqual(['default', 'gold']);
    expect(await client.partnerGroups.delete([vip!.id])).toEqual({ deletedIds: [vip!.id] });
    const [defaultGroup] = await client.partnerGroups.list().toArray();
    expect(await failure(client.partnerGroups.delete([defaultGroup!.id]))).toMatchObject({ status: 400, code: 'default_group' });
  });
});

describe('commissions and refunds', () => {
  it('create, list with filters page by page, update (reverse); a refund moves the sale commission', async () => {
    const { client, sent } = await programClient();
    const [group] = await client.partnerGroups.list().toArray();
    await client.partnerGroups.upsert([{ id: group!.id, rewards: [{ event: 'sale', type: 'flat', amount: 600 }] }]);
    const [ana, ben] = await client.partners.create([{ name: 'Ana' }, { name: 'Ben' }]);

    const made = await client.commissions.create([
      { partnerId: ana!.id, earnings: 100, currency: 'usd', description: 'Bonus 1' },
      { partnerId: ana!.id, earnings: 200, currency: 'usd', description: 'Bonus 2' },
      { partnerId: ana!.id, earnings: 300, currency: 'eur', description: 'Bonus 3' },
      { partnerId: ben!.id, earnings: -50, currency: 'usd', description: 'Correction' },
    ]);
    expect(made.map((c) => [c.type, c.status, c.earnings, c.currency])).toEqual([
      ['custom', 'payable', 100, 'usd'],
      ['custom', 'payable', 200, 'usd'],
      ['custom', 'payable', 300, 'eur'],
      ['custom', 'payable', -50, 'usd'],
    ]);

    sent.length = 0;
    const anaUsd = await client.commissions.list({ partnerId: ana!.id, currency: 'usd', sort: 'asc', pageSize: 1 }).toArray();
    expect(anaUsd.map((c) => c.id)).toEqual([made[0]!.id, made[1]!.id]);
    // Pages of one: two full pages and the empty one that ends them.
    expect(sent.map((s) => [s.url.pathname, s.url.searchParams.get('skip'), s.url.searchParams.get('take'), s.url.searchParams.get('partnerId')])).toEqual([
      ['/api/commissions', '0', '1', ana!.id],
      ['/api/commissions', '1', '1', ana!.id],
      ['/api/commissions', '2', '1', ana!.id],
    ]);

    const [reversed] = await client.commissions.update([{ id: made[3]!.id, status: 'reversed' }]);
    expect([reversed!.status, reversed!.reversedReason]).toEqual(['reversed', 'manual']);
    expect((await client.commissions.list({ status: 'reversed' }).toArray()).map((c) => c.id)).toEqual([made[3]!.id]);
    const moved = await failure(client.commissions.update([{ id: made[0]!.id, status: 'pending' }]));
    expect(moved).toMatchObject({ status: 400, field: '[0].status' });

    // A sale on Ana's link earns 600; a half refund halves it, a whole one reverses it (earnings 0).
    const [link] = await client.links.create([{ url: 'https://shop.example/a', collectionId: (await client.program.get()).collectionId, partnerId: ana!.id }]);
    const clickId = await click(live.t, link!.shortUrl);
    const sale = await client.track.sale({ clickId, customerExternalId: 'c1', customerName: 'C', amount: 5_000, currency: 'usd' });
    const saleCommission = async () => (await client.commissions.list({ type: 'sale' }).toArray()).map((c) => [c.status, c.earnings, c.reversedReason]);
    expect(await saleCommission()).toEqual([['payable', 600, null]]);
    expect(await client.track.refund({ saleId: sale.id, refundedAmount: 2_500 })).toMatchObject({ id: sale.id, refundedAmount: 2_500 });
    expect(await saleCommission()).toEqual([['payable', 300, null]]);
    await client.track.refund({ saleId: sale.id, refundedAmount: 5_000 });
    expect(await saleCommission()).toEqual([['reversed', 0, 'refund']]);
  });
});

describe('payouts', () => {
  it('create, list, get, the CSV files, complete once; another cancelled', async () => {
    const { client, sent } = await programClient();
    const [ana, ben] = await client.partners.create([{ name: 'Ana' }, { name: 'Ben' }]);
    await setPayoutDetails(ana!.id, 'ana@pay.example');
    await setPayoutDetails(ben!.id, 'ben@pay.example');
    await client.commissions.create([
      { partnerId: ana!.id, earnings: 1_234, currency: 'usd', description: 'Bonus' },
      { partnerId: ben!.id, earnings: 500, currency: 'usd', description: 'Bonus' },
      { partnerId: ana!.id, earnings: 700, currency: 'eur', description: 'Bonus' },
    ]);

    const payout = await client.payouts.create({ currency: 'usd', partnerIds: [ana!.id] });
    expect(payout).toMatchObject({ status: 'pending', currency: 'usd', total: 1_234, skipped: [] });
    expect(payout.items.map((i) => [i.partnerId, i.amount, i.method, i.destination])).toEqual([[ana!.id, 1_234, 'paypal', 'a•••@pay.example']]);
    expect(await failure(client.payouts.create({ currency: 'usd' }))).toMatchObject({ status: 409, code: 'payout_pending' });
    expect(await client.payouts.get(payout.id)).toEqual(payout);

    sent.length = 0;
    const file = await client.payouts.file(payout.id, { format: 'paypal' });
    expect(file).toEqual({
      csv: `ana@pay.example,12.34,USD,${ana!.id.replaceAll('-', '').slice(0, 30)},Payout ${payout.id.slice(0, 8)},PAYPAL\r\n`,
      part: 1,
      parts: 1,
      filename: expect.stringMatching(/\.csv$/),
    });
    expect(sent.map((s) => s.url.search)).toEqual(['?format=paypal&part=1']);
    const csv = await client.payouts.file(payout.id, { format: 'csv', part: 1 });
    expect(csv.csv.split('\r\n')[1]).toBe(`Ana,${ana!.id},paypal,a•••@pay.example,12.34,USD`);
    expect(await failure(client.payouts.file(payout.id, { format: 'csv', part: 2 }))).toMatchObject({ status: 400, field: 'part' });

    const done = await client.payouts.complete(payout.id, { reference: 'PP-1' });
    expect([done.status, done.reference, done.total]).toEqual(['completed', 'PP-1', 1_234]);
    expect(await failure(client.payouts.complete(payout.id))).toMatchObject({ status: 409, code: 'payout_not_pending' });
    expect((await client.commissions.list({ partnerId: ana!.id, currency: 'usd' }).toArray()).map((c) => c.status)).toEqual(['paid']);

    const second = await client.payouts.create({ currency: 'usd' });
    expect(second.items.map((i) => [i.partnerId, i.amount])).toEqual([[ben!.id, 500]]);
    const cancelled = await client.payouts.cancel(second.id);
    expect([cancelled.status, cancelled.total]).toEqual(['cancelled', 500]);
    expect(await failure(client.payouts.cancel(second.id))).toMatchObject({ status: 409, code: 'payout_not_pending' });

    const listed = await client.payouts.list({ sort: 'asc' }).toArray();
    expect(listed.map((p) => [p.id, p.status, p.total])).toEqual([
      [payout.id, 'completed', 1_234],
      [second.id, 'cancelled', 500],
    ]);
    expect(listed[0]).not.toHaveProperty('items');
    expect((await client.payouts.list({ status: 'cancelled' }).toArray()).map((p) => p.id)).toEqual([second.id]);
  });

  it('a total past 2^53 arrives as the nearest double (JSON.parse), and exactly in the CSV file', async () => {
    const { client } = await programClient();
    const [ana] = await client.partners.create([{ name: 'Ana' }]);
    await setPayoutDetails(ana!.id, 'ana@pay.example');
    // 9,008 × 10^12 + 999,999,999,999 = 9,008,999,999,999,999: odd and past 2^53, so no double holds it.
    const items = Array.from({ length: 9_009 }, (_, i) => ({
      partnerId: ana!.id,
      earnings: i === 0 ? 999_999_999_999 : 1e12,
      currency: 'usd',
      description: 'Big',
    }));
    await client.commissions.create(items);
    const payout = await client.payouts.create({ currency: 'usd' });
    expect(payout.total).toBe(9_009_000_000_000_000);
    expect(Number.isSafeInteger(payout.total)).toBe(false);
    expect(payout.items[0]!.amount).toBe(9_009_000_000_000_000);
    const { csv } = await client.payouts.file(payout.id, { format: 'csv' });
    expect(csv).toContain(',90089999999999.99,USD');
    expect((await client.payouts.list().toArray()).map((p) => p.total)).toEqual([9_009_000_000_000_000]);
  });
});
