/**
 * A lead or sale of a stored partner click decides its commission before its statement, from what
 * it reads with the program (conversions' programAndConversion), and writes the event, the
 * customer won and the commission in that one statement. These check what that path adds: the
 * customer comes back won; a plan that no longer holds when written (a customer made or won
 * meanwhile) writes nothing of its statement (SQLSTATE LT409, migration 0054) and the event is
 * earned again from fresh facts.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { isPlanStale } from '../../../src/core/transaction.js';
import { recordLead } from '../../../src/modules/conversions/store.js';
import { onPostgres, startTestApp, type TestApp } from '../../helpers/app.js';
import { workspaceWithCollection } from '../../helpers/client.js';
import { DESKTOP } from '../../helpers/visitors.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

async function fixture() {
  const { ws, send, collectionId } = await workspaceWithCollection(t);
  const ok = async (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown, status = 200) => {
    const res = await send(method, url, body);
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(status);
    return res.json();
  };
  await ok('PUT', '/api/program', { name: 'Friends', slug: `f-${randomUUID().slice(0, 8)}`, landingUrl: 'https://shop.example/', currency: 'usd' });
  const [group] = await ok('GET', '/api/partner-groups');
  await ok('PUT', '/api/partner-groups', [
    {
      id: group.id,
      rewards: [
        { event: 'lead', type: 'flat', amount: 500 },
        { event: 'sale', type: 'percentage', amount: 1000 },
      ],
    },
  ]);
  const partner = async (name: string) => {
    const [p] = await ok('POST', '/api/partners', [{ name, email: `${name.toLowerCase()}-${randomUUID().slice(0, 6)}@partner.example` }], 201);
    const [link] = await ok('POST', '/api/links', [{ url: 'https://shop.example/spring', collectionId, partnerId: p.id }], 201);
    return { id: p.id as string, linkId: link.id as string, path: new URL(link.shortUrl).pathname };
  };
  /** A click of `path`, stored before it is used (the lead then plans its commission from it). */
  const storedClick = async (path: string) => {
    const res = await t.inject({ method: 'GET', url: path, remoteAddress: '81.2.69.160', headers: { 'user-agent': DESKTOP } });
    expect(res.statusCode, res.body).toBe(302);
    const id = new URL(res.headers.location as string).searchParams.get('ltid')!;
    const stored = async () => (await rows<{ n: number }>(t.database.db, sql`SELECT count(*)::int AS n FROM clicks WHERE id = ${id}::uuid`))[0]!.n;
    await expect.poll(stored).toBe(1);
    return id;
  };
  const lead = (clickId: string, customer: string) =>
    send('POST', '/api/track/lead', { clickId, eventName: 'Sign up', customerExternalId: customer, customerName: 'Cam Buyer' });
  const sale = (clickId: string, customer: string, extra: Record<string, unknown> = {}) =>
    send('POST', '/api/track/sale', { clickId, customerExternalId: customer, customerName: 'Cam Buyer', amount: 12_345, currency: 'usd', ...extra });
  const commissions = (): Promise<{ type: string; partnerId: string; customerId: string; status: string; holdReasons: string[]; earnings: number }[]> =>
    ok('GET', '/api/commissions?sort=asc');
  return { ws, ok, partner, storedClick, lead, sale, commissions };
}

/** What the fixture's requests answer. */
type Answer = Awaited<ReturnType<Awaited<ReturnType<typeof fixture>>['lead']>>;

