/**
 * The program's webhooks (operations.md §18 Events) through the outbox: partner.enrolled when a
 * partner is created approved, commission.created for an earned and a custom commission,
 * commission.updated for a reversal and a refund, payout.completed with exact sums; each written
 * only for a workspace with an endpoint that wants it, with the record as the API shows it.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { workspaceWithCollection } from '../../helpers/client.js';
import { DESKTOP } from '../../helpers/visitors.js';
import { endpoint, eventsOf } from '../webhooks/emit-helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const TYPES = ['partner.enrolled', 'commission.created', 'commission.updated', 'payout.completed'];

async function setUp(subscribed: boolean) {
  const { ws, send, collectionId } = await workspaceWithCollection(t);
  const ok = async (method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, body?: unknown) => {
    const res = await send(method, url, body);
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
    return res.json();
  };
  if (subscribed) await endpoint(t, ws.id, TYPES);
  await ok('PUT', '/api/program', {
    name: 'P',
    slug: `e-${randomUUID().slice(0, 8)}`,
    landingUrl: 'https://shop.example/',
    currency: 'usd',
    holdingDays: 0,
    minPayout: {},
  });
  const [group] = await ok('GET', '/api/partner-groups');
  await ok('PUT', '/api/partner-groups', [{ id: group.id, rewards: [{ event: 'sale', type: 'percentage', amount: 1000 }] }]);
  const [partner] = await ok('POST', '/api/partners', [{ name: 'Ana' }]);
  const [link] = await ok('POST', '/api/links', [{ url: 'https://shop.example/a', collectionId, partnerId: partner.id }]);
  const click = await t.inject({ method: 'GET', url: new URL(link.shortUrl).pathname, headers: { 'user-agent': DESKTOP } });
  const clickId = new URL(click.headers.location as string).searchParams.get('ltid');
  const sale = await ok('POST', '/api/track/sale', { clickId, customerExternalId: 'c', customerName: 'C', amount: 1000, currency: 'usd' });
  const [bonus] = await ok('POST', '/api/commissions', [{ partnerId: partner.id, earnings: 500, currency: 'usd', description: 'Bonus' }]);
  await ok('PATCH', '/api/commissions', [{ id: bonus.id, status: 'reversed' }]);
  await ok('POST', '/api/track/refund', { saleId: sale.id, refundedAmount: 500 });
  return { ws, ok, partner, sale, bonus };
}

describe('the program’s webhooks', () => {
  test('each change writes its event with the record as the API shows it', async () => {
    const { ws, ok, partner, sale, bonus } = await setUp(true);
    await t.database.db.execute((await import('drizzle-orm')).sql`UPDATE partners SET payout_method = 'paypal' WHERE id = ${partner.id}::uuid`);
    const payout = await ok('POST', '/api/payouts', { currency: 'usd' });
    await ok('POST', `/api/payouts/${payout.id}/complete`, { reference: 'R1' });
    const enrolled = await eventsOf(t, ws.id, 'partner.enrolled');
    expect(enrolled.map((e) => [e.body.data.id, e.body.data.status])).toEqual([[partner.id, 'approved']]);
    const created = await eventsOf(t, ws.id, 'commission.created');
    expect(created.map((e) => [e.body.data.type, e.body.data.earnings, e.body.data.eventId])).toEqual([
      ['sale', 100, sale.id],
      ['custom', 500, null],
    ]);
    const updated = await eventsOf(t, ws.id, 'commission.updated');
    expect(updated.map((e) => [e.body.data.id, e.body.data.status, e.body.data.earnings])).toEqual([
      [bonus.id, 'reversed', 500],
      [created[0]!.body.data.id, 'payable', 50],
    ]);
    const [completed] = await eventsOf(t, ws.id, 'payout.completed');
    expect(completed!.body.data).toMatchObject({
      id: payout.id,
      status: 'completed',
      reference: 'R1',
      total: 50,
      items: [{ partnerId: partner.id, amount: 50 }],
    });
  });

  test('nothing is written for a workspace without an endpoint that wants them', async () => {
    const { ws } = await setUp(false);
    for (const type of TYPES) expect(await eventsOf(t, ws.id, type)).toEqual([]);
  });
});
