/**
 * GET /api/analytics?format=csv over HTTP: the same query as JSON, row for row (click records
 * and every groupBy, several filters and sorts), all matching rows when no take is given —
 * 12,000 clicks, more than two pages of the keyset walk, with ties of createdAt across the first
 * page end and microsecond timestamps — the header, RFC 4180 quoting, the formula guard, and
 * 401/403/400 answered as JSON before anything is streamed.
 *
 * The clicks are written in bulk with the redirect's own store function (insertClicks); one
 * real click carries a lead and a sale so the groups have events to count.
 */
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../../src/core/scopes.js';
import type { ClickRow } from '../../../src/modules/clicks/record.js';
import { insertClicks } from '../../../src/modules/clicks/store.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { conversionClient, type Link } from '../conversions/helpers.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t?.close();
});

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

/** A JSON value as the export writes it: text guarded against formulas, null empty. */
function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v !== 'string') return typeof v === 'object' ? cell(JSON.stringify(v)) : String(v);
  return /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
}

const CLICK_HEADER = [
  'id',
  'linkId',
  'partnerId',
  'createdAt',
  'country',
  'device',
  'browser',
  'os',
  'referrer',
  'referrerUrl',
  'utmSource',
  'utmMedium',
  'utmCampaign',
  'utmTerm',
  'utmContent',
  'trigger',
];
const GROUP_HEADER = ['key', 'clicks', 'leads', 'sales', 'saleAmount', 'revenue', 'refunded', 'visitors'];

type Shop = Awaited<ReturnType<typeof seed>>;
let shop: Shop;

async function seed() {
  const c = await conversionClient(t);
  const [a, b] = [await c.link(), await c.link()] as [Link, Link];
  const real = await c.click(a);
  const lead = await c.okLead({ clickId: real, eventName: 'Sign up', customerExternalId: 'u1', customerName: 'U' });
  await c.okSale({ clickId: real, customerExternalId: 'u1', customerName: 'U', amount: 1234 });
  const base = Date.parse('2026-03-01T00:00:00Z');
  const rows: ClickRow[] = Array.from({ length: 12_000 }, (_, i) => {
    // Clicks 4,800–5,299 and 6,800–7,199 each share one instant: ties across the first page end
    // of sort=asc and of sort=desc, kept in seq order. The others are a minute apart, with
    // microseconds the JSON does not show but the keyset must honour.
    const run = i >= 4_800 && i < 5_300 ? 4_800 : i >= 6_800 && i < 7_200 ? 6_800 : undefined;
    const micro = new Date(base + (run ?? i) * 61_000).toISOString().replace('Z', `${String((run ?? i) % 1000).padStart(3, '0')}Z`);
    return {
      id: randomUUID(),
      workspaceId: c.ws.id,
      linkId: i % 3 === 0 ? b.id : a.id,
      partnerId: null,
      createdAt: micro,
      country: ['DE', 'GB', null, 'US'][i % 4] ?? null,
      device: (['desktop', 'mobile', 'tablet', 'other'] as const)[i % 4]!,
      browser: i % 5 === 0 ? '=HYPERLINK("http://evil.example","x")' : i % 5 === 1 ? 'Fire, "fox"' : 'Chrome',
      os: i % 11 === 0 ? '@SUM(1+1)' : 'macOS',
      referrer: i % 2 === 0 ? '(direct)' : 'news.example',
      referrerUrl: i % 13 === 0 ? 'https://news.example/a?b=1,2\r\nline' : i % 17 === 0 ? '-2+3' : null,
      bot: i % 101 === 0,
      utmSource: null,
      utmMedium: null,
      utmCampaign: null,
      utmTerm: null,
      utmContent: null,
      trigger: 'link',
    };
  });
  for (let i = 0; i < rows.length; i += 2_000) await insertClicks(t.database.db, rows.slice(i, i + 2_000));
  return { c, a, b, real, lead, humans: rows.filter((r) => !r.bot).length + 1 };
}

