/**
 * Property (issue 11, defect 1): whatever string a client sends in any URL field of a link
 * (url, image, expiredUrl, ios, android, geo values), on create or update, the API answers
 * 201/200 or a 400 with the error body — never a 500 — and every stored link, visited from
 * every branch (desktop, iOS, Android, two countries, expired, cloaked), gives a valid answer:
 * a 302 whose Location is visible ASCII and an absolute https URL, or a 200/401/410 page. The
 * process keeps answering /healthz. A sample is visited over a real socket twice (the second
 * visit takes the redirect fast path, which only runs on real sockets).
 */
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../helpers/app.js';
import { startFramableSite } from '../../helpers/framable-site.js';
import { ANDROID, DESKTOP, IPHONE } from '../../helpers/visitors.js';
import { propertyRuns } from '../../helpers/property-runs.js';

const COUNTRY_HEADER = 'x-test-country';
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;
const URL_FIELDS = ['url', 'image', 'expiredUrl', 'ios', 'android'] as const;

let t: TestApp;
let base: string;
let key: string;
let collectionId: string;
let site: { url: string; close(): Promise<void> };

beforeAll(async () => {
  site = await startFramableSite();
  // Private destinations allowed, so the cloaking check can reach the framable site on 127.0.0.1.
  t = await startTestApp({ env: { ALLOW_PRIVATE_DESTINATIONS: 'true', COUNTRY_HEADER } });
  await t.runtime.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.runtime.app.server.address() as AddressInfo).port}`;
  key = (await t.workspace({ plan: 'business', rateLimitPerMinute: 1_000_000 })).key;
  const col = await send('POST', '/api/collections', [{ name: 'properties' }]);
  collectionId = col.json<{ id: string }[]>()[0]!.id;
}, 60_000);

afterAll(async () => {
  await t?.close();
  await site?.close();
});

function send(method: 'POST' | 'PUT', url: string, body: unknown): Promise<LightMyRequestResponse> {
  return t.inject({ method, url, headers: { ...bearer(key), 'content-type': 'application/json' }, payload: JSON.stringify(body) });
}

/** A 2xx, or a 400 with the standard error body (never a 500). */
function expectAnswered(res: LightMyRequestResponse, ok: number): boolean {
  if (res.statusCode === ok) return true;
  expect(res.statusCode, res.body).toBe(400);
  const { error } = res.json<{ error: { en: string; ar: string; code: string } }>();
  expect(error.code).toMatch(/^[a-z_]+$/);
  expect(error.en.length).toBeGreaterThan(0);
  expect(error.ar.length).toBeGreaterThan(0);
  return false;
}

/** A valid visitor answer: a 302 to an absolute https URL of visible ASCII, or a page. */
function expectValidVisit(status: number, location: string | null | undefined, what: string): void {
  expect([200, 302, 401, 410], what).toContain(status);
  if (status !== 302) return;
  expect(location, what).toMatch(VISIBLE_ASCII);
  // Absolute: a browser resolves it against the short link's own URL, and `https:host` (no
  // slashes) would then be a path on the short-link host.
  expect(location, what).toMatch(/^https:\/\/[^/?#\\]/);
  expect(new URL(location!, 'https://lt.test/abc').href, what).toBe(new URL(location!).href);
}

/** What the API returned for a stored link: every URL field visible ASCII. */
function expectStoredAscii(link: Record<string, unknown>): void {
  for (const f of URL_FIELDS) if (typeof link[f] === 'string') expect(link[f], f).toMatch(VISIBLE_ASCII);
  for (const [c, v] of Object.entries((link.geo as Record<string, string> | null) ?? {})) expect(v, `geo.${c}`).toMatch(VISIBLE_ASCII);
}

const BRANCHES: Record<string, Record<string, string>> = {
  desktop: { 'user-agent': DESKTOP },
  ios: { 'user-agent': IPHONE },
  android: { 'user-agent': ANDROID },
  de: { 'user-agent': DESKTOP, [COUNTRY_HEADER]: 'DE' },
  jp: { 'user-agent': IPHONE, [COUNTRY_HEADER]: 'JP' },
};

async function visitEveryBranch(shortUrl: string, overSocket: boolean): Promise<void> {
  const path = new URL(shortUrl).pathname;
  for (const [name, headers] of Object.entries(BRANCHES)) {
    const res = await t.inject({ method: 'GET', url: path, headers });
    expectValidVisit(res.statusCode, res.headers.location as string | undefined, `${name} ${path}`);
    if (!overSocket) continue;
    // Twice: the first loads the link into the cache, the second is answered by the fast path.
    for (let i = 0; i < 2; i++) {
      const real = await fetch(base + path, { redirect: 'manual', headers });
      await real.arrayBuffer();
      expectValidVisit(real.status, real.headers.get('location'), `${name} over a socket ${path}`);
    }
  }
  const health = await t.inject({ method: 'GET', url: '/healthz' });
  expect(health.statusCode).toBe(200);
}

// Strings a URL field may receive: pieces of URLs and of hostile text, joined after a prefix.
const piece = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom(
    '\r\n',
    '\n',
    '\r',
    '\t',
    ' ',
    '\u0000',
    '\u007f',
    '\u0085',
    '\u00a0',
    '\u2028',
    '\ufeff',
    '\u202e',
    '\ud800',
    '\udfff',
    '%',
    '%0d%0a',
    '%00',
    '%zz',
    '%E2%80%AE',
    '?',
    '#',
    '&',
    '=',
    '@',
    ':',
    '/',
    '//',
    '\\',
    '..',
    '.',
    '[',
    ']',
    '[::1]',
    '[::127.0.0.1]',
    'bücher',
    'straße',
    '例え',
    'xn--',
    'xn--bcher-kva',
    'ltid=x',
    'utm_source=y',
    'Set-Cookie: a=b',
    '<script>',
    '"',
    "'",
    '`',
    '{',
    '}',
  ),
);
const PREFIXES = [
  'https://',
  'https:',
  'HTTPS://',
  'https:/',
  'https:\\\\',
  'https://dest.example/',
  'https://dest.example/p?x=',
  'https://bücher.example/straße?q=',
  'https://例え.テスト/',
  'https://[::1]/',
  'http://',
  'javascript:',
  '',
  ' https://a.example/',
  'https://a.example/#',
];
const urlString = fc.oneof(
  { weight: 12, arbitrary: fc.tuple(fc.constantFrom(...PREFIXES), fc.array(piece, { maxLength: 6 })).map(([p, parts]) => p + parts.join('')) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('https://a.example/', 'https:a.example/'), fc.constantFrom('a', 'é', '例', '%', ' '), fc.integer({ min: 1000, max: 4200 }))
      .map(([p, c, n]) => p + c.repeat(n)),
  },
);

