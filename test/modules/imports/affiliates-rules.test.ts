/**
 * The rules around moving in from an affiliate tool (operations.md §18 "Moving in"), through
 * HTTP: no program, no import (409 `program_required`, nothing stored); the write scopes each
 * kind of file needs; a file of neither kind is a 400; a partner already here keeps what they
 * have and gains what they lack, a payout e-mail only without details; a customer another
 * partner won stays theirs; `maxDuration` counts from the date the file says the customer was
 * referred; a Stripe renewal finds the customer by the Stripe id the file gave.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { workspaceWithCollection } from '../../helpers/client.js';
import { SCOPES } from '../../../src/core/scopes.js';
import { importClient } from './job-helpers.js';
import { SIGNING_SECRET, connectStripe, postEvent, receivedEvents, stripeEvent, stripeId } from '../stripe/helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const PARTNERS = ['first_name,last_name,email,paypal_email,links.token,coupon.token', 'Ada,Lovelace,ada@example.com,ada.pay@example.com,ada,ADA10'].join('\n');

async function workspace(program: boolean, saleReward: Record<string, unknown> = {}) {
  const { ws, send } = await workspaceWithCollection(t);
  const ok = async (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown, status = 200) => {
    const res = await send(method, url, body);
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(status);
    return res.json();
  };
  if (program) {
    await ok('PUT', '/api/program', { name: 'Friends', slug: `mr-${randomUUID().slice(0, 8)}`, landingUrl: 'https://shop.example/', currency: 'usd' });
    const [group] = await ok('GET', '/api/partner-groups');
    await ok('PUT', '/api/partner-groups', [{ id: group.id, rewards: [{ event: 'sale', type: 'percentage', amount: 1000, ...saleReward }] }]);
  }
  return { ws, ok, imports: importClient(t, ws) };
}

test('a workspace without a program: 409 program_required before the job starts, nothing stored', async () => {
  const { ok, imports } = await workspace(false);
  const res = await imports.post('source=rewardful', PARTNERS);
  expect(res.statusCode, res.body).toBe(409);
  expect(res.json().error).toMatchObject({ code: 'program_required' });
  expect(res.json().error.ar).toMatch(/[\u0600-\u06FF]/);
  expect(await ok('GET', '/api/imports')).toEqual([]);
  expect(await ok('GET', '/api/partners')).toEqual([]);
});

test('each kind of file needs its write scopes (403 missing_scopes), and a file of neither kind is a 400', async () => {
  const { ws, imports } = await workspace(true);
  const noProgram = await ws.newKey(SCOPES.filter((s) => s !== 'programsWrite'));
  const partners = await imports.post('source=rewardful', PARTNERS, noProgram.key);
  expect(partners.statusCode, partners.body).toBe(403);
  expect(partners.json()).toMatchObject({ error: { code: 'missing_scopes' }, missingScopes: ['programsWrite'] });
  const referrals = ['customer.id,customer.email,affiliate.email', 'cus_1,cam@example.org,ada@example.com'].join('\n');
  const noConversions = await ws.newKey(SCOPES.filter((s) => s !== 'conversionsWrite'));
  const res = await imports.post('source=rewardful', referrals, noConversions.key);
  expect(res.statusCode, res.body).toBe(403);
  expect(res.json()).toMatchObject({ error: { code: 'missing_scopes' }, missingScopes: ['conversionsWrite'] });
  // The preview names the columns read and counts the rows (they are partners or customers: none shown as links).
  const preview = await imports.send('POST', '/api/imports/preview?source=rewardful', { payload: referrals, type: 'text/csv' });
  expect(preview.statusCode, preview.body).toBe(200);
  expect(preview.json()).toMatchObject({
    source: 'rewardful',
    total: 1,
    rows: [],
    mapping: { customerExternalId: 'customer.id', customerEmail: 'customer.email', partnerEmail: 'affiliate.email' },
  });
  const links = await imports.post('source=tolt', 'url,title\nhttps://shop.example/a,A');
  expect(links.statusCode, links.body).toBe(400);
  expect(links.json().error.code).toBe('import_no_affiliate_columns');
});

test('a partner already here keeps what they have and gains what they lack; a payout e-mail only without details, as a change', async () => {
  const { ok, imports } = await workspace(true);
  const [made] = await ok('POST', '/api/partners', [{ name: 'Ada L.', email: 'ADA@example.com', couponCodes: ['OWN5'] }], 201);
  expect(made.payoutMethod).toBeNull();
  const job = await imports.run('source=rewardful', PARTNERS);
  expect(job).toMatchObject({ status: 'done', created: 0, updated: 1, unchanged: 0, failed: 0 });
  const [ada] = await ok('GET', '/api/partners');
  // Matched by e-mail ignoring case; the name and the key the owner's write gave stay.
  expect(ada).toMatchObject({ id: made.id, name: 'Ada L.', referralKey: made.referralKey, couponCodes: ['OWN5', 'ADA10'], payoutMethod: 'paypal' });
  expect(ada.payoutDetailsChangedAt).not.toBeNull();
  expect(await imports.run('source=rewardful', PARTNERS)).toMatchObject({ created: 0, updated: 0, unchanged: 1 });
});

test("a customer another partner won stays theirs; maxDuration counts from the file's referral date", async () => {
  const { ok, imports } = await workspace(true, { maxDuration: 12 });
  const partners = ['first_name,last_name,email,links.token', 'Ada,Lovelace,ada@example.com,ada', 'Grace,Hopper,grace@example.com,grace'].join('\n');
  expect(await imports.run('source=rewardful', partners)).toMatchObject({ created: 2, failed: 0 });
  const day = 86_400_000;
  const longAgo = new Date(Date.now() - 400 * day).toISOString();
  const lately = new Date(Date.now() - 30 * day).toISOString();
  const referrals = [
    'customer.id,customer.email,link.token,became_conversion_at',
    `cus_old,old@example.org,ada,${longAgo}`,
    `cus_new,new@example.org,ada,${lately}`,
    `cus_new,new@example.org,grace,${lately}`,
  ].join('\n');
  const job = await imports.run('source=rewardful', referrals);
  expect(job).toMatchObject({ created: 2, failed: 1 });
  expect(await imports.errors((job as unknown as { id: string }).id)).toMatch(/\n4,customerExternalId,duplicate_record_in_file,/);
  // In a later file, the customer Ada won is not Grace's.
  const again = await imports.run('source=rewardful', ['customer.id,link.token', 'cus_new,grace'].join('\n'));
  expect(again).toMatchObject({ created: 0, updated: 0, failed: 1 });
  expect(await imports.errors((again as unknown as { id: string }).id)).toMatch(/\n2,customerExternalId,customer_won_by_other,/);

  const sale = (customerExternalId: string) => ok('POST', '/api/track/sale', { customerExternalId, customerName: 'Buyer', amount: 10_000, currency: 'usd' });
  // Referred 400 days ago: twelve months from then are over, the renewal earns nothing.
  await sale('cus_old');
  expect(await ok('GET', '/api/commissions')).toEqual([]);
  await sale('cus_new');
  const commissions: { earnings: number; type: string }[] = await ok('GET', '/api/commissions');
  expect(commissions).toMatchObject([{ type: 'sale', earnings: 1000 }]);
});

test("a Stripe renewal of an imported customer (§12's invoice.paid, by the file's Stripe customer id) earns for their partner", async () => {
  const { ws, ok, imports } = await workspace(true);
  expect(await imports.run('source=rewardful', PARTNERS)).toMatchObject({ created: 1 });
  const [ada] = await ok('GET', '/api/partners');
  const cus = stripeId('cus');
  const referrals = ['customer.id,customer.email,link.token,became_conversion_at', `${cus},cam@example.org,ada,2024-03-15T10:00:00Z`].join('\n');
  expect(await imports.run('source=rewardful', referrals)).toMatchObject({ created: 1, failed: 0 });
  const connection = await connectStripe(t, ws);
  const invoice = {
    id: stripeId('in'),
    payment_intent: stripeId('pi'),
    amount_paid: 1900,
    currency: 'usd',
    customer: cus,
    customer_email: 'other@example.org',
  };
  const res = await postEvent(t, connection.webhookUrl, stripeEvent('invoice.paid', invoice), SIGNING_SECRET);
  expect(res.statusCode, res.body).toBe(200);
  const [received] = await receivedEvents(t, ws.key, '?take=1');
  expect(received).toMatchObject({ outcome: 'renewal', reason: null });
  expect(await ok('GET', '/api/commissions')).toMatchObject([{ partnerId: ada.id, type: 'sale', saleAmount: 1900, earnings: 190 }]);
});
