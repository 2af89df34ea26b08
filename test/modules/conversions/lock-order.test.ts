/**
 * Tracking and the click writer add to the same rollup and link-day rows (a link's day, on the
 * same slot). Each takes the tables in one order — analytics_rollups, analytics_revenue_rollups,
 * link_daily_stats, link_daily_revenue — and each table's rows in key order, so no two of them
 * wait for each other in a cycle. Before, a lead's statement wrote its link day first
 * (PostgreSQL runs a statement's unread WITH writes last to first) while the click writer wrote
 * its rollups first: deadlocks under load, ended by PostgreSQL and retried (the soak of issue 30).
 *
 * How each is checked, on PostgreSQL: the rows a write will add to exist already (zeros on every
 * slot); another transaction holds a later table's rows; the write starts and waits for them;
 * then the earlier tables' rows must be locked by it already (FOR UPDATE NOWAIT fails), and the
 * later ones not.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RawClick } from '../../../src/modules/clicks/record.js';
import { storeClicks } from '../../../src/modules/clicks/store.js';
import { recordLead, recordSale, setRefundedAmount } from '../../../src/modules/conversions/store.js';
import { rows } from '../../../src/db/connect.js';
import { onPostgres, startTestApp, type TestApp } from '../../helpers/app.js';
import { workspaceWithCollection } from '../../helpers/client.js';

const AGENT = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';
const ZERO = '00000000-0000-0000-0000-000000000000';
const TABLES = ['analytics_rollups', 'analytics_revenue_rollups', 'link_daily_stats', 'link_daily_revenue'] as const;
type Table = (typeof TABLES)[number];

let t: TestApp;
beforeAll(async () => {
  if (onPostgres) t = await startTestApp();
}, 120_000);
afterAll(async () => {
  await t?.close();
});

async function fixture() {
  const { ws, send, collectionId } = await workspaceWithCollection(t);
  const made = await send('POST', '/api/links', [{ url: 'https://dest.example/', collectionId }]);
  expect(made.statusCode, made.body).toBe(201);
  const linkId = made.json<{ id: string }[]>()[0]!.id;
  const click = (): RawClick => ({
    id: randomUUID(),
    workspaceId: ws.id,
    linkId,
    partnerId: null,
    at: Date.now(),
    ip: '203.0.113.9',
    userAgent: AGENT,
    referer: undefined,
    country: 'DE',
  });
  const seed = click();
  await storeClicks(t.database, [seed], () => undefined);
  const bucket = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000).toISOString();
  const day = bucket.slice(0, 10);
  // Every slot's row of the workspace's day total, the link's day and (usd) their money.
  await t.database.db.execute(sql`INSERT INTO analytics_rollups (workspace_id, scope_id, dim, level, bucket, value, partner_id, slot)
    SELECT ${ws.id}::uuid, ${ws.id}::uuid, '', 'd', ${bucket}::timestamptz, '', ${ZERO}::uuid, s FROM generate_series(0, 7) s ON CONFLICT DO NOTHING`);
  await t.database.db.execute(sql`INSERT INTO analytics_revenue_rollups (workspace_id, scope_id, dim, level, bucket, value, partner_id, currency, slot)
    SELECT ${ws.id}::uuid, ${ws.id}::uuid, '', 'd', ${bucket}::timestamptz, '', ${ZERO}::uuid, 'usd', s FROM generate_series(0, 7) s ON CONFLICT DO NOTHING`);
  await t.database.db.execute(sql`INSERT INTO link_daily_stats (workspace_id, day, link_id, slot)
    SELECT ${ws.id}::uuid, ${day}::date, ${linkId}::uuid, s FROM generate_series(0, 7) s ON CONFLICT DO NOTHING`);
  await t.database.db.execute(sql`INSERT INTO link_daily_revenue (workspace_id, day, link_id, currency, slot)
    SELECT ${ws.id}::uuid, ${day}::date, ${linkId}::uuid, 'usd', s FROM generate_series(0, 7) s ON CONFLICT DO NOTHING`);
  const rowsOf: Record<Table, string> = {
    analytics_rollups: `workspace_id = '${ws.id}' AND scope_id = '${ws.id}' AND dim = '' AND level = 'd' AND bucket = '${bucket}'`,
    analytics_revenue_rollups: `workspace_id = '${ws.id}' AND scope_id = '${ws.id}' AND dim = '' AND level = 'd' AND bucket = '${bucket}'`,
    link_daily_stats: `workspace_id = '${ws.id}' AND day = '${day}' AND link_id = '${linkId}'`,
    link_daily_revenue: `workspace_id = '${ws.id}' AND day = '${day}' AND link_id = '${linkId}'`,
  };
  return { ws, linkId, seed, click, rowsOf };
}

/** Whether another transaction could lock the rows now (none of them is locked by a write under way). */
async function free(where: string, table: Table): Promise<boolean> {
  try {
    await t.database.db.transaction(async (tx) => {
      await tx.execute(sql.raw(`SELECT 1 FROM ${table} WHERE ${where} FOR UPDATE NOWAIT`));
    });
    return true;
  } catch (err) {
    const e = err as { code?: string; cause?: { code?: string } };
    if ((e.cause?.code ?? e.code) === '55P03') return false;
    throw err;
  }
}