// Values the rule should accept, spelled in ways it must normalise (so that many links get stored).
const isControl = (c: string) => c.charCodeAt(0) <= 0x1f || (c.charCodeAt(0) >= 0x7f && c.charCodeAt(0) <= 0x9f);
const CONTROL_OR_EDGE_SPACE = (v: string) => [...v].some(isControl) || v.trim() !== v || !v.isWellFormed();
const storableUrl = fc
  .tuple(
    fc.constantFrom(
      'https://dest.example/',
      'https:dest.example/',
      'HTTPS://Bücher.Example/straße?',
      'https://例え.テスト/',
      'https://[::1]/',
      'https:\\\\x.example\\',
      'https://a.example/p?q=1&',
    ),
    fc.array(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 10 }), fc.constantFrom('%', '%zz', ' ', '\u2028', '\u202e', '#', '?', 'ü', '..', '//')), {
      maxLength: 5,
    }),
  )
  .map(([p, parts]) => p + parts.join('') + 'x')
  .filter((v) => !CONTROL_OR_EDGE_SPACE(v));
const fieldValue = fc.oneof({ weight: 4, arbitrary: storableUrl }, { weight: 1, arbitrary: urlString });

const urlFields = fc.record(
  {
    url: fieldValue,
    image: fieldValue,
    expiredUrl: fieldValue,
    ios: fieldValue,
    android: fieldValue,
    geo: fc.dictionary(fc.constantFrom('DE', 'JP', 'FR'), fieldValue, { maxKeys: 3 }),
  },
  { requiredKeys: [] },
);

