/**
 * Property tests of POST and PUT /api/links with arbitrary items (a mix of valid and invalid
 * values of every kind, on every plan): the answer is always 201/200 or 400, never a 500;
 * a 400 changes nothing; a success writes exactly what it answers.
 */
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Plan } from '../../../src/core/plans.js';
import { bearer, startTestApp, type TestApp } from '../../helpers/app.js';
import { propertyRuns } from '../../helpers/property-runs.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t?.close();
});

type Item = Record<string, unknown>;
interface Link {
  id: string;
  [field: string]: unknown;
}

interface World {
  plan: Plan;
  send(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown): Promise<LightMyRequestResponse>;
  all(): Promise<Link[]>;
  collections: string[];
  deletedCollection: string;
  tags: string[];
  partner: string;
  deletedPartner: string;
  links: string[];
}

interface Foreign {
  collection: string;
  tag: string;
  partner: string;
  link: string;
}

async function world(plan: Plan): Promise<World> {
  const ws = await t.workspace({ plan, rateLimitPerMinute: 1_000_000 });
  const send: World['send'] = (method, url, body) =>
    body === undefined
      ? t.inject({ method, url, headers: bearer(ws.key) })
      : t.inject({ method, url, headers: { ...bearer(ws.key), 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  const made = async (path: string, items: Item[], status = 201) => {
    const res = await send('POST', path, items);
    expect(res.statusCode, res.body).toBe(status);
    return res.json<{ id: string }[]>().map((r) => r.id);
  };
  const [c1, c2, gone] = (await made('/api/collections', [{ name: 'a' }, { name: 'b' }, { name: 'gone' }])) as [string, string, string];
  const tags = await made('/api/tags', [{ name: 'red' }, { name: 'green' }, { name: 'blue' }]);
  const [partner, deletedPartner] = (await made('/api/partners', [{ name: 'p' }, { name: 'gone' }])) as [string, string];
  expect((await send('DELETE', '/api/collections', [gone])).statusCode).toBe(200);
  expect((await send('DELETE', '/api/partners', [deletedPartner])).statusCode).toBe(200);
  const links = await made(
    '/api/links',
    Array.from({ length: 4 }, (_, i) => ({ url: `https://seed.test/${i}`, collectionId: c1, externalId: `e${i + 1}`, tagIds: [tags[i % 3]] })),
  );
  const all = async () => {
    const res = await send('GET', '/api/links?take=5000&sort=asc');
    expect(res.statusCode, res.body).toBe(200);
    return res.json<Link[]>();
  };
  return { plan, send, all, collections: [c1, c2], deletedCollection: gone, tags, partner, deletedPartner, links };
}

/** Mostly valid, sometimes invalid. */
const mix = <T, U>(valid: fc.Arbitrary<T>, invalid: fc.Arbitrary<U>, invalidWeight = 1) =>
  fc.oneof({ weight: 20, arbitrary: valid }, { weight: invalidWeight, arbitrary: invalid });
/** Left out (undefined: JSON drops it) `absent` times out of `absent + 1`. */
const maybe = <T>(arb: fc.Arbitrary<T>, absent = 1) => fc.oneof({ weight: absent, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });

/** Strings a database or a JSON layer may choke on. */
const NASTY = ['', ' ', '\u0000', 'a\u0000b', '\ud800', 'x\udfff', '😀', 'مرحبا', "'; DROP TABLE links; --", '%00', '\\u0000', 'x'.repeat(3000)];
const nasty = fc.constantFrom(...NASTY);
const json = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 5 }),
  fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.string({ maxLength: 3 }), { maxKeys: 2 }),
);
const text = mix(fc.string({ maxLength: 40 }), fc.oneof(nasty, json, fc.string({ unit: 'binary', maxLength: 6 })), 2);

// Hosts that never resolve to anything reachable: a cloaked destination is refused at once.
const HOSTS = ['dest.example.invalid', 'shop.test', 'xn--caf-dma.test', '127.0.0.1', '10.1.2.3', '[::1]', '[2001:db8::1]', 'localhost'];
const httpsUrl = fc
  .tuple(fc.constantFrom(...HOSTS), fc.webPath(), fc.option(fc.webQueryParameters(), { nil: undefined }))
  .map(([host, path, query]) => `https://${host}${path}${query ? `?${query}` : ''}`);
const badUrl = fc.oneof(
  httpsUrl.map((u) => u.replace('https:', 'http:')),
  fc.constantFrom(
    'ftp://x.test/',
    'javascript:alert(1)',
    'x.test/path',
    '',
    'https://',
    'https://exa mple.test/',
    '//x.test/',
    `https://x.test/${'a'.repeat(5000)}`,
  ),
  text,
);
const urlOrNull = mix(httpsUrl, fc.oneof(badUrl, fc.constant(null)));
const offsets = fc.constantFrom('Z', '+00:00', '+02:00', '-05:30', '+14:00', '-12:00');
const dateTime = fc
  .tuple(fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true }), offsets)
  .map(([d, off]) => `${d.toISOString().slice(0, 19)}${off}`);
