/**
 * A payout's claim against a write on the same commissions (operations.md §18: a refund or
 * reversal arriving while a payout is being made). The claim writes payout_claim_sets rows under a
 * workspace lock that such writes take shared before they read; here a raw session holds that
 * lock as a claim in flight does, claims a commission and commits, while PATCH /api/commissions
 * reverses it: the reversal must wait, then find the commission inside the payout and keep it
 * there as an adjustment, never reverse a commission the payout already counts. PostgreSQL only:
 * PGlite runs one statement at a time, so nothing can be in flight beside the claim.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { onPostgres, startTestApp, type TestApp } from '../../helpers/app.js';
import { workspaceWithCollection } from '../../helpers/client.js';
import { answered, within } from '../../helpers/wait.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe.runIf(onPostgres)('a payout claim in flight', () => {
  test('a reversal waits for it, then keeps the claimed commission in the payout as an adjustment', async () => {
    const { ws, send } = await workspaceWithCollection(t);
    const ok = async (method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, body?: unknown, status = 200) => {
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
    });
    const [partner] = await ok('POST', '/api/partners', [{ name: 'Ana' }], 201);
    const [commission] = await ok('POST', '/api/commissions', [{ partnerId: partner.id, earnings: 5000, currency: 'usd', description: 'Bonus' }], 201);

    const claim = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await claim.connect();
    try {
      await claim.query('BEGIN');
      const payoutId = randomUUID();
      await claim.query(`INSERT INTO payouts (id, workspace_id, currency, status, total) VALUES ($1, $2, 'usd', 'pending', 5000)`, [payoutId, ws.id]);
      await claim.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`payout-claims:${ws.id}`]);

      const reversal = send('PATCH', '/api/commissions', [{ id: commission.id, status: 'reversed' }]);
      // The reversal is waiting on the claims lock, not done before the claim.
      const waiting = await within(10_000, async () => {
        const r = await claim.query(`SELECT count(*)::int AS n FROM pg_stat_activity
           WHERE datname = current_database() AND wait_event = 'advisory'`);
        return r.rows[0].n > 0;
      });
      expect(waiting).toBe(true);
      await claim.query(`INSERT INTO payout_claim_sets (payout_id, partner_id, first_id, last_id, commission_ids) VALUES ($1, $2, $3, $3, ARRAY[$3::uuid])`, [
        payoutId,
        partner.id,
        commission.id,
      ]);
      await claim.query('COMMIT');

      const res = await answered('the reversal', 20_000, reversal);
      expect(res.statusCode, res.body).toBe(200);
      const [changed] = res.json();
      // Inside the payout: still counted there (not reversed), the reversal kept as the adjustment.
      expect(changed).toMatchObject({ id: commission.id, payoutId, adjustment: -5000, reversedReason: 'manual' });
      expect(changed.status).not.toBe('reversed');
    } finally {
      await claim.end();
    }
  });
});