describe('a lead or sale that plans its commission before its statement', () => {
  test('the lead, its commission and the customer won, in one answer; a second lead of the customer earns no second lead commission', async () => {
    const f = await fixture();
    const ana = await f.partner('Ana');
    const res = await f.lead(await f.storedClick(ana.path), 'cust-1');
    expect(res.statusCode, res.body).toBe(200);
    const lead = res.json();
    expect(lead.customer.partnerId).toBe(ana.id);
    const again = await f.lead(await f.storedClick(ana.path), 'cust-1');
    expect(again.statusCode, again.body).toBe(200);
    expect((await f.commissions()).map((c) => [c.type, c.partnerId, c.customerId, c.status])).toEqual([['lead', ana.id, lead.customer.id, 'pending']]);
  });

  test('a sale of a new customer: the sale, its commission (10 % half to even) and the customer won, in one answer; a repeated invoice earns nothing', async () => {
    const f = await fixture();
    const ana = await f.partner('Ana');
    const res = await f.sale(await f.storedClick(ana.path), 'cust-s', { invoiceId: 'inv-1' });
    expect(res.statusCode, res.body).toBe(200);
    const sale = res.json();
    expect(sale.customer.partnerId).toBe(ana.id);
    const again = await f.sale(await f.storedClick(ana.path), 'cust-s', { invoiceId: 'inv-1' });
    expect(again.statusCode, again.body).toBe(200);
    // 10 % of 12,345 is 1,234.5: half to even, 1,234.
    expect((await f.commissions()).map((c) => [c.type, c.partnerId, c.customerId, c.status, c.earnings])).toEqual([
      ['sale', ana.id, sale.customer.id, 'pending', 1234],
    ]);
  });

  test('a statement whose plan no longer holds raises LT409 and writes nothing', async () => {
    const f = await fixture();
    const ana = await f.partner('Ana');
    const clickId = await f.storedClick(ana.path);
    const stale = recordLead(t.database.db, {
      id: randomUUID(),
      workspaceId: f.ws.id,
      customerId: randomUUID(),
      eventName: 'Sign up',
      clickId,
      from: { clickId },
      metadata: null,
      customer: { externalId: 'cust-stale', name: 'Stale' },
      rollups: 'now',
      slot: 0,
      // Planned for a customer that is not the one the statement writes.
      commission: () => ({
        winFor: ana.id,
        insert: sql`INSERT INTO commissions (id, workspace_id, partner_id, type, link_id, customer_id, event_id, currency, original_earnings, earnings, status, created_at, payable_at)
          SELECT ${randomUUID()}::uuid, ev.workspace_id, ev.partner_id, 'lead', ev.link_id, ev.customer_id, ev.id, 'usd', 500, 500, 'pending', ev.created_at, ev.created_at
          FROM ev WHERE CASE WHEN ev.customer_id = ${randomUUID()}::uuid THEN true ELSE linktrail_plan_stale() END RETURNING 1`,
      }),
    });
    const err = await stale.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isPlanStale(err), String(err)).toBe(true);
    const [left] = await rows<{ leads: number; customers: number; commissions: number }>(
      t.database.db,
      sql`SELECT (SELECT count(*)::int FROM lead_events WHERE click_id = ${clickId}::uuid) AS leads,
        (SELECT count(*)::int FROM customers WHERE workspace_id = ${f.ws.id}::uuid AND external_id = 'cust-stale') AS customers,
        (SELECT count(*)::int FROM commissions WHERE workspace_id = ${f.ws.id}::uuid) AS commissions`,
    );
    expect(left).toEqual({ leads: 0, customers: 0, commissions: 0 });
  });

  /**
   * `send`'s request while another transaction holds what `hold` wrote, uncommitted: the request's
   * read does not see it and its statement waits on the row; then that transaction commits and the
   * request's answer comes.
   */
  async function whileHeld(hold: (other: pg.Client) => Promise<unknown>, send: () => PromiseLike<Answer>) {
    const other = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await other.connect();
    try {
      await other.query('BEGIN');
      await hold(other);
      // inject() sends when its answer is asked for: resolving it now sends the request.
      const answer = Promise.resolve(send());
      // Read from outside that transaction: inside one, pg_stat_activity stays as first read.
      const waiting = async () =>
        (
          await rows<{ n: number }>(
            t.database.db,
            sql`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database() AND query LIKE 'WITH src AS%'`,
          )
        )[0]!.n;
      await expect.poll(waiting).toBeGreaterThan(0);
      await other.query('COMMIT');
      return await answer;
    } finally {
      await other.query('ROLLBACK').catch(() => undefined);
      await other.end();
    }
  }

  test.runIf(onPostgres)(
    'a customer made by another partner meanwhile: the lead is earned again, held as a duplicate customer, and the customer stays theirs',
    async () => {
      const f = await fixture();
      const [ana, ben] = [await f.partner('Ana'), await f.partner('Ben')];
      const clickId = await f.storedClick(ana.path);
      // Another transaction makes the customer, won by Ben: the lead's read does not see them, its insert waits.
      const customerId = randomUUID();
      const res = await whileHeld(
        (other) =>
          other.query(`INSERT INTO customers (id, workspace_id, external_id, name, partner_id) VALUES ($1, $2, 'cust-race', 'Raced', $3)`, [
            customerId,
            f.ws.id,
            ben.id,
          ]),
        () => f.lead(clickId, 'cust-race'),
      );
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().customer).toMatchObject({ id: customerId, partnerId: ben.id });
      const all = await f.commissions();
      expect(all.map((c) => [c.type, c.partnerId, c.customerId, c.status, c.holdReasons])).toEqual([
        ['lead', ana.id, customerId, 'held', ['duplicateCustomer']],
      ]);
      const [leads] = await rows<{ n: number }>(t.database.db, sql`SELECT count(*)::int AS n FROM lead_events WHERE click_id = ${clickId}::uuid`);
      expect(leads!.n).toBe(1);
    },
  );

  test.runIf(onPostgres)(
    'a customer won by another partner meanwhile: the sale is earned again, held as a duplicate customer, and the customer stays theirs',
    async () => {
      const f = await fixture();
      const [ana, ben] = [await f.partner('Ana'), await f.partner('Ben')];
      const clickId = await f.storedClick(ana.path);
      // The customer exists without a partner when the sale reads them...
      const customerId = randomUUID();
      await rows(
        t.database.db,
        sql`INSERT INTO customers (id, workspace_id, external_id, name) VALUES (${customerId}::uuid, ${f.ws.id}::uuid, 'cust-won', 'Won')`,
      );
      // ...and another transaction wins them for Ben: the sale's read sees no partner, its upsert waits.
      const res = await whileHeld(
        (other) => other.query('UPDATE customers SET partner_id = $1 WHERE id = $2', [ben.id, customerId]),
        () => f.sale(clickId, 'cust-won'),
      );
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().customer).toMatchObject({ id: customerId, partnerId: ben.id });
      const all = await f.commissions();
      expect(all.map((c) => [c.type, c.partnerId, c.customerId, c.status, c.holdReasons, c.earnings])).toEqual([
        ['sale', ana.id, customerId, 'held', ['duplicateCustomer'], 1234],
      ]);
      const [sales] = await rows<{ n: number }>(t.database.db, sql`SELECT count(*)::int AS n FROM sale_events WHERE click_id = ${clickId}::uuid`);
      expect(sales!.n).toBe(1);
    },
  );
});