const badDateTime = fc.constantFrom(
  '2030-01-01T00:00:00',
  '2030-01-01',
  '2030-02-30T00:00:00Z',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59-23:59',
  '10000-01-01T00:00:00Z',
  'soon',
  1_900_000_000,
  null,
);
const countryUrl = fc.dictionary(fc.constantFrom('US', 'GB', 'DE', 'FR', 'JP', 'BR'), httpsUrl, { maxKeys: 3 });
const badGeo = fc.oneof(
  fc.constant(null),
  fc.constantFrom('us', 'UK', 'XX', 'USA', '', 'constructor').chain((k) => httpsUrl.map((u) => ({ [k]: u }))),
  fc.constantFrom({ US: 'http://x.test/' }, { US: 5 }, { US: null }, [], 'US'),
);
const utmValue = mix(fc.string({ maxLength: 20 }), fc.oneof(fc.constant(null), nasty, fc.integer(), fc.constant('x'.repeat(501))));
const utm = mix(
  fc.record({ source: utmValue, medium: utmValue, campaign: utmValue, term: utmValue, content: utmValue, referral: utmValue }, { requiredKeys: [] }),
  fc.oneof(fc.constant(null), fc.constant('utm'), fc.constant([])),
);

/** The fields of one item, ids drawn from `w` (own, deleted, foreign, random, malformed). */
function fields(w: World, foreign: Foreign) {
  const uuid = fc.uuid();
  const collection = mix(
    fc.constantFrom(...w.collections, w.collections[0]!.toUpperCase()),
    fc.oneof(fc.constantFrom(w.deletedCollection, foreign.collection, 'nope', null, 7), uuid),
  );
  const tagIds = mix(
    fc.subarray(w.tags),
    fc.oneof(
      fc.constant([w.tags[0], w.tags[0]]),
      fc.constant([foreign.tag]),
      uuid.map((u) => [w.tags[1], u]),
      fc.constantFrom(null, 'red', [1], ['nope']),
    ),
  );
  const partner = mix(fc.constant(w.partner), fc.oneof(fc.constantFrom(w.deletedPartner, foreign.partner, 'nope', null), uuid));
  return {
    collectionId: collection,
    tagIds: maybe(tagIds),
    title: maybe(text),
    description: maybe(text),
    image: maybe(urlOrNull, 2),
    utm: maybe(utm),
    // Plan-gated fields are left out more often, so that free and pro requests can succeed.
    expiresAt: maybe(mix(dateTime, badDateTime, 2), 3),
    expiredUrl: maybe(urlOrNull, 4),
    password: maybe(mix(fc.string({ minLength: 1, maxLength: 30 }), fc.oneof(fc.constantFrom('', null, 5, 'x'.repeat(129)), nasty)), 3),
    cloaked: maybe(mix(fc.constantFrom(false, false, false, true), fc.constantFrom(null, 'true', 1)), 3),
    ios: maybe(urlOrNull, 4),
    android: maybe(urlOrNull, 4),
    geo: maybe(mix(countryUrl, badGeo), 4),
    externalId: maybe(mix(fc.constantFrom('e1', 'e2', 'e5', 'e6', 'E1', 'e7', 'e8'), fc.oneof(fc.constantFrom('', null, 5, 'x'.repeat(256)), nasty))),
    tenantId: maybe(text, 2),
    partnerId: maybe(partner, 2),
    somethingElse: maybe(json, 3),
  };
}

function createItem(w: World, foreign: Foreign): fc.Arbitrary<Item> {
  const f = fields(w, foreign);
  return fc.record({
    ...f,
    url: mix(httpsUrl, fc.oneof(badUrl, fc.constant(undefined))),
    collectionId: mix(f.collectionId, fc.constant(undefined)),
  });
}

function updateItem(w: World, foreign: Foreign): fc.Arbitrary<Item> {
  const f = fields(w, foreign);
  const id = mix(fc.constantFrom(...w.links, w.links[0]!.toUpperCase()), fc.oneof(fc.constantFrom(foreign.link, 'nope', null), fc.uuid()));
  return fc.record({ ...f, id, url: maybe(mix(httpsUrl, badUrl), 2), collectionId: maybe(f.collectionId, 3) });
}

const PLANS: Plan[] = ['free', 'pro', 'business', 'enterprise'];