async function csv(query: string, key?: string): Promise<{ res: LightMyRequestResponse; rows: string[][] }> {
  const res = await shop.c.send('GET', `/api/analytics?format=csv${query}`, undefined, key);
  expect(res.statusCode, res.body.slice(0, 500)).toBe(200);
  return { res, rows: parseCsv(res.body) };
}

/** Every row of the JSON answer, walked with take=5000. */
async function jsonAll(query: string): Promise<Record<string, unknown>[]> {
  const all: Record<string, unknown>[] = [];
  for (let skip = 0; ; skip += 5000) {
    const res = await shop.c.send('GET', `/api/analytics?take=5000&skip=${skip}${query}`);
    expect(res.statusCode, res.body.slice(0, 500)).toBe(200);
    const page = res.json<Record<string, unknown>[]>();
    all.push(...page);
    if (page.length < 5000) return all;
  }
}

const asRows = (records: Record<string, unknown>[], header: string[]) => records.map((r) => header.map((h) => cell(r[h])));

beforeAll(async () => {
  shop = await seed();
}, 120_000);

describe('GET /api/analytics?format=csv', () => {
  it('answers every matching click (no take: all 12,000, past two pages) as the JSON answer, row for row', { timeout: 120_000 }, async () => {
    const { res, rows } = await csv('');
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="analytics.csv"');
    expect(rows[0]).toEqual(CLICK_HEADER);
    const json = await jsonAll('');
    expect(json).toHaveLength(shop.humans);
    expect(json.length).toBeGreaterThan(10_000);
    expect(rows.slice(1)).toEqual(asRows(json, CLICK_HEADER));
    expect(new Set(rows.slice(1).map((r) => r[0])).size).toBe(shop.humans);
  });

  it('follows filters and sorts exactly as JSON does', { timeout: 120_000 }, async () => {
    for (const query of [
      '&sort=asc',
      `&linkId=${shop.b.id}`,
      `&linkId=${shop.a.id}&sort=asc&startDate=2026-03-02&endDate=2026-03-05`,
      '&startDate=2026-03-01T10:00:00.5Z&endDate=2026-03-03T00:00:00%2B02:00',
      `&id=${shop.real}`,
      '&startDate=9999-12-31T23:00:00-02:00',
    ]) {
      const { rows } = await csv(query);
      expect(rows[0], query).toEqual(CLICK_HEADER);
      expect(rows.slice(1), query).toEqual(asRows(await jsonAll(query), CLICK_HEADER));
    }
  });

  it('with take (and skip) answers the same page as JSON', async () => {
    const { rows } = await csv('&take=7&skip=4998&sort=asc');
    const res = await shop.c.send('GET', '/api/analytics?take=7&skip=4998&sort=asc');
    expect(rows.slice(1)).toEqual(asRows(res.json(), CLICK_HEADER));
    expect(rows).toHaveLength(8);
    const skipped = await csv('&skip=11990');
    expect(skipped.rows.slice(1)).toEqual(asRows((await jsonAll('')).slice(11_990), CLICK_HEADER));
  });

  it('answers every groupBy as CSV: key, clicks, leads, sales, saleAmount, revenue and refunded (JSON text)', { timeout: 120_000 }, async () => {
    for (const query of [
      '&groupBy=country',
      '&groupBy=device',
      '&groupBy=browser',
      '&groupBy=os',
      '&groupBy=referrer',
      '&groupBy=link',
      '&groupBy=timeseries&interval=hour&sort=asc',
      '&groupBy=timeseries&interval=day',
      `&groupBy=link&linkId=${shop.a.id}&startDate=2026-03-01&endDate=2026-03-01`,
    ]) {
      const { rows } = await csv(query);
      expect(rows[0], query).toEqual(GROUP_HEADER);
      const json = await jsonAll(query);
      expect(json.length, query).toBeGreaterThan(0);
      expect(rows.slice(1), query).toEqual(asRows(json, GROUP_HEADER));
    }
    // The real click's lead and sale are counted.
    const { rows } = await csv(`&groupBy=link&linkId=${shop.a.id}`);
    expect(rows[1]!.slice(2)).toEqual(['1', '1', '1234', '{"usd":1234}', '{"usd":0}', '1']);
    // With compare, previous too.
    const compared = `&groupBy=link&startDate=2026-03-02&compare=previous`;
    const withPrevious = await csv(compared);
    expect(withPrevious.rows[0]).toEqual([...GROUP_HEADER, 'previous']);
    expect(withPrevious.rows.slice(1)).toEqual(asRows(await jsonAll(compared), [...GROUP_HEADER, 'previous']));
    expect(withPrevious.rows.length).toBeGreaterThan(1);
    // Hourly buckets over ~8 days of clicks: more groups than one page of 5,000 would need is not reached, but many.
    expect((await csv('&groupBy=timeseries&interval=hour')).rows.length).toBeGreaterThan(100);
  });

  it('quotes per RFC 4180 and guards text that a spreadsheet would run as a formula', async () => {
    const { res, rows } = await csv(`&linkId=${shop.b.id}&sort=asc`);
    expect(
      res.body.startsWith(
        'id,linkId,partnerId,createdAt,country,device,browser,os,referrer,referrerUrl,utmSource,utmMedium,utmCampaign,utmTerm,utmContent,trigger\r\n',
      ),
    ).toBe(true);
    expect(res.body).toContain(`"'=HYPERLINK(""http://evil.example"",""x"")"`);
    expect(res.body).toContain('"Fire, ""fox"""');
    expect(res.body).toContain("'@SUM(1+1)");
    expect(res.body).toContain('"https://news.example/a?b=1,2\r\nline"');
    expect(res.body).toContain(",'-2+3,");
    const browsers = new Set(rows.slice(1).map((r) => r[6]));
    expect(browsers).toEqual(new Set([`'=HYPERLINK("http://evil.example","x")`, 'Fire, "fox"', 'Chrome']));
  });

  it('an empty answer is the header alone', async () => {
    const { res } = await csv('&startDate=9999-12-31T23:00:00-02:00');
    expect(res.body).toBe(`${CLICK_HEADER.join(',')}\r\n`);
    expect((await csv('&groupBy=country&endDate=0000-12-31')).res.body).toBe(`${GROUP_HEADER.join(',')}\r\n`);
  });

  it('answers 401, 403 and 400 as JSON before streaming', async () => {
    const anon = await t.inject({ method: 'GET', url: '/api/analytics?format=csv' });
    expect(anon.statusCode).toBe(401);
    expect(anon.headers['content-type']).toMatch(/^application\/json/);
    const other = await shop.c.ws.newKey(SCOPES.filter((s) => s !== 'analyticsRead'));
    const denied = await shop.c.send('GET', '/api/analytics?format=csv', undefined, other.key);
    expect(denied.statusCode).toBe(403);
    expect(denied.headers['content-type']).toMatch(/^application\/json/);
    const reader = await shop.c.ws.newKey(['analyticsRead']);
    expect((await shop.c.send('GET', '/api/analytics?format=csv&take=1', undefined, reader.key)).statusCode).toBe(200);
    for (const [query, field] of [
      ['format=xml', 'format'],
      ['format=csv&startDate=2026-02-30', 'startDate'],
      ['format=csv&startDate=2026-03-02&endDate=2026-03-01', 'startDate'],
      ['format=csv&interval=hour', 'interval'],
      ['format=csv&take=5001', 'take'],
    ] as const) {
      const res = await shop.c.send('GET', `/api/analytics?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.headers['content-type'], query).toMatch(/^application\/json/);
      expect(res.body, query).toContain(field);
    }
  });

  it('another workspace exports none of these clicks', async () => {
    const other = await conversionClient(t);
    const res = await other.send('GET', '/api/analytics?format=csv');
    expect(res.body).toBe(`${CLICK_HEADER.join(',')}\r\n`);
  });
});
