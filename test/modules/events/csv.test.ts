/**
 * GET /api/events?format=csv over HTTP: the same query as JSON, row for row (filters, sorts,
 * take/skip), every matching event when no take is given — 6,000 leads and 1,500 sales copied
 * in bulk from tracked ones, with ties of createdAt across leads and sales at the page ends —
 * metadata written as its JSON text, the header, quoting, the formula guard, and 401/403/400
 * answered as JSON.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../../src/core/scopes.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { conversionClient, type Link } from '../conversions/helpers.js';

let t: TestApp;

/** RFC 4180 records (CRLF ends, "" a quote inside a quoted field). */
function parseCsv(text: string): string[][] {
  const out: string[][] = [];
  let record: string[] = [];
  let i = 0;
  while (i < text.length) {
    let field = '';
    if (text[i] === '"') {
      for (i++; ;) {
        if (i >= text.length) throw new Error('unterminated quote');
        if (text[i] === '"' && text[i + 1] === '"') {
          field += '"';
          i += 2;
        } else if (text[i] === '"') {
          i++;
          break;
        } else field += text[i++];
      }
    } else while (i < text.length && text[i] !== ',' && text[i] !== '\r') field += text[i++];
    record.push(field);
    if (text[i] === ',') i++;
    else if (text.startsWith('\r\n', i)) {
      out.push(record);
      record = [];
      i += 2;
    } else throw new Error(`unexpected ${JSON.stringify(text[i])} at ${i}`);
  }
  return out;
}

/** A JSON value as the export writes it: objects as JSON text, text guarded against formulas, null empty. */
function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v !== 'string') return typeof v === 'object' ? cell(JSON.stringify(v)) : String(v);
  return /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
}

const HEADER = [
  'type',
  'id',
  'eventName',
  'linkId',
  'clickId',
  'customerId',
  'customerExternalId',
  'leadId',
  'amount',
  'currency',
  'metadata',
  'createdAt',
  'shortUrl',
  'linkTitle',
  'customerName',
  'customerEmail',
  'refundedAmount',
  'source',
];

async function seed() {
  const c = await conversionClient(t);
  const [a, b] = [await c.link(), await c.link()] as [Link, Link];
  const [ka, kb] = [await c.click(a), await c.click(b)];
  const lead = await c.okLead({
    clickId: ka,
    eventName: '=cmd|calc',
    customerExternalId: '+evil, "x"',
    customerName: 'E',
    metadata: { note: 'a,b\r\n"c"', n: 1 },
  });
  const other = await c.okLead({ clickId: kb, eventName: 'Sign up', customerExternalId: 'plain', customerName: 'P' });
  const sale = await c.okSale({ clickId: ka, customerExternalId: '+evil, "x"', customerName: 'E', amount: 1_000_000_000_000, eventName: '@buy' });
  // Copies at 25 instants (ties of leads and sales at each), so the keyset meets ties at every page end.
  const at = (g: string) => sql.raw(`timestamptz '2026-04-01T00:00:00.000001Z' + ((${g} % 25) * interval '1 hour')`);
  await t.database.db.execute(sql`INSERT INTO lead_events (id, workspace_id, event_name, click_id, link_id, customer_id, metadata, created_at)
    SELECT gen_random_uuid(), l.workspace_id, l.event_name || ' ' || g, l.click_id, l.link_id, l.customer_id, l.metadata, ${at('g')}
      FROM lead_events l, generate_series(1, 6000) g WHERE l.id = ${lead.id}::uuid`);
  await t.database.db
    .execute(sql`INSERT INTO sale_events (id, workspace_id, event_name, click_id, link_id, customer_id, lead_id, amount, currency, metadata, created_at)
    SELECT gen_random_uuid(), s.workspace_id, s.event_name, s.click_id, s.link_id, s.customer_id, s.lead_id, s.amount + g, s.currency, s.metadata, ${at('g')}
      FROM sale_events s, generate_series(1, 1500) g WHERE s.id = ${sale.id}::uuid`);
  return { c, a, b, lead, other, sale, total: 6000 + 1500 + 3 };
}

let shop: Awaited<ReturnType<typeof seed>>;

beforeAll(async () => {
  t = await startTestApp();
  shop = await seed();
}, 120_000);

afterAll(async () => {
  await t?.close();
});

async function csv(query: string) {
  const res = await shop.c.send('GET', `/api/events?format=csv${query}`);
  expect(res.statusCode, res.body.slice(0, 500)).toBe(200);
  return { res, rows: parseCsv(res.body) };
}