/** URLs of the framable site in different spellings, with hostile suffixes: cloaking can check them. */
const framableUrl = fc.tuple(fc.constantFrom('plain', 'no-slashes', 'upper'), fc.array(piece, { maxLength: 3 })).map(([spelling, parts]) => {
  const u = new URL(site.url);
  const head =
    spelling === 'plain' ? site.url : spelling === 'no-slashes' ? `https:${u.host}${u.pathname}` : site.url.toUpperCase().replace('/LANDING', '/landing');
  return `${head}?${parts.join('')}`;
});

describe('any string in any URL field', () => {
  it('is stored normalised or refused with a 400; every branch of every stored link answers validly; the process lives', async () => {
    let stored = 0;
    let run = 0;
    await fc.assert(
      fc.asyncProperty(urlFields, urlFields, fc.boolean(), async (create, update, expiredHasUrl) => {
        run++;
        const overSocket = run % 5 === 0;
        const created = await send('POST', '/api/links', [{ url: 'https://dest.example/', collectionId, ...create }]);
        let link: { id: string; shortUrl: string } | undefined;
        if (expectAnswered(created, 201)) {
          link = created.json<{ id: string; shortUrl: string }[]>()[0]!;
          expectStoredAscii(link as unknown as Record<string, unknown>);
          stored++;
          await visitEveryBranch(link.shortUrl, overSocket);
        } else {
          link = (await send('POST', '/api/links', [{ url: 'https://dest.example/', collectionId }])).json()[0];
        }
        const updated = await send('PUT', '/api/links', [{ id: link!.id, ...update }]);
        if (expectAnswered(updated, 200)) {
          stored++;
          expectStoredAscii(updated.json<Record<string, unknown>[]>()[0]!);
        }
        await visitEveryBranch(link!.shortUrl, overSocket);
        // Expired: to expiredUrl (as stored) or the 410 page.
        const expired = await send('PUT', '/api/links', [{ id: link!.id, expiresAt: '2001-01-01T00:00:00Z', ...(expiredHasUrl ? {} : { expiredUrl: null }) }]);
        expect(expired.statusCode, expired.body).toBe(200);
        await visitEveryBranch(link!.shortUrl, overSocket);
      }),
      { numRuns: propertyRuns(200) },
    );
    expect(stored).toBeGreaterThan(10);
  }, 120_000);

  it('cloaked links: any suffix on framable destinations in every field is stored normalised, and every branch answers validly', async () => {
    let stored = 0;
    await fc.assert(
      fc.asyncProperty(framableUrl, framableUrl, framableUrl, framableUrl, storableUrl, async (url, ios, android, de, image) => {
        const res = await send('POST', '/api/links', [{ url, ios, android, geo: { DE: de }, image, collectionId, cloaked: true }]);
        if (!expectAnswered(res, 201)) return;
        stored++;
        const link = res.json<{ id: string; shortUrl: string; cloaked: boolean; url: string }[]>()[0]!;
        expect(link.cloaked).toBe(true);
        expectStoredAscii(link);
        await visitEveryBranch(link.shortUrl, true);
      }),
      { numRuns: 30 },
    );
    expect(stored).toBeGreaterThan(5);
  }, 120_000);

  it('over a real socket the process still answers /healthz', async () => {
    const res = await fetch(`${base}/healthz`);
    expect(res.status).toBe(200);
  });
});
