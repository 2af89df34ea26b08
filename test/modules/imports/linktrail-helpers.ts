/**
 * Shared setup of the linktrail import tests (operations.md §13 "Export", issue 25): a workspace
 * filled over HTTP as a client fills it (collections, tags, a partner, links with an alias on a
 * verified host, clicks through the redirect, leads and sales), its export, and an import of a
 * file into another workspace, waited for.
 */
import { expect } from 'vitest';
import { bearer, type TestApp, type WorkspaceFixture } from '../../helpers/app.js';
import { within } from '../../helpers/wait.js';
import { conversionClient, DESKTOP, type ConversionApi } from '../conversions/helpers.js';
import { freshHost } from '../domains/helpers.js';
import type { ImportRecord } from './job-helpers.js';

export type Rec = Record<string, unknown> & { type: string; id: string };

export function parseExport(body: string): Rec[] {
  return body
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Rec);
}

export async function exportOf(t: TestApp, key: string): Promise<Rec[]> {
  const res = await t.inject({ method: 'GET', url: '/api/export', headers: bearer(key) });
  expect(res.statusCode, res.body).toBe(200);
  return parseExport(res.body);
}

async function created(api: ConversionApi, url: string, body: unknown[]): Promise<string[]> {
  const res = await api.send('POST', url, body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string }[]>().map((r) => r.id);
}

/** A visitor opens `path` on `host`; the click id the redirect hands out. */
async function visit(t: TestApp, path: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await t.inject({ method: 'GET', url: path, remoteAddress: '81.2.69.160', headers: { 'user-agent': DESKTOP, ...headers } });
  expect(res.statusCode, res.body).toBe(302);
  return new URL(res.headers.location as string).searchParams.get('ltid')!;
}

/**
 * A workspace with 2 collections, 2 tags, a partner, 3 links (one tagged, with a partner, utm
 * and an alias on a verified host; one with a password, expiry, geo and device targets), 4
 * clicks (one through the alias, one by QR code with a referrer), 2 customers, 2 leads and 2
 * sales (one attributed by its lead, one by click, refunded in part is not reachable by API).
 */
export async function filledWorkspace(t: TestApp) {
  const api = await conversionClient(t);
  const host = freshHost('old');
  const claim = await api.send('POST', '/api/domains', { host });
  expect(claim.statusCode, claim.body).toBe(201);
  expect((await t.admin('POST', `/domains/${claim.json<{ id: string }>().id}/verify`)).statusCode).toBe(200);
  const [second] = await created(api, '/api/collections', [{ name: 'Second', description: 'Spring campaigns' }]);
  const [alpha, beta] = await created(api, '/api/tags', [{ name: 'alpha', color: '#3366ff' }, { name: 'beta' }]);
  const [partnerId] = await created(api, '/api/partners', [{ name: 'Affiliate', email: 'aff@example.com', image: 'https://img.example/a.png' }]);
  const first = (await api.send('GET', '/api/collections?sort=asc')).json<{ id: string }[]>()[0]!.id;
  const links = await api.send('POST', '/api/links', [
    {
      url: 'https://shop.example/a',
      collectionId: second,
      tagIds: [beta, alpha],
      partnerId,
      title: 'Spring',
      utm: { source: 'news', campaign: 'spring' },
      externalId: 'ext-a',
      aliases: [`https://${host}/spring`],
    },
    {
      url: 'https://shop.example/b',
      collectionId: first,
      password: 'open sesame',
      expiresAt: '2099-01-01T00:00:00.000Z',
      geo: { DE: 'https://shop.example/de' },
      ios: 'https://apps.example/ios',
      description: 'B',
      tenantId: 't1',
    },
  ]);
  expect(links.statusCode, links.body).toBe(201);
  const [a] = links.json<{ id: string; shortUrl: string }[]>();
  const c = await api.link();
  const clicks = [
    await visit(t, new URL(a!.shortUrl).pathname),
    await visit(t, '/spring', { host }),
    await visit(t, `${new URL(a!.shortUrl).pathname}?ltqr=1`, { referer: 'https://news.example/today' }),
    await visit(t, new URL(c.shortUrl).pathname),
  ];
  expect(await within(10_000, async () => (await api.send('GET', '/api/analytics?take=100')).json<unknown[]>().length === 4)).toBe(true);
  await api.okLead({
    clickId: clicks[0],
    eventName: 'Sign up',
    customerExternalId: 'user-1',
    customerName: 'Ada',
    customerEmail: 'ada@example.com',
    metadata: { plan: 'pro' },
  });
  await api.okLead({ clickId: clicks[3], eventName: 'Sign up', customerExternalId: 'user-2', customerName: 'Grace' });
  await api.okSale({ customerExternalId: 'user-1', customerName: 'Ada', amount: 4999, currency: 'eur', leadEventName: 'Sign up' });
  await api.okSale({ clickId: clicks[1], customerExternalId: 'user-2', customerName: 'Grace', amount: 1000 });
  return { api, host, clicks };
}