describe('property: POST and PUT /api/links', () => {
  let worlds: Record<Plan, World>;
  let foreign: Foreign;

  beforeAll(async () => {
    const other = await world('enterprise');
    foreign = { collection: other.collections[0]!, tag: other.tags[0]!, partner: other.partner, link: other.links[0]! };
    worlds = {} as Record<Plan, World>;
    for (const plan of PLANS) worlds[plan] = await world(plan);
  });

  async function expectFailureChangedNothing(res: LightMyRequestResponse, w: World, before: Link[]): Promise<void> {
    const { error } = res.json<{ error: { en: string; ar: string; code: string } }>();
    expect(typeof error.code).toBe('string');
    expect(error.en.length).toBeGreaterThan(0);
    expect(error.ar.length).toBeGreaterThan(0);
    expect(await w.all()).toEqual(before);
  }

  it('POST: only 201 or 400; a 400 writes nothing; a 201 adds exactly the links it returns', async () => {
    const seen = { 201: 0, 400: 0 };
    const request = fc
      .constantFrom(...PLANS)
      .chain((plan) => fc.tuple(fc.constant(plan), fc.array(createItem(worlds[plan], foreign), { minLength: 1, maxLength: 3 })));
    const c = worlds.enterprise.collections[0]!;
    await fc.assert(
      fc.asyncProperty(request, async ([plan, items]) => {
        const w = worlds[plan];
        const before = await w.all();
        const res = await w.send('POST', '/api/links', items);
        expect([201, 400], `${res.statusCode} ${res.body}`).toContain(res.statusCode);
        seen[res.statusCode as 201 | 400]++;
        if (res.statusCode === 400) return expectFailureChangedNothing(res, w, before);
        const created = res.json<Link[]>();
        expect(created).toHaveLength(items.length);
        expect(await w.all()).toEqual([...before, ...created]);
      }),
      {
        numRuns: propertyRuns(200),
        // Known troublemakers first: NUL characters, lone surrogates, years PostgreSQL cannot store.
        examples: [
          [['enterprise', [{ url: 'https://x.test/', collectionId: c, title: 'a\u0000b' }]]],
          [['enterprise', [{ url: 'https://x.test/', collectionId: c, externalId: '\ud800' }]]],
          [['enterprise', [{ url: 'https://x.test/', collectionId: c, utm: { source: '\u0000' } }]]],
          [['enterprise', [{ url: 'https://x.test/', collectionId: c, expiresAt: '0000-01-01T00:00:00Z' }]]],
          [['enterprise', [{ url: 'https://x.test/', collectionId: c, expiresAt: '9999-12-31T23:59:59-23:59' }]]],
        ],
      },
    );
    // Both outcomes were exercised, so the property said something about each.
    expect(seen[201]).toBeGreaterThan(0);
    expect(seen[400]).toBeGreaterThan(0);
  });

  it('PUT: only 200 or 400; a 400 changes nothing; a 200 changes exactly the links it returns', async () => {
    const seen = { 200: 0, 400: 0 };
    const request = fc.constantFrom(...PLANS).chain((plan) => {
      const w = worlds[plan];
      const entry = fc.oneof({ weight: 2, arbitrary: updateItem(w, foreign) }, { weight: 1, arbitrary: createItem(w, foreign) });
      return fc.tuple(fc.constant(plan), fc.array(entry, { minLength: 1, maxLength: 3 }));
    });
    const link = worlds.enterprise.links[0]!;
    await fc.assert(
      fc.asyncProperty(request, async ([plan, items]) => {
        const w = worlds[plan];
        const before = await w.all();
        const res = await w.send('PUT', '/api/links', items);
        expect([200, 400], `${res.statusCode} ${res.body}`).toContain(res.statusCode);
        seen[res.statusCode as 200 | 400]++;
        if (res.statusCode === 400) return expectFailureChangedNothing(res, w, before);

        const out = res.json<Link[]>();
        expect(out).toHaveLength(items.length);
        const after = await w.all();
        const byId = new Map(after.map((l) => [l.id, l]));
        // Every returned link is stored as returned; updates keep their ids, in input order.
        for (const [i, l] of out.entries()) {
          expect(byId.get(l.id)).toEqual(l);
          const id = items[i]!.id;
          if (typeof id === 'string') expect(l.id).toBe(id.toLowerCase());
        }
        const touched = new Set(out.map((l) => l.id));
        expect(after.filter((l) => !touched.has(l.id))).toEqual(before.filter((l) => !touched.has(l.id)));
        const inserted = out.filter((l) => !before.some((b) => b.id === l.id));
        expect(after).toHaveLength(before.length + inserted.length);
      }),
      {
        numRuns: propertyRuns(200),
        examples: [
          [['enterprise', [{ id: link, title: 'a\u0000b' }]]],
          [['enterprise', [{ id: link, tenantId: '\udfff' }]]],
          [['enterprise', [{ id: link, expiresAt: '0000-01-01T00:00:00Z' }]]],
        ],
      },
    );
    expect(seen[200]).toBeGreaterThan(0);
    expect(seen[400]).toBeGreaterThan(0);
  });
});
