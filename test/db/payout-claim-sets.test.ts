/**
 * Migration 0046 on a database holding payouts from before it: the schema up to 0045, a pending
 * payout claimed row by row in payout_claims (0044), then 0046. Each partner's claims become one
 * set, its ids oldest first and bounded by first_id/last_id; the API then shows every claimed
 * commission in its payout, an unclaimed one in none, and completing the payout pays exactly the
 * claimed ones.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Database } from '../../src/db/connect.js';
import { newId } from '../../src/db/ids.js';
import { loadMigrations, migrate } from '../../src/db/migrate.js';
import { bearer, startTestApp, type TestApp } from '../helpers/app.js';
import { dropFreshDatabases, freshDatabase } from '../helpers/fresh-database.js';

const query = <T = Record<string, unknown>>(db: Database, text: string, params?: unknown[]) => db.withSession((s) => s.query<T>(text, params));

let database: Database;
let t: TestApp | undefined;
const workspaceId = randomUUID();
const payoutId = newId();
const partners = [randomUUID(), randomUUID()];
/** Per partner: the claimed commissions in creation order (ids made out of order on purpose), then one unclaimed. */
const claimed = new Map<string, string[]>();
const unclaimed: string[] = [];

beforeAll(async () => {
  database = await freshDatabase();
  const all = await loadMigrations();
  expect(all.filter((m) => m.name.startsWith('0046')).map((m) => m.name)).toEqual(['0046_payout_claim_sets.sql']);
  await migrate(
    database,
    all.filter((m) => m.name < '0046'),
  );
  const collection = randomUUID();
  await query(database, `INSERT INTO workspaces (id, name, plan) VALUES ($1, 'before 0046', 'enterprise')`, [workspaceId]);
  await query(database, `INSERT INTO collections (id, workspace_id, name) VALUES ($1, $2, 'c')`, [collection, workspaceId]);
  await query(
    database,
    `INSERT INTO programs (id, workspace_id, name, slug, currency, holding_days, attribution_days, collection_id, settings)
     VALUES ($1, $2, 'Friends', $3, 'usd', 0, 90, $4, '{}')`,
    [randomUUID(), workspaceId, `f-${workspaceId.slice(0, 8)}`, collection],
  );
  await query(database, `INSERT INTO payouts (id, workspace_id, status, currency, total) VALUES ($1, $2, 'pending', 'usd', 0)`, [payoutId, workspaceId]);
  let minute = 0;
  for (const partner of partners) {
    await query(database, `INSERT INTO partners (id, workspace_id, name, status) VALUES ($1, $2, 'P', 'approved')`, [partner, workspaceId]);
    // Random ids: the oldest is not the smallest, so the set's order and its bounds differ.
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    for (const id of [...ids, id0(partner)]) {
      minute += 1;
      await query(
        database,
        `INSERT INTO commissions (id, workspace_id, partner_id, type, currency, original_earnings, earnings, status, payable_at, created_at)
         VALUES ($1, $2, $3, 'custom', 'usd', 100, 100, 'pending', now() - interval '1 day', now() - make_interval(mins => 1000 - $4::int))`,
        [id, workspaceId, partner, minute],
      );
    }
    for (const id of ids)
      await query(database, `INSERT INTO payout_claims (commission_id, payout_id, partner_id) VALUES ($1, $2, $3)`, [id, payoutId, partner]);
    claimed.set(partner, ids);
    unclaimed.push(id0(partner));
  }
  expect(
    await migrate(
      database,
      all.filter((m) => m.name <= '0046_payout_claim_sets.sql'),
    ),
  ).toEqual(['0046_payout_claim_sets.sql']);
  // The later migrations too, for the app the tests below start.
  await migrate(database, all);
}, 120_000);

/** A fixed unclaimed commission id per partner. */
function id0(partner: string): string {
  return `${partner.slice(0, 24)}000000000000`;
}

afterAll(async () => {
  await t?.close();
  await database.close();
  await dropFreshDatabases();
});

describe('migration 0046: payout claims as one set per partner', () => {
  test('each partner has one set: its claimed ids oldest first, bounded by the smallest and largest', async () => {
    const rows = await query<{ partner_id: string; first_id: string; last_id: string; commission_ids: string[] }>(
      database,
      `SELECT partner_id, first_id, last_id, commission_ids FROM payout_claim_sets WHERE payout_id = $1 ORDER BY partner_id`,
      [payoutId],
    );
    expect(rows.map((r) => r.partner_id)).toEqual([...partners].sort());
    for (const row of rows) {
      const ids = claimed.get(row.partner_id)!;
      expect(row.commission_ids).toEqual(ids);
      const sorted = [...ids].sort();
      expect([row.first_id, row.last_id]).toEqual([sorted[0], sorted[2]]);
    }
  });

  test('the API shows each claimed commission in the payout and the others in none; complete pays exactly those', async () => {
    t = await startTestApp({ database });
    const key = (await t.admin('POST', `/workspaces/${workspaceId}/keys`, { name: 'after 0046', scopes: ['programsRead', 'programsWrite'] })).json<{
      key: string;
    }>().key;
    const list = async (qs: string) => {
      const res = await t!.inject({ method: 'GET', url: `/api/commissions?take=100&${qs}`, headers: bearer(key) });
      expect(res.statusCode, res.body).toBe(200);
      return res.json<{ id: string; payoutId: string | null; status: string }[]>();
    };
    const inPayout = await list(`payoutId=${payoutId}`);
    expect(new Set(inPayout.map((c) => c.id))).toEqual(new Set([...claimed.values()].flat()));
    const everything = await list('');
    expect(everything).toHaveLength(8);
    for (const c of everything) expect(c.payoutId).toBe(unclaimed.includes(c.id) ? null : payoutId);

    const done = await t.inject({ method: 'POST', url: `/api/payouts/${payoutId}/complete`, headers: bearer(key), payload: {} });
    expect(done.statusCode, done.body).toBe(200);
    const after = await list('');
    for (const c of after) expect(c.status).toBe(unclaimed.includes(c.id) ? 'payable' : 'paid');
  });
});
