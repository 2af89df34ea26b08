/**
 * The Links API over HTTP (api.md "Link", "Links", "States and transitions"; operations.md
 * §3–5): the record, every POST rule, PUT rules 1–6 one test each, DELETE, GET, tag deletion
 * and workspace isolation. Cloaking checks and the SSRF guard are in cloaking.test.ts.
 *
 * The app trusts private destinations (ALLOW_PRIVATE_DESTINATIONS) so that links can be
 * cloaked onto a local HTTPS page that allows framing.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import type { Plan } from '../../../src/core/plans.js';
import { startFramableSite } from '../../helpers/framable-site.js';
import { bearer, startTestApp, type TestApp, type WorkspaceFixture } from '../../helpers/app.js';

const SHORT_LINK_BASE_URL = 'https://go.lt.test';
/** test/helpers/app.ts sets BASE_URL to this. */
const BASE_URL = 'https://lt.test';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;
const ARABIC = /[\u0600-\u06FF]/;

/** Every field of api.md's Link table. */
const LINK_FIELDS = [
  'id',
  'url',
  'shortUrl',
  'qrCode',
  'title',
  'description',
  'image',
  'utm',
  'expiresAt',
  'expiredUrl',
  'password',
  'cloaked',
  'ios',
  'android',
  'geo',
  'collectionId',
  'tagIds',
  'externalId',
  'tenantId',
  'partnerId',
  'createdAt',
] as const;

interface Link {
  id: string;
  url: string;
  shortUrl: string;
  qrCode: string;
  title: string | null;
  description: string | null;
  image: string | null;
  utm: Record<string, string> | null;
  expiresAt: string | null;
  expiredUrl: string | null;
  password: string | null;
  cloaked: boolean;
  ios: string | null;
  android: string | null;
  geo: Record<string, string> | null;
  collectionId: string;
  tagIds: string[];
  externalId: string | null;
  tenantId: string | null;
  partnerId: string | null;
  createdAt: string;
  updatedAt?: string;
}

type Item = Record<string, unknown>;

let t: TestApp;
let framable: Awaited<ReturnType<typeof startFramableSite>> | undefined;
/** An https page (on 127.0.0.1) that lets anyone frame it: a valid cloaking destination here. */
let framableUrl: string;

beforeAll(async () => {
  framable = await startFramableSite();
  framableUrl = framable.url;
  t = await startTestApp({ env: { SHORT_LINK_BASE_URL, ALLOW_PRIVATE_DESTINATIONS: 'true' } });
});

afterAll(async () => {
  await t?.close();
  await framable?.close();
});

/** A client of one workspace, acting with one key the way an API user would. */
class Api {
  constructor(readonly key: string) {}

