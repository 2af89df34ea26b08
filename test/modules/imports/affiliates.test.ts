/**
 * Moving in from an affiliate tool (operations.md §18 "Moving in"), through HTTP as a client
 * would, for each tool's sample (affiliates-samples.ts): the partners file makes approved
 * partners in the group `default` with their keys, coupon codes, payout e-mail and default link;
 * the referrals file wins each customer for their partner with a lead `Imported referral` dated
 * as in the file and pays nothing; a row naming an unknown partner is rejected with its reason;
 * the same files again change nothing; a later sale of an imported customer earns for the partner.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { workspaceWithCollection } from '../../helpers/client.js';
import { REFERRED_AT, SAMPLES, type AffiliateSample } from './affiliates-samples.js';
import { importClient } from './job-helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

interface Partner {
  id: string;
  name: string;
  email: string | null;
  status: string;
  groupId: string | null;
  referralKey: string | null;
  couponCodes: string[];
  defaultLinkId: string | null;
  payoutMethod: string | null;
  payoutDestination: string | null;
  payoutDetailsChangedAt: string | null;
}

/** A workspace with a program paying 10 % of sales (and 200 a lead, which imported leads must not earn). */
async function programWorkspace(saleReward: Record<string, unknown> = {}) {
  const { ws, send } = await workspaceWithCollection(t);
  const ok = async (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown, status = 200) => {
    const res = await send(method, url, body);
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(status);
    return res.json();
  };
  await ok('PUT', '/api/program', { name: 'Friends', slug: `mi-${randomUUID().slice(0, 8)}`, landingUrl: 'https://shop.example/', currency: 'usd' });
  const [group] = await ok('GET', '/api/partner-groups');
  await ok('PUT', '/api/partner-groups', [
    {
      id: group.id,
      rewards: [
        { event: 'lead', type: 'flat', amount: 200 },
        { event: 'sale', type: 'percentage', amount: 1000, ...saleReward },
      ],
    },
  ]);
  return { ws, ok, groupId: group.id as string, imports: importClient(t, ws) };
}

describe.each(SAMPLES)('source=$source', (sample: AffiliateSample) => {
  test('partners, then their referred customers: won, dated, paying nothing; again: nothing changes; a later sale earns', async () => {
    const { ok, groupId, imports } = await programWorkspace();

    const partnersJob = await imports.run(`source=${sample.source}`, sample.partners);
    expect(partnersJob).toMatchObject({ status: 'done', total: 2, created: 2, updated: 0, unchanged: 0, failed: 0 });
    const partners: Partner[] = await ok('GET', '/api/partners?take=100&sort=asc');
    const ada = partners.find((p) => p.email === 'ada@example.com')!;
    const grace = partners.find((p) => p.email === 'grace@example.com')!;
    expect(ada).toMatchObject({ name: 'Ada Lovelace', status: 'approved', groupId, referralKey: 'ada', couponCodes: ['ADA10'] });
    expect(ada).toMatchObject({ payoutMethod: 'paypal', payoutDestination: 'a•••@example.com' });
    // An import's setting counts as a change of details (§18 "Payouts").
    expect(ada.payoutDetailsChangedAt).not.toBeNull();
    expect(grace).toMatchObject({ name: 'Grace Hopper', status: 'approved', groupId, referralKey: 'grace', couponCodes: [], payoutMethod: null });
    // Approved: the default-link machinery made their links in the import's write.
    expect(ada.defaultLinkId).not.toBeNull();
    expect(grace.defaultLinkId).not.toBeNull();

    const referralsJob = await imports.run(`source=${sample.source}`, sample.referrals);
    expect(referralsJob).toMatchObject({ status: 'done', total: 3, created: 2, updated: 0, unchanged: 0, failed: 1 });
    const errors = await imports.errors((referralsJob as unknown as { id: string }).id);
    expect(errors.split('\n')[1]).toMatch(/^4,partner(Key|Email),partner_unknown,/);

    const customers: { id: string; externalId: string; partnerId: string | null }[] = await ok('GET', '/api/customers?take=100');
    const byExternal = new Map(customers.map((c) => [c.externalId, c]));
    expect(customers).toHaveLength(2);
    expect(byExternal.get(sample.customers[0])?.partnerId).toBe(ada.id);
    expect(byExternal.get(sample.customers[1])?.partnerId).toBe(grace.id);

    const leads: { eventName: string; linkId: string; customerExternalId: string; createdAt: string; metadata: unknown }[] = await ok(
      'GET',
      '/api/events?type=lead&take=100&startDate=2020-01-01T00:00:00.000Z',
    );
    const adaLead = leads.find((l) => l.customerExternalId === sample.customers[0])!;
    expect(adaLead).toMatchObject({ eventName: 'Imported referral', linkId: ada.defaultLinkId, createdAt: REFERRED_AT[0] });
    expect(adaLead.metadata).toEqual({ source: 'import', importedFrom: sample.source });
    expect(leads.find((l) => l.customerExternalId === sample.customers[1])).toMatchObject({ linkId: grace.defaultLinkId, createdAt: REFERRED_AT[1] });
    // Imports never earn: what the old tool paid is not paid again.
    expect(await ok('GET', '/api/commissions')).toEqual([]);

    expect(await imports.run(`source=${sample.source}`, sample.partners)).toMatchObject({ status: 'done', created: 0, updated: 0, unchanged: 2, failed: 0 });
    expect(await imports.run(`source=${sample.source}`, sample.referrals)).toMatchObject({ status: 'done', created: 0, updated: 0, unchanged: 2, failed: 1 });
    expect(await ok('GET', '/api/customers?take=100')).toHaveLength(2);
    expect(await ok('GET', '/api/events?type=lead&take=100&startDate=2020-01-01T00:00:00.000Z')).toHaveLength(2);

    // A renewal tracked here reaches Ada through the imported lead and earns for her.
    await ok('POST', '/api/track/sale', { customerExternalId: sample.customers[0], customerName: 'Cam Buyer', amount: 5000, currency: 'usd' });
    const commissions: { partnerId: string; type: string; earnings: number; customerId: string }[] = await ok('GET', '/api/commissions');
    expect(commissions).toHaveLength(1);
    expect(commissions[0]).toMatchObject({ partnerId: ada.id, type: 'sale', earnings: 500, customerId: byExternal.get(sample.customers[0])!.id });
  });
});
