/**
 * Rollup slots lent to tracked events (analytics/rollup-slots.ts): an event takes the slot the
 * fewest of this instance's events hold, and writes every rollup row it adds (counts, money, its
 * link's day and money) on that one slot, so two events in flight on one instance do not wait
 * for each other's rows. Through HTTP for plain events and for a partner's, whose rollups are
 * written last, in the commission's statement.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { onRollupSlot, releaseRollupSlot, ROLLUP_SLOTS, takeRollupSlot } from '../../../src/modules/analytics/rollup-slots.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { workspaceWithCollection } from '../../helpers/client.js';
import { DESKTOP } from '../../helpers/visitors.js';

describe('lending rollup slots', () => {
  it('lends the least-held slot: eight events in flight hold eight slots, sixteen hold each twice', () => {
    const first = Array.from({ length: ROLLUP_SLOTS }, () => takeRollupSlot());
    expect(new Set(first).size).toBe(ROLLUP_SLOTS);
    const second = Array.from({ length: ROLLUP_SLOTS }, () => takeRollupSlot());
    expect([...second].sort()).toEqual([...first].sort());
    for (const s of [...first, ...second]) releaseRollupSlot(s);
  });

  it('lends a slot given back before any other still held; onRollupSlot gives it back when the write throws', async () => {
    const held = Array.from({ length: ROLLUP_SLOTS }, () => takeRollupSlot());
    releaseRollupSlot(held[3]!);
    expect(takeRollupSlot()).toBe(held[3]);
    releaseRollupSlot(held[5]!);
    await expect(
      onRollupSlot(async (slot) => {
        expect(slot).toBe(held[5]);
        throw new Error('the write failed');
      }),
    ).rejects.toThrow('the write failed');
    // Given back: lent again next, ahead of the seven still held.
    expect(takeRollupSlot()).toBe(held[5]);
    for (const s of held) releaseRollupSlot(s);
  });
});

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

/** A workspace with a program (leads and sales earn), a partner's link and a plain link. */
async function workspace() {
  const { ws, send, collectionId } = await workspaceWithCollection(t);
  const ok = async (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown, status = 200) => {
    const res = await send(method, url, body);
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(status);
    return res.json();
  };
  await ok('PUT', '/api/program', { name: 'Slots', slug: `s-${randomUUID().slice(0, 8)}`, landingUrl: 'https://shop.example/', currency: 'usd' });
  const [group] = await ok('GET', '/api/partner-groups');
  await ok('PUT', '/api/partner-groups', [
    {
      id: group.id,
      rewards: [
        { event: 'lead', type: 'flat', amount: 300 },
        { event: 'sale', type: 'flat', amount: 100 },
      ],
    },
  ]);
  const [partner] = await ok('POST', '/api/partners', [{ name: 'Ana', email: `ana-${randomUUID().slice(0, 6)}@partner.example` }], 201);
  const link = async (partnerId?: string) => {
    const [made] = await ok('POST', '/api/links', [{ url: 'https://shop.example/', collectionId, partnerId }], 201);
    return new URL(made.shortUrl).pathname;
  };
  const click = async (path: string) => {
    const res = await t.inject({ method: 'GET', url: path, remoteAddress: '81.2.69.160', headers: { 'user-agent': DESKTOP } });
    expect(res.statusCode, res.body).toBe(302);
    return new URL(res.headers.location as string).searchParams.get('ltid')!;
  };
  return { ws, ok, partnerId: partner.id as string, link, click };
}

/** The slots of the workspace's rollup rows that count its leads or sales, by table. */
async function slotsOf(workspaceId: string, counted: 'leads' | 'sales') {
  const found = await rows<{ table: string; slot: number }>(
    t.database.db,
    sql`SELECT DISTINCT 'analytics_rollups' AS table, slot FROM analytics_rollups WHERE workspace_id = ${workspaceId}::uuid AND ${sql.raw(counted)} > 0
        UNION SELECT DISTINCT 'link_daily_stats', slot FROM link_daily_stats WHERE workspace_id = ${workspaceId}::uuid AND ${sql.raw(counted)} > 0
        UNION SELECT DISTINCT 'analytics_revenue_rollups', slot FROM analytics_revenue_rollups WHERE workspace_id = ${workspaceId}::uuid AND sales > 0 AND ${counted === 'sales'}
        UNION SELECT DISTINCT 'link_daily_revenue', slot FROM link_daily_revenue WHERE workspace_id = ${workspaceId}::uuid AND amount > 0 AND ${counted === 'sales'}`,
  );
  return { tables: new Set(found.map((r) => r.table)), slots: new Set(found.map((r) => Number(r.slot))) };
}

describe("a tracked event's rollup rows", () => {
  for (const side of ['plain', 'partner'] as const) {
    it(`are all on one slot, for a lead and a sale on a ${side} link`, async () => {
      const w = await workspace();
      const clickId = await w.click(await w.link(side === 'partner' ? w.partnerId : undefined));
      await w.ok('POST', '/api/track/lead', { clickId, eventName: 'Sign up', customerExternalId: 'cam', customerName: 'Cam' });
      const leads = await slotsOf(w.ws.id, 'leads');
      expect([...leads.tables].sort()).toEqual(['analytics_rollups', 'link_daily_stats']);
      expect(leads.slots.size).toBe(1);
      await w.ok('POST', '/api/track/sale', { customerExternalId: 'cam', customerName: 'Cam', amount: 4900, currency: 'usd' });
      const sales = await slotsOf(w.ws.id, 'sales');
      expect([...sales.tables].sort()).toEqual(['analytics_revenue_rollups', 'analytics_rollups', 'link_daily_revenue', 'link_daily_stats']);
      expect(sales.slots.size).toBe(1);
      // The partner's events earned: their rollups were written with the commissions.
      const commissions = await w.ok('GET', `/api/commissions?partnerId=${w.partnerId}`);
      expect(commissions.length).toBe(side === 'partner' ? 2 : 0);
    });
  }
});