  send(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown): Promise<LightMyRequestResponse> {
    if (body === undefined) return t.inject({ method, url, headers: bearer(this.key) });
    return t.inject({ method, url, headers: { ...bearer(this.key), 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  }

  list(query = ''): Promise<LightMyRequestResponse> {
    return this.send('GET', query ? `/api/links?${query}` : '/api/links');
  }
  post(body: unknown): Promise<LightMyRequestResponse> {
    return this.send('POST', '/api/links', body);
  }
  put(body: unknown): Promise<LightMyRequestResponse> {
    return this.send('PUT', '/api/links', body);
  }
  del(body: unknown): Promise<LightMyRequestResponse> {
    return this.send('DELETE', '/api/links', body);
  }

  async create(items: Item[]): Promise<Link[]> {
    const res = await this.post(items);
    expect(res.statusCode, res.body).toBe(201);
    const out = res.json<Link[]>();
    expect(out).toHaveLength(items.length);
    return out;
  }

  async upsert(items: Item[]): Promise<Link[]> {
    const res = await this.put(items);
    expect(res.statusCode, res.body).toBe(200);
    const out = res.json<Link[]>();
    expect(out).toHaveLength(items.length);
    return out;
  }

  async query(query: string): Promise<Link[]> {
    const res = await this.list(query);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<Link[]>();
  }

  /** Every active link of the workspace, oldest first. */
  all(): Promise<Link[]> {
    return this.query('take=5000&sort=asc');
  }

  async one(id: string): Promise<Link> {
    const found = await this.query(`id=${id}`);
    expect(found).toHaveLength(1);
    return found[0]!;
  }
}

interface Fixture {
  ws: WorkspaceFixture;
  api: Api;
  collectionId: string;
  /** A second collection of the same workspace. */
  collection2Id: string;
  tagIds: [string, string, string];
  partnerId: string;
}

/** A fresh workspace with two collections, three tags and a partner (rate limit out of the way). */
async function fixture(plan: Plan = 'enterprise', opts: { maxBulkItems?: number } = {}): Promise<Fixture> {
  const ws = await t.workspace({ plan, rateLimitPerMinute: 1_000_000, ...opts });
  const api = new Api(ws.key);
  const made = async (path: string, items: Item[]) => {
    const res = await api.send('POST', path, items);
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ id: string }[]>().map((r) => r.id);
  };
  const [collectionId, collection2Id] = (await made('/api/collections', [{ name: 'Main' }, { name: 'Second' }])) as [string, string];
  const tagIds = (await made('/api/tags', [{ name: 'alpha' }, { name: 'beta' }, { name: 'gamma' }])) as [string, string, string];
  const [partnerId] = (await made('/api/partners', [{ name: 'Affiliate' }])) as [string];
  return { ws, api, collectionId, collection2Id, tagIds, partnerId };
}

/** A 400 with `code`, in English and Arabic, whose message names `field` (`[2].url`, `[0]`, …). */
function expect400(res: LightMyRequestResponse, field?: string, code = 'invalid_field'): { en: string; ar: string; code: string } {
  expect(res.statusCode, res.body).toBe(400);
  const { error } = res.json<{ error: { en: string; ar: string; code: string } }>();
  expect(error.code).toBe(code);
  expect(error.en.length).toBeGreaterThan(0);
  expect(error.ar).toMatch(ARABIC);
  if (field !== undefined) {
    expect(error.en).toContain(`${field}:`);
    expect(error.ar).toContain(field);
  }
  return error;
}

const minimal = (f: Fixture, extra: Item = {}): Item => ({ url: 'https://example.com/landing', collectionId: f.collectionId, ...extra });

/** An item using every field (cloaking onto the local framable page). */
const full = (f: Fixture): Item => ({
  url: framableUrl,
  collectionId: f.collectionId,
  tagIds: [f.tagIds[1], f.tagIds[0]],
  title: 'Spring sale',
  description: 'Everything must go',
  image: 'https://cdn.example.com/preview.png',
  utm: { source: 'newsletter', medium: 'email', campaign: 'spring', term: 'shoes', content: 'hero', referral: 'friend' },
  expiresAt: '2031-05-06T07:08:09+02:00',
  expiredUrl: 'https://example.com/sale-over',
  password: 'correct horse battery staple',
  cloaked: true,
  // A cloaked visitor can land on each of these, so they must be framable too.
  ios: `${framableUrl}?app=ios`,
  android: `${framableUrl}?app=android`,
  geo: { US: `${framableUrl}?country=us`, DE: `${framableUrl}?country=de` },
  externalId: 'order-42',
  tenantId: 'tenant-7',
  partnerId: f.partnerId,
});

const idsOf = (links: readonly { id: string }[]) => links.map((l) => l.id);
const sorted = (ids: readonly string[]) => [...ids].sort();

async function sealedPassword(linkId: string): Promise<string | null> {
  const found = await rows<{ sealed: string | null }>(t.database.db, sql`SELECT password_sealed AS sealed FROM links WHERE id = ${linkId}::uuid`);
  expect(found).toHaveLength(1);
  return found[0]!.sealed;
}

describe('the Link record', () => {
  it('POST returns every field of api.md with the values given, ignoring unknown properties; GET returns the same record', async () => {
    const f = await fixture();
    const item = full(f);
    const [link] = await f.api.create([{ ...item, id: randomUUID(), shortUrl: 'https://evil.test/x', qrCode: 'https://evil.test/q', unknown: 1 }]);

    for (const field of LINK_FIELDS) expect(link).toHaveProperty(field);
    // Nothing internal (sealed password, workspace, deletion) leaks into the record (aliases: the §13 extension; qrDesign: §14's; domain, key, shortId: §21's; test, testId: §20's).
    for (const key of Object.keys(link!))
      expect([...LINK_FIELDS, 'updatedAt', 'aliases', 'qrDesign', 'domain', 'key', 'shortId', 'test', 'testId']).toContain(key);
    const { expiresAt, ...rest } = item;
    expect(link).toMatchObject(rest);
    expect(link!.expiresAt).toMatch(ISO);
    expect(Date.parse(link!.expiresAt!)).toBe(Date.parse(expiresAt as string));
    expect(link!.id).toMatch(UUID);
    expect(link!.createdAt).toMatch(ISO);
    expect(Math.abs(Date.parse(link!.createdAt) - Date.now())).toBeLessThan(10 * 60_000);
    expect(link!.shortUrl.startsWith(`${SHORT_LINK_BASE_URL}/`)).toBe(true);
    expect(link!.qrCode.startsWith(`${BASE_URL}/api/qr?`)).toBe(true);

    expect(await f.api.one(link!.id)).toEqual(link);
    expect(await f.api.all()).toEqual([link]);
  });

  it('a minimal link gets the defaults: nulls, cloaked false, no tags', async () => {
    const f = await fixture('free');
    const [link] = await f.api.create([minimal(f)]);
    expect(link).toMatchObject({
      url: 'https://example.com/landing',
      collectionId: f.collectionId,
      title: null,
      description: null,
      image: null,
      utm: null,
      expiresAt: null,
      expiredUrl: null,
      password: null,
      cloaked: false,
      ios: null,
      android: null,
      geo: null,
      tagIds: [],
      externalId: null,
      tenantId: null,
      partnerId: null,
    });
  });

  it('shortUrl is SHORT_LINK_BASE_URL/{shortId} with a unique base62 id; qrCode is BASE_URL/api/qr carrying all its parameters, its text the short URL with the QR marker', async () => {
    const f = await fixture();
    const g = await fixture();
    const links = [
      ...(await f.api.create(Array.from({ length: 150 }, (_, i) => minimal(f, { url: `https://example.com/${i}` })))),
      ...(await g.api.create(Array.from({ length: 50 }, () => minimal(g)))),
    ];
    const shortIds = links.map((l) => {
      const short = new URL(l.shortUrl);
      expect(short.origin).toBe(SHORT_LINK_BASE_URL);
      const id = short.pathname.slice(1);
      expect(l.shortUrl).toBe(`${SHORT_LINK_BASE_URL}/${id}`);
      expect(id).toMatch(/^[0-9A-Za-z]{8,}$/);

      const qr = new URL(l.qrCode);
      expect(`${qr.origin}${qr.pathname}`).toBe(`${BASE_URL}/api/qr`);
      expect(qr.searchParams.get('text')).toBe(`${l.shortUrl}?ltqr=1`);
      for (const p of ['size', 'errorCorrection', 'foreground', 'background', 'margin', 'format']) {
        expect(qr.searchParams.get(p), p).toBeTruthy();
      }
      expect(['png', 'svg']).toContain(qr.searchParams.get('format'));
      expect(['L', 'M', 'Q', 'H']).toContain(qr.searchParams.get('errorCorrection'));
      return id;
    });
    expect(new Set(shortIds).size).toBe(links.length);
    // The ids are random, not a counter: no two consecutive links share a 5-character prefix.
    const prefixes = new Set(shortIds.map((s) => s.slice(0, 5)));
    expect(prefixes.size).toBeGreaterThan(links.length - 3);
  });
});

describe('POST /api/links rules', () => {
  it('url and collectionId are required; the 400 names the item and nothing is written', async () => {
    const f = await fixture();
    expect400(await f.api.post([minimal(f), minimal(f), { collectionId: f.collectionId }]), '[2].url');
    expect400(await f.api.post([{ url: 'https://example.com/' }]), '[0].collectionId');
    expect400(await f.api.post([]));
    expect400(await f.api.post(minimal(f)));
    expect(await f.api.all()).toEqual([]);
  });

  it('every URL field must be https (url, image, expiredUrl, ios, android, every geo value)', async () => {
    const f = await fixture();
    const fields: [string, (bad: string) => Item, string][] = [
      ['url', (bad) => ({ url: bad }), '[0].url'],
      ['image', (bad) => ({ image: bad }), '[0].image'],
      ['expiredUrl', (bad) => ({ expiredUrl: bad }), '[0].expiredUrl'],
      ['ios', (bad) => ({ ios: bad }), '[0].ios'],
      ['android', (bad) => ({ android: bad }), '[0].android'],
      ['geo', (bad) => ({ geo: { US: 'https://example.com/us', FR: bad } }), '[0].geo.FR'],
    ];
    for (const [name, make, path] of fields) {
      for (const bad of ['http://example.com/x', 'ftp://example.com/x', 'javascript:alert(1)', 'example.com/x']) {
        const res = await f.api.post([minimal(f, make(bad))]);
        expect(res.statusCode, `${name} = ${bad}`).toBe(400);
        expect400(res, path);
      }
    }
    expect(await f.api.all()).toEqual([]);
    // The same fields with https URLs are accepted.
    const [ok] = await f.api.create([
      minimal(f, {
        image: 'https://e.com/i.png',
        expiredUrl: 'https://e.com/x',
        ios: 'https://e.com/i',
        android: 'https://e.com/a',
        geo: { FR: 'https://e.com/fr' },
      }),
    ]);
    expect(ok!.geo).toEqual({ FR: 'https://e.com/fr' });
  });

  it('geo keys are uppercase ISO 3166-1 alpha-2 codes from the real list', async () => {
    const f = await fixture();
    for (const key of ['us', 'XX', 'UK', 'Us', 'USA', 'U']) {
      expect400(await f.api.post([minimal(f, { geo: { [key]: 'https://example.com/' } })]), `[0].geo.${key}`);
    }
    expect400(await f.api.post([minimal(f, { geo: { US: 'https://example.com/us', uk: 'https://example.com/uk' } })]), '[0].geo.uk');
    expect(await f.api.all()).toEqual([]);

    const geo = { US: 'https://example.com/us', GB: 'https://example.com/gb', DE: 'https://example.com/de', AX: 'https://example.com/ax' };
    const [a, b] = await f.api.create([minimal(f, { geo }), minimal(f, { geo: null })]);
    expect(a!.geo).toEqual(geo);
    expect(b!.geo).toBeNull();
  });

  it('expiresAt needs a timezone offset', async () => {
    const f = await fixture();
    for (const bad of ['2031-01-01T00:00:00', '2031-01-01', 'next tuesday', '2031-13-01T00:00:00Z', 1_900_000_000]) {
      expect400(await f.api.post([minimal(f, { expiresAt: bad })]), '[0].expiresAt');
    }
    expect(await f.api.all()).toEqual([]);
    const given = ['2031-01-01T00:00:00Z', '2031-01-01T03:00:00+03:00', '2030-12-31T18:30:00-05:30'];
    const links = await f.api.create(given.map((expiresAt) => minimal(f, { expiresAt })));
    for (const l of links) expect(Date.parse(l.expiresAt!)).toBe(Date.parse('2031-01-01T00:00:00Z'));
  });

  it('collectionId must be a live collection of the workspace', async () => {
    const f = await fixture();
    expect400(await f.api.post([minimal(f, { collectionId: randomUUID() })]), '[0].collectionId');
    expect400(await f.api.post([minimal(f, { collectionId: 'not-a-uuid' })]), '[0].collectionId');
    const del = await f.api.send('DELETE', '/api/collections', [f.collection2Id]);
    expect(del.statusCode, del.body).toBe(200);
    expect400(await f.api.post([minimal(f), minimal(f, { collectionId: f.collection2Id })]), '[1].collectionId');
    expect(await f.api.all()).toEqual([]);
    const [ok] = await f.api.create([minimal(f, { collectionId: f.collectionId.toUpperCase() })]);
    expect(ok!.collectionId).toBe(f.collectionId);
  });

  it('every tag of tagIds must exist in the workspace, once', async () => {
    const f = await fixture();
    const [t0, t1, t2] = f.tagIds;
    expect400(await f.api.post([minimal(f, { tagIds: [t0, randomUUID()] })]), '[0].tagIds[1]');
    expect400(await f.api.post([minimal(f, { tagIds: [t0, t1, t0] })]), '[0].tagIds[2]');
    expect400(await f.api.post([minimal(f, { tagIds: ['nope'] })]), '[0].tagIds[0]');
    const del = await f.api.send('DELETE', '/api/tags', [t2]);
    expect(del.statusCode, del.body).toBe(200);
    expect400(await f.api.post([minimal(f, { tagIds: [t2] })]), '[0].tagIds[0]');
    expect(await f.api.all()).toEqual([]);
    const [a, b] = await f.api.create([minimal(f, { tagIds: [t1, t0] }), minimal(f, { tagIds: [] })]);
    expect(a!.tagIds).toEqual([t1, t0]);
    expect(b!.tagIds).toEqual([]);
    expect((await f.api.one(a!.id)).tagIds).toEqual([t1, t0]);
  });

  it('partnerId must be an active (not deleted) partner of the workspace', async () => {
    const f = await fixture();
    expect400(await f.api.post([minimal(f, { partnerId: randomUUID() })]), '[0].partnerId');
    expect400(await f.api.post([minimal(f, { partnerId: 'partner-1' })]), '[0].partnerId');
    const res = await f.api.send('POST', '/api/partners', [{ name: 'Gone' }]);
    const gone = res.json<{ id: string }[]>()[0]!.id;
    expect((await f.api.send('DELETE', '/api/partners', [gone])).statusCode).toBe(200);
    expect400(await f.api.post([minimal(f), minimal(f, { partnerId: gone })]), '[1].partnerId');
    expect(await f.api.all()).toEqual([]);
    const [ok] = await f.api.create([minimal(f, { partnerId: f.partnerId })]);
    expect(ok!.partnerId).toBe(f.partnerId);
  });

  it('externalId is unique among the active links of the workspace, within one request too; a deleted link frees it', async () => {
    const f = await fixture();
    const [first] = await f.api.create([minimal(f, { externalId: 'order-1' })]);
    const before = await f.api.all();

    expect400(await f.api.post([minimal(f, { externalId: 'order-1' })]), '[0].externalId');
    expect400(await f.api.post([minimal(f, { externalId: 'x' }), minimal(f, { externalId: 'y' }), minimal(f, { externalId: 'x' })]), '[2].externalId');
    expect400(await f.api.put([minimal(f, { externalId: 'order-1' })]), '[0].externalId');
    const [other] = await f.api.create([minimal(f, { externalId: 'order-2' })]);
    const withOther = await f.api.all();
    expect400(await f.api.put([{ id: other!.id, externalId: 'order-1' }]), '[0].externalId');
    expect(await f.api.all()).toEqual(withOther);
    expect(withOther).toEqual([...before, other]);

    // Deleting the holder frees the external id.
    expect((await f.api.del([first!.id])).statusCode).toBe(200);
    const [reused] = await f.api.create([minimal(f, { externalId: 'order-1' })]);
    expect(reused!.externalId).toBe('order-1');
    expect(idsOf(await f.api.query('externalId=order-1'))).toEqual([reused!.id]);
  });

  it('externalId: links may swap or hand over their external ids within one request (the result is unique)', async () => {
    const f = await fixture();
    const [a, b] = await f.api.create([minimal(f, { externalId: 'order-1' }), minimal(f, { externalId: 'order-2' })]);
    const swapped = await f.api.upsert([
      { id: a!.id, externalId: 'order-2' },
      { id: b!.id, externalId: 'order-1' },
    ]);
    expect(swapped.map((l) => l.externalId)).toEqual(['order-2', 'order-1']);
    // a hands 'order-2' over to a new link and takes 'order-3'.
    const [, fresh] = await f.api.upsert([{ id: a!.id, externalId: 'order-3' }, minimal(f, { externalId: 'order-2' })]);
    expect(idsOf(await f.api.query('externalId=order-2'))).toEqual([fresh!.id]);
    expect(idsOf(await f.api.query('externalId=order-3'))).toEqual([a!.id]);
  });

  it('plan-gated fields on create are a 400 naming the feature (free: none; pro: expiration, password, device targeting; business: all)', async () => {
    const gated: [string, Item, RegExp][] = [
      ['expiresAt', { expiresAt: '2031-01-01T00:00:00Z' }, /expiration/i],
      ['expiredUrl', { expiredUrl: 'https://example.com/over' }, /expiration/i],
      ['password', { password: 'pw' }, /password/i],
      ['cloaked', { cloaked: true, url: framableUrl }, /cloaking/i],
      ['ios', { ios: 'https://apps.apple.com/x' }, /device targeting/i],
      ['android', { android: 'https://play.google.com/x' }, /device targeting/i],
      ['geo', { geo: { US: 'https://example.com/us' } }, /geo targeting/i],
    ];
    const allowed: Record<Plan, string[]> = {
      free: [],
      pro: ['expiresAt', 'expiredUrl', 'password', 'ios', 'android'],
      business: ['expiresAt', 'expiredUrl', 'password', 'cloaked', 'ios', 'android', 'geo'],
      enterprise: ['expiresAt', 'expiredUrl', 'password', 'cloaked', 'ios', 'android', 'geo'],
    };
    for (const plan of ['free', 'pro', 'business', 'enterprise'] as const) {
      const f = await fixture(plan);
      for (const [field, extra, feature] of gated) {
        if (allowed[plan].includes(field)) continue;
        // The gated item fails the whole request, even beside a valid one.
        const error = expect400(await f.api.post([minimal(f), minimal(f, extra)]), `[1].${field}`);
        expect(error.en, `${plan} ${field}`).toMatch(feature);
      }
      expect(await f.api.all()).toEqual([]);
      const usable = gated.filter(([field]) => allowed[plan].includes(field));
      const made = await f.api.create([minimal(f, { cloaked: false, geo: null }), ...usable.map(([, extra]) => minimal(f, extra))]);
      expect(made).toHaveLength(usable.length + 1);
      if (plan === 'business') expect(made.find((l) => l.cloaked)?.url).toBe(framableUrl);
    }
  });

  it('the number of items per request is capped by the plan (free 100) with 400 too_many_items', async () => {
    const f = await fixture('free');
    const items = (n: number) => Array.from({ length: n }, (_, i) => minimal(f, { title: `#${i}` }));
    const tooMany = await f.api.post(items(101));
    const error = expect400(tooMany, undefined, 'too_many_items');
    expect(error.en).toContain('100');
    // The limit as data too (operations.md §16), so a client can split without reading the text.
    expect(tooMany.json<{ limit?: number }>().limit).toBe(100);
    expect400(await f.api.put(items(101)), undefined, 'too_many_items');
    expect400(await f.api.del(Array.from({ length: 101 }, () => randomUUID())), undefined, 'too_many_items');
    expect(await f.api.all()).toEqual([]);
    expect(await f.api.create(items(100))).toHaveLength(100);

    const pro = await fixture('pro');
    expect400(await pro.api.post(Array.from({ length: 1001 }, () => minimal(pro))), undefined, 'too_many_items');

    const capped = await fixture('enterprise', { maxBulkItems: 3 });
    expect400(await capped.api.post(Array.from({ length: 4 }, () => minimal(capped))), undefined, 'too_many_items');
    expect(await capped.api.all()).toEqual([]);
    expect(await capped.api.create(Array.from({ length: 3 }, () => minimal(capped)))).toHaveLength(3);
  });

  it('the password is returned in the record but stored sealed', async () => {
    const f = await fixture('pro');
    const plain = 'correct horse battery staple';
    const [link, open] = await f.api.create([minimal(f, { password: plain }), minimal(f)]);
    expect(link!.password).toBe(plain);
    expect((await f.api.one(link!.id)).password).toBe(plain);

    const sealed = await sealedPassword(link!.id);
    expect(sealed).toBeTruthy();
    expect(sealed).not.toContain(plain);
    expect(sealed).not.toContain('horse');
    expect(sealed).not.toContain(Buffer.from(plain).toString('base64'));
    expect(await sealedPassword(open!.id)).toBeNull();

    const [changed] = await f.api.upsert([{ id: link!.id, password: 'another phrase' }]);
    expect(changed!.password).toBe('another phrase');
    const resealed = await sealedPassword(link!.id);
    expect(resealed).not.toBe(sealed);
    expect(resealed).not.toContain('another phrase');
  });
});

describe('PUT /api/links', () => {
  it('rule 1: an update keeps omitted fields; an unknown id or an entry with only id is a 400 and nothing is written', async () => {
    const f = await fixture();
    const [link] = await f.api.create([full(f)]);
    const [updated] = await f.api.upsert([{ id: link!.id, title: 'Renamed' }]);
    const { updatedAt: _a, ...was } = link!;
    const { updatedAt: _b, ...now } = updated!;
    expect(now).toEqual({ ...was, title: 'Renamed' });
    expect(await f.api.one(link!.id)).toEqual(updated);

    const before = await f.api.all();
    expect400(await f.api.put([minimal(f, { title: 'new' }), { id: randomUUID(), title: 'ghost' }]), '[1].id');
    expect400(await f.api.put([{ id: link!.id }]), '[0]');
    expect400(await f.api.put([{ id: link!.id, notAField: 'x' }]), '[0]');
    expect400(await f.api.put([{ id: 'not-a-uuid', title: 'x' }]), '[0].id');
    expect(await f.api.all()).toEqual(before);
  });

  it('rule 2: an insert is validated like POST and accepts only geo: null among nulls', async () => {
    const f = await fixture();
    const bad: [Item, string][] = [
      [{ collectionId: f.collectionId, title: 'no url' }, '[0].url'],
      [{ url: 'https://example.com/' }, '[0].collectionId'],
      [minimal(f, { url: 'http://example.com/' }), '[0].url'],
      [minimal(f, { collectionId: randomUUID() }), '[0].collectionId'],
      [minimal(f, { geo: { us: 'https://example.com/' } }), '[0].geo.us'],
      [minimal(f, { tagIds: [randomUUID()] }), '[0].tagIds[0]'],
      [minimal(f, { expiresAt: '2031-01-01T00:00:00' }), '[0].expiresAt'],
    ];
    for (const field of [
      'title',
      'description',
      'image',
      'utm',
      'expiresAt',
      'expiredUrl',
      'password',
      'cloaked',
      'ios',
      'android',
      'externalId',
      'tenantId',
      'partnerId',
      'tagIds',
    ]) {
      bad.push([minimal(f, { [field]: null }), `[0].${field}`]);
    }
    for (const [item, field] of bad) expect400(await f.api.put([item]), field);
    expect(await f.api.all()).toEqual([]);

    const free = await fixture('free');
    const error = expect400(await free.api.put([minimal(free, { password: 'pw' })]), '[0].password');
    expect(error.en).toMatch(/password/i);
    expect(await free.api.all()).toEqual([]);

    const [inserted] = await f.api.upsert([minimal(f, { geo: null, title: 'via PUT' })]);
    expect(inserted).toMatchObject({ geo: null, title: 'via PUT', url: 'https://example.com/landing' });
    expect(await f.api.all()).toEqual([inserted]);
  });

  it('rule 3: null clears expiresAt, expiredUrl, password, ios, android, geo; cloaked false or null disables; a null utm key removes only that key', async () => {
    const f = await fixture();
    const [a, b] = await f.api.create([full(f), { ...full(f), externalId: 'other' }]);
    expect(a!.cloaked && b!.cloaked).toBe(true);

    const [cleared] = await f.api.upsert([
      {
        id: a!.id,
        expiresAt: null,
        expiredUrl: null,
        password: null,
        ios: null,
        android: null,
        geo: null,
        cloaked: null,
        utm: { source: null, campaign: 'summer' },
      },
    ]);
    expect(cleared).toMatchObject({ expiresAt: null, expiredUrl: null, password: null, ios: null, android: null, geo: null, cloaked: false });
    expect(cleared!.utm).toEqual({ medium: 'email', campaign: 'summer', term: 'shoes', content: 'hero', referral: 'friend' });
    // Everything else is kept.
    expect(cleared).toMatchObject({ title: a!.title, url: a!.url, image: a!.image, tagIds: a!.tagIds, partnerId: f.partnerId, externalId: 'order-42' });
    expect(await f.api.one(a!.id)).toEqual(cleared);
    expect(await sealedPassword(a!.id)).toBeNull();

    const [disabled] = await f.api.upsert([{ id: b!.id, cloaked: false }]);
    expect(disabled!.cloaked).toBe(false);
    expect((await f.api.one(b!.id)).cloaked).toBe(false);
    expect((await f.api.one(b!.id)).password).toBe('correct horse battery staple');
  });

  it('rule 4: tagIds omitted keeps the assignments, a list replaces them, [] clears them', async () => {
    const f = await fixture();
    const [t0, t1, t2] = f.tagIds;
    const [link] = await f.api.create([minimal(f, { tagIds: [t0, t1] })]);

    expect((await f.api.upsert([{ id: link!.id, title: 'no tag change' }]))[0]!.tagIds).toEqual([t0, t1]);
    expect((await f.api.one(link!.id)).tagIds).toEqual([t0, t1]);

    expect((await f.api.upsert([{ id: link!.id, tagIds: [t2, t0] }]))[0]!.tagIds).toEqual([t2, t0]);
    expect((await f.api.one(link!.id)).tagIds).toEqual([t2, t0]);

    const before = await f.api.all();
    expect400(await f.api.put([{ id: link!.id, tagIds: [t1, randomUUID()] }]), '[0].tagIds[1]');
    expect400(await f.api.put([{ id: link!.id, tagIds: null }]), '[0].tagIds');
    expect(await f.api.all()).toEqual(before);

    expect((await f.api.upsert([{ id: link!.id, tagIds: [] }]))[0]!.tagIds).toEqual([]);
    expect((await f.api.one(link!.id)).tagIds).toEqual([]);
  });

  it('rule 5: url and collectionId are optional on update, and can be changed (not cleared)', async () => {
    const f = await fixture();
    const [link] = await f.api.create([minimal(f, { title: 'first' })]);
    const [titled] = await f.api.upsert([{ id: link!.id, title: 'second' }]);
    expect(titled).toMatchObject({ url: link!.url, collectionId: f.collectionId, title: 'second' });

    const [moved] = await f.api.upsert([{ id: link!.id, url: 'https://example.org/new', collectionId: f.collection2Id }]);
    expect(moved).toMatchObject({ url: 'https://example.org/new', collectionId: f.collection2Id, title: 'second' });

    const before = await f.api.all();
    expect400(await f.api.put([{ id: link!.id, url: null }]), '[0].url');
    expect400(await f.api.put([{ id: link!.id, collectionId: null }]), '[0].collectionId');
    expect400(await f.api.put([{ id: link!.id, url: 'http://example.org/' }]), '[0].url');
    expect400(await f.api.put([{ id: link!.id, collectionId: randomUUID() }]), '[0].collectionId');
    expect(await f.api.all()).toEqual(before);
  });

  it('rule 6: feature fields of an update are not applied without the plan, the rest is', async () => {
    const f = await fixture('free');
    const [link] = await f.api.create([minimal(f)]);
    const [updated] = await f.api.upsert([{ id: link!.id, password: 'x', title: 't' }]);
    expect(updated).toMatchObject({ title: 't', password: null });
    expect(await sealedPassword(link!.id)).toBeNull();

    const [again] = await f.api.upsert([
      {
        id: link!.id,
        description: 'd',
        expiresAt: '2031-01-01T00:00:00Z',
        expiredUrl: 'https://e.com/x',
        cloaked: true,
        ios: 'https://e.com/i',
        android: 'https://e.com/a',
        geo: { US: 'https://e.com/us' },
      },
    ]);
    expect(again).toMatchObject({ description: 'd', expiresAt: null, expiredUrl: null, cloaked: false, ios: null, android: null, geo: null, password: null });
    expect(await f.api.one(link!.id)).toEqual(again);

    const pro = await fixture('pro');
    const [p] = await pro.api.create([minimal(pro)]);
    const [proUpdated] = await pro.api.upsert([
      { id: p!.id, password: 'pw', ios: 'https://e.com/i', geo: { US: 'https://e.com/us' }, cloaked: true, title: 'pro' },
    ]);
    expect(proUpdated).toMatchObject({ password: 'pw', ios: 'https://e.com/i', geo: null, cloaked: false, title: 'pro' });
  });

  it('answers in input order, mixing inserts and updates', async () => {
    const f = await fixture();
    const [a, b] = await f.api.create([minimal(f, { title: 'A' }), minimal(f, { title: 'B' })]);
    const out = await f.api.upsert([
      { id: b!.id, title: 'B2' },
      minimal(f, { title: 'X', url: 'https://example.com/x' }),
      { id: a!.id.toUpperCase(), title: 'A2' },
      minimal(f, { title: 'Y', url: 'https://example.com/y' }),
    ]);
    expect(out.map((l) => l.title)).toEqual(['B2', 'X', 'A2', 'Y']);
    expect(out[0]!.id).toBe(b!.id);
    expect(out[2]!.id).toBe(a!.id);
    expect(out[1]!.url).toBe('https://example.com/x');
    expect(out[3]!.url).toBe('https://example.com/y');
    expect(new Set(idsOf(out)).size).toBe(4);
    const all = await f.api.all();
    expect(sorted(idsOf(all))).toEqual(sorted(idsOf(out)));
    for (const l of out) expect(all.find((x) => x.id === l.id)).toEqual(l);
  });
});

describe('DELETE /api/links', () => {
  it('soft-deletes: the links vanish from GET and updates, the rows stay', async () => {
    const f = await fixture();
    const [a, b] = await f.api.create([minimal(f, { title: 'a' }), minimal(f, { title: 'b' })]);
    const res = await f.api.del([a!.id.toUpperCase()]);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<{ deletedIds: string[] }>().deletedIds.map((id) => id.toLowerCase())).toEqual([a!.id]);
    expect(await f.api.all()).toEqual([b]);
    expect(await f.api.query(`id=${a!.id}`)).toEqual([]);
    expect400(await f.api.put([{ id: a!.id, title: 'revived?' }]), '[0].id');
    const kept = await rows<{ deleted: boolean }>(t.database.db, sql`SELECT deleted_at IS NOT NULL AS deleted FROM links WHERE id = ${a!.id}::uuid`);
    expect(kept).toEqual([{ deleted: true }]);
  });

  it('missing, invalid, unknown or already deleted ids are a 400 and nothing is deleted', async () => {
    const f = await fixture();
    const [a, b] = await f.api.create([minimal(f), minimal(f)]);
    expect((await f.api.del([a!.id])).statusCode).toBe(200);
    const before = await f.api.all();
    expect(before).toEqual([b]);

    expect400(await f.api.del([]));
    expect400(await f.api.del(['not-a-uuid']), '[0]');
    expect400(await f.api.del([b!.id, randomUUID()]), '[1]');
    expect400(await f.api.del([b!.id, a!.id]), '[1]');
    expect400(await f.api.del({ ids: [b!.id] }));
    expect400(await f.api.del(b!.id));
    expect(await f.api.all()).toEqual(before);
  });
});

describe('GET /api/links', () => {
  it('id, externalId, tenantId and partnerId filters combine as "any of"', async () => {
    const f = await fixture();
    const [l1, l2, l3, l4, l5] = await f.api.create([
      minimal(f, { externalId: 'e-1' }),
      minimal(f, { tenantId: 't-1' }),
      minimal(f, { partnerId: f.partnerId }),
      minimal(f, { externalId: 'e-4', tenantId: 't-4' }),
      minimal(f),
    ]);
    const q = async (query: string) => sorted(idsOf(await f.api.query(query)));
    expect(await q('externalId=e-1')).toEqual([l1!.id]);
    expect(await q('tenantId=t-1')).toEqual([l2!.id]);
    expect(await q(`partnerId=${f.partnerId}`)).toEqual([l3!.id]);
    expect(await q(`id=${l5!.id}`)).toEqual([l5!.id]);
    expect(await q('externalId=e-1&tenantId=t-1')).toEqual(sorted([l1!.id, l2!.id]));
    expect(await q(`id=${l5!.id}&partnerId=${f.partnerId}&externalId=e-4`)).toEqual(sorted([l3!.id, l4!.id, l5!.id]));
    expect(await q('tenantId=t-4&externalId=e-4')).toEqual([l4!.id]);
    expect(await q('tenantId=t-1&externalId=no-such')).toEqual([l2!.id]);
    expect(await q('externalId=no-such')).toEqual([]);
    expect(await q(`partnerId=${randomUUID()}`)).toEqual([]);
    expect(await q('')).toHaveLength(5);
  });

  it('takes the common list parameters: take (default 50), skip, sort (default desc); paging visits every link once in both orders', async () => {
    const f = await fixture();
    const first = await f.api.create(Array.from({ length: 30 }, (_, i) => minimal(f, { title: `a${i}` })));
    const second = await f.api.create(Array.from({ length: 25 }, (_, i) => minimal(f, { title: `b${i}` })));
    const created = idsOf([...first, ...second]);

    const byDefault = await f.api.query('');
    expect(byDefault).toHaveLength(50);
    expect(idsOf(byDefault)).toEqual([...created].reverse().slice(0, 50));
    expect(idsOf(await f.api.query('take=5000&sort=asc'))).toEqual(created);

    for (const sort of ['asc', 'desc'] as const) {
      const seen: string[] = [];
      for (let skip = 0; ; skip += 7) {
        const page = await f.api.query(`sort=${sort}&take=7&skip=${skip}`);
        expect(page.length).toBeLessThanOrEqual(7);
        seen.push(...idsOf(page));
        if (page.length < 7) break;
      }
      expect(seen).toEqual(sort === 'asc' ? created : [...created].reverse());
    }
    expect(await f.api.query('skip=55')).toEqual([]);
    expect(idsOf(await f.api.query('take=1&skip=54&sort=asc'))).toEqual([created[54]]);
  });

  it('invalid filters and list parameters are a 400', async () => {
    const f = await fixture();
    await f.api.create([minimal(f)]);
    for (const query of ['partnerId=not-uuid', 'id=nope', 'take=0', 'take=5001', 'take=ten', 'take=1.5', 'skip=-1', 'sort=up']) {
      const res = await f.api.list(query);
      expect(res.statusCode, query).toBe(400);
      expect400(res, undefined, 'invalid_query');
    }
  });
});

describe('tag deletion', () => {
  it('DELETE /api/tags removes the tag from every link, keeping the other tags', async () => {
    const f = await fixture();
    const [t0, t1, t2] = f.tagIds;
    const [a, b, c] = await f.api.create([minimal(f, { tagIds: [t0, t1, t2] }), minimal(f, { tagIds: [t1] }), minimal(f, { tagIds: [t2, t0] })]);
    const res = await f.api.send('DELETE', '/api/tags', [t1]);
    expect(res.statusCode, res.body).toBe(200);
    expect((await f.api.one(a!.id)).tagIds).toEqual([t0, t2]);
    expect((await f.api.one(b!.id)).tagIds).toEqual([]);
    expect((await f.api.one(c!.id)).tagIds).toEqual([t2, t0]);
    expect400(await f.api.put([{ id: b!.id, tagIds: [t1] }]), '[0].tagIds[0]');
  });
});

describe('workspace isolation', () => {
  it("another workspace's collections, tags, partners and links are unknown; GET shows only the workspace's own links", async () => {
    const a = await fixture();
    const b = await fixture();
    const [mine] = await a.api.create([minimal(a, { externalId: 'shared-ext', tenantId: 'shared-tenant' })]);
    const [theirs] = await b.api.create([minimal(b, { externalId: 'shared-ext', tenantId: 'shared-tenant', partnerId: b.partnerId })]);
    const aBefore = await a.api.all();
    const bBefore = await b.api.all();

    expect400(await a.api.post([minimal(a, { collectionId: b.collectionId })]), '[0].collectionId');
    expect400(await a.api.post([minimal(a, { tagIds: [b.tagIds[0]] })]), '[0].tagIds[0]');
    expect400(await a.api.post([minimal(a, { partnerId: b.partnerId })]), '[0].partnerId');
    expect400(await a.api.put([{ id: theirs!.id, title: 'hijack' }]), '[0].id');
    expect400(await a.api.put([{ id: mine!.id, collectionId: b.collectionId }]), '[0].collectionId');
    expect400(await a.api.del([theirs!.id]), '[0]');
    expect(await a.api.all()).toEqual(aBefore);
    expect(await b.api.all()).toEqual(bBefore);

    expect(idsOf(await a.api.all())).toEqual([mine!.id]);
    expect(await a.api.query(`id=${theirs!.id}`)).toEqual([]);
    expect(idsOf(await a.api.query('externalId=shared-ext'))).toEqual([mine!.id]);
    expect(idsOf(await a.api.query(`tenantId=shared-tenant&partnerId=${b.partnerId}`))).toEqual([mine!.id]);
    expect(idsOf(await b.api.query('externalId=shared-ext'))).toEqual([theirs!.id]);
  });
});