/** Until a statement waits for the transaction of backend `holder`. */
async function waitingFor(holder: number): Promise<void> {
  for (;;) {
    const found = await rows<{ n: number }>(
      t.database.db,
      sql`SELECT count(*)::int AS n FROM pg_stat_activity WHERE ${holder}::int = ANY(pg_blocking_pids(pid))`,
    );
    if (found[0]!.n > 0) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Holds `held`'s rows in a transaction of its own while `write` runs, and answers which tables'
 * rows the write had locked when it came to wait for them.
 */
async function lockedBefore(f: Awaited<ReturnType<typeof fixture>>, held: Table, write: () => Promise<unknown>): Promise<Table[]> {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let holding!: (pid: number) => void;
  const held$ = new Promise<number>((r) => (holding = r));
  const holder = t.database.db.transaction(async (tx) => {
    await tx.execute(sql.raw(`SELECT 1 FROM ${held} WHERE ${f.rowsOf[held]} FOR UPDATE`));
    holding((await rows<{ pid: number }>(tx, sql`SELECT pg_backend_pid() AS pid`))[0]!.pid);
    await released;
  });
  const pid = await held$;
  const done = write();
  try {
    await Promise.race([waitingFor(pid), done.then(() => Promise.reject(new Error(`the write did not wait for ${held}`)))]);
    const locked: Table[] = [];
    for (const table of TABLES) if (table !== held && !(await free(f.rowsOf[table], table))) locked.push(table);
    return locked;
  } finally {
    release();
    await holder;
    await done;
  }
}

describe.runIf(onPostgres)('tracking and the click writer take rollups and link days in one order', () => {
  it('the click writer: its rollups before its link day', async () => {
    const f = await fixture();
    expect(await lockedBefore(f, 'link_daily_stats', () => storeClicks(t.database, [f.click()], () => undefined))).toEqual(['analytics_rollups']);
  });

  it('a lead: its rollups before its link day', async () => {
    const f = await fixture();
    const lead = () =>
      recordLead(t.database.db, {
        id: randomUUID(),
        workspaceId: f.ws.id,
        customerId: randomUUID(),
        eventName: 'Sign up',
        clickId: f.seed.id,
        from: { clickId: f.seed.id },
        metadata: null,
        customer: { externalId: 'c1', name: 'C' },
      });
    expect(await lockedBefore(f, 'link_daily_stats', lead)).toEqual(['analytics_rollups']);
  });

  it('a sale: its rollups and their money before its link day, and those before the link day’s money', async () => {
    const f = await fixture();
    const sale = () =>
      recordSale(t.database.db, {
        id: randomUUID(),
        workspaceId: f.ws.id,
        customerId: randomUUID(),
        eventName: 'Purchase',
        amount: 1200,
        currency: 'usd',
        clickId: f.seed.id,
        leadId: null,
        from: { clickId: f.seed.id },
        metadata: null,
        customer: { externalId: 'c2', name: 'C' },
      });
    expect(await lockedBefore(f, 'link_daily_stats', sale)).toEqual(['analytics_rollups', 'analytics_revenue_rollups']);
    expect(await lockedBefore(f, 'link_daily_revenue', sale)).toEqual(['analytics_rollups', 'analytics_revenue_rollups', 'link_daily_stats']);
  });

  it('a refund: its rollups and their money before the link day’s money', async () => {
    const f = await fixture();
    const sold = await recordSale(t.database.db, {
      id: randomUUID(),
      workspaceId: f.ws.id,
      customerId: randomUUID(),
      eventName: 'Purchase',
      amount: 1200,
      currency: 'usd',
      clickId: f.seed.id,
      leadId: null,
      from: { clickId: f.seed.id },
      metadata: null,
      customer: { externalId: 'c3', name: 'C' },
    });
    const refund = () => setRefundedAmount(t.database.db, { workspaceId: f.ws.id, saleId: sold!.id, refundedAmount: 200 });
    expect(await lockedBefore(f, 'link_daily_revenue', refund)).toEqual(['analytics_rollups', 'analytics_revenue_rollups']);
  });
});