/** Posts a file to POST /api/imports with `key`; the answer. */
export function postImport(t: TestApp, key: string, query: string, file: string | Buffer) {
  return t.inject({ method: 'POST', url: `/api/imports?${query}`, headers: { ...bearer(key), 'content-type': 'application/x-ndjson' }, payload: file });
}

/** Imports `file` into `ws` and waits for the job's end. */
export async function importInto(t: TestApp, ws: WorkspaceFixture, file: string | Buffer, query = 'source=linktrail'): Promise<ImportRecord> {
  const res = await postImport(t, ws.key, query, file);
  expect(res.statusCode, res.body).toBe(202);
  const id = res.json<ImportRecord>().id;
  let job: ImportRecord | undefined;
  const ended = await within(
    60_000,
    async () => {
      job = (await t.inject({ method: 'GET', url: `/api/imports/${id}`, headers: bearer(ws.key) })).json<ImportRecord>();
      return job.status !== 'running';
    },
    50,
  );
  expect(ended, JSON.stringify(job)).toBe(true);
  return job!;
}

export async function errorsOf(t: TestApp, ws: WorkspaceFixture, id: string): Promise<string> {
  const res = await t.inject({ method: 'GET', url: `/api/imports/${id}/errors`, headers: bearer(ws.key) });
  expect(res.statusCode, res.body).toBe(200);
  return res.body;
}

/** Fields that name other records, by record type. */
const REFERENCES: Record<string, string[]> = {
  link: ['collectionId', 'tagIds', 'partnerId'],
  click: ['linkId', 'partnerId'],
  lead: ['linkId', 'clickId', 'customerId'],
  sale: ['linkId', 'clickId', 'customerId', 'leadId'],
};

/**
 * The records of `imported` paired with those of `source` (same types, same order), ids matched
 * by position. Each pair must be equal but for `ignored` fields and the ids, and every reference
 * must point at the record its source reference became. Returns old id → new id.
 */
export function expectSameRecords(source: Rec[], imported: Rec[], ignored: string[]): Map<string, string> {
  expect(imported.map((r) => r.type)).toEqual(source.map((r) => r.type));
  const ids = new Map(source.map((r, i) => [r.id, imported[i]!.id]));
  const mapRef = (v: unknown) => (typeof v === 'string' ? (ids.get(v) ?? `unmapped:${v}`) : v);
  source.forEach((old, i) => {
    const expected: Record<string, unknown> = { ...old, id: imported[i]!.id };
    for (const f of REFERENCES[old.type] ?? []) expected[f] = Array.isArray(old[f]) ? (old[f] as unknown[]).map(mapRef) : mapRef(old[f]);
    // An imported lead or sale says where it came from (operations.md §19: source import).
    if ((old.type === 'lead' || old.type === 'sale') && 'source' in old) expected.source = 'import';
    // The short id is the generated part of the short URL (operations.md §21): it goes with it.
    const skipped = ignored.includes('shortUrl') ? [...ignored, 'shortId'] : ignored;
    const strip = (r: Record<string, unknown>) => Object.fromEntries(Object.entries(r).filter(([k]) => !skipped.includes(k)));
    expect(strip(imported[i]!), `${old.type} ${i}`).toEqual(strip(expected));
  });
  return ids;
}

/** GET /api/analytics grouped by `groupBy`, keys mapped through `ids` (link and partner rows name ids). */
export async function analyticsBy(t: TestApp, key: string, groupBy: string, ids = new Map<string, string>()) {
  const res = await t.inject({ method: 'GET', url: `/api/analytics?groupBy=${groupBy}&take=100`, headers: bearer(key) });
  expect(res.statusCode, res.body).toBe(200);
  return res
    .json<{ key: string; clicks: number; leads: number; sales: number; saleAmount: number; revenue: object; refunded: object }[]>()
    .map((g) => ({
      key: ids.get(g.key) ?? g.key,
      clicks: g.clicks,
      leads: g.leads,
      sales: g.sales,
      saleAmount: g.saleAmount,
      revenue: g.revenue,
      refunded: g.refunded,
    }))
    .sort((x, y) => x.key.localeCompare(y.key));
}