async function jsonAll(query: string): Promise<Record<string, unknown>[]> {
  const all: Record<string, unknown>[] = [];
  for (let skip = 0; ; skip += 5000) {
    const res = await shop.c.send('GET', `/api/events?take=5000&skip=${skip}${query}`);
    expect(res.statusCode, res.body.slice(0, 500)).toBe(200);
    const page = res.json<Record<string, unknown>[]>();
    all.push(...page);
    if (page.length < 5000) return all;
  }
}

const asRows = (records: Record<string, unknown>[]) => records.map((r) => HEADER.map((h) => cell(r[h])));

describe('GET /api/events?format=csv', () => {
  it('answers every matching event (no take: 7,503, past one page) as the JSON answer, row for row', { timeout: 120_000 }, async () => {
    const { res, rows } = await csv('');
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="events.csv"');
    expect(rows[0]).toEqual(HEADER);
    const json = await jsonAll('');
    expect(json).toHaveLength(shop.total);
    expect(rows.slice(1)).toEqual(asRows(json));
    expect(new Set(rows.slice(1).map((r) => r[1])).size).toBe(shop.total);
  });

  it('follows filters, sorts, take and skip exactly as JSON does', { timeout: 120_000 }, async () => {
    for (const query of [
      '&sort=asc',
      '&type=lead',
      '&type=sale&sort=asc',
      `&linkId=${shop.b.id}`,
      `&customerId=${shop.lead.customer.id}&startDate=2026-04-01T03:00:00Z&endDate=2026-04-01T20:00:00Z`,
      '&customerExternalId=plain',
      `&id=${shop.sale.id}`,
      '&take=9&skip=4995&sort=asc',
      '&skip=7490',
    ]) {
      const { rows } = await csv(query);
      expect(rows[0], query).toEqual(HEADER);
      const json = query.includes('take=')
        ? (await shop.c.send('GET', `/api/events?${query.slice(1)}`)).json<Record<string, unknown>[]>()
        : query.includes('skip=')
          ? (await jsonAll('')).slice(7490)
          : await jsonAll(query);
      expect(json.length, query).toBeGreaterThan(0);
      expect(rows.slice(1), query).toEqual(asRows(json));
    }
  });

  it('writes metadata as JSON text, quotes per RFC 4180 and guards formula starts', async () => {
    const { res, rows } = await csv(`&id=${shop.lead.id}`);
    expect(rows).toHaveLength(2);
    const [row] = rows.slice(1) as [string[]];
    expect(row[2]).toBe("'=cmd|calc");
    expect(row[6]).toBe(`'+evil, "x"`);
    expect(JSON.parse(row[10]!)).toEqual({ note: 'a,b\r\n"c"', n: 1 });
    expect(res.body).toContain(`"'+evil, ""x"""`);
    const sale = (await csv(`&id=${shop.sale.id}`)).rows[1]!;
    expect(sale.slice(7, 10)).toEqual(['', '1000000000000', 'usd']); // attributed by clickId: no lead
    expect(sale[2]).toBe("'@buy");
  });

  it('answers 401, 403 and 400 as JSON; another workspace gets the header alone', async () => {
    const anon = await t.inject({ method: 'GET', url: '/api/events?format=csv' });
    expect(anon.statusCode).toBe(401);
    expect(anon.headers['content-type']).toMatch(/^application\/json/);
    const other = await shop.c.ws.newKey(SCOPES.filter((s) => s !== 'analyticsRead'));
    const denied = await shop.c.send('GET', '/api/events?format=csv', undefined, other.key);
    expect(denied.statusCode).toBe(403);
    expect(denied.headers['content-type']).toMatch(/^application\/json/);
    for (const [query, field] of [
      ['format=xls', 'format'],
      ['format=csv&endDate=2026-13-01', 'endDate'],
      ['format=csv&startDate=2026-04-02&endDate=2026-04-01', 'startDate'],
      ['format=csv&type=click', 'type'],
    ] as const) {
      const res = await shop.c.send('GET', `/api/events?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.headers['content-type'], query).toMatch(/^application\/json/);
      expect(res.body, query).toContain(field);
    }
    const stranger = await conversionClient(t);
    expect((await stranger.send('GET', '/api/events?format=csv')).body).toBe(`${HEADER.join(',')}\r\n`);
  });
});
