/**
 * The one URL rule of the API (src/core/url-rule.ts): an absolute https URL with a host,
 * stored in its WHATWG-normalised form (`new URL(x).href`: punycode host, percent-encoded
 * path and query), refused with a 400 when it holds control characters or whitespace at
 * either end, and at most 4096 characters once normalised. Pure cases first, then the same
 * through HTTP for every URL field of a link and a partner's image, and the redirect's
 * Location built from the stored form.
 */
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkHttpsUrl, URL_MAX_LENGTH } from '../../src/core/url-rule.js';
import { bearer, startTestApp, type TestApp } from '../helpers/app.js';
import { ANDROID, IPHONE } from '../helpers/visitors.js';

const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

describe('checkHttpsUrl (pure)', () => {
  const normalised: [string, string][] = [
    ['https://example.com/landing?x=1#top', 'https://example.com/landing?x=1#top'],
    ['https:example.com', 'https://example.com/'],
    ['https:/example.com/a', 'https://example.com/a'],
    ['https:\\\\example.com\\a', 'https://example.com/a'],
    ['HTTPS://EXAMPLE.COM', 'https://example.com/'],
    ['https://example.com:443/a', 'https://example.com/a'],
    ['https://example.com/a/../b/./c', 'https://example.com/b/c'],
    ['https://bücher.example/straße?q=ü', 'https://xn--bcher-kva.example/stra%C3%9Fe?q=%C3%BC'],
    ['https://例え.テスト/パス', 'https://xn--r8jz45g.xn--zckzah/%E3%83%91%E3%82%B9'],
    ['https://example.com/a b?c d#e f', 'https://example.com/a%20b?c%20d#e%20f'],
    ['https://example.com/"<>`{}', 'https://example.com/%22%3C%3E%60%7B%7D'],
    ['https://example.com/100%', 'https://example.com/100%'],
    ['https://0x7f.1/', 'https://127.0.0.1/'],
    ['https://[::127.0.0.1]/', 'https://[::7f00:1]/'],
    ['https://example.com/\u202e', 'https://example.com/%E2%80%AE'],
  ];
  it.each(normalised)('%j is stored as %j', (input, href) => {
    expect(checkHttpsUrl(input)).toEqual({ ok: true, href });
  });

  const refused: [string, string][] = [
    ['http://example.com/', 'https_required'],
    ['ftp://example.com/', 'https_required'],
    ['/landing', 'https_required'],
    ['example.com', 'https_required'],
    ['https://', 'https_required'],
    ['https:', 'https_required'],
    ['https://exa mple.com/', 'https_required'],
    ['https://ex<ample.com/', 'https_required'],
    ['javascript:alert(1)', 'https_required'],
    ['', 'https_required'],
    ['https://example.com/a\r\nSet-Cookie: x=1', 'url_characters'],
    ['https://example.com/\n', 'url_characters'],
    ['https://exa\tmple.com/', 'url_characters'],
    ['https://example.com/\u0000', 'url_characters'],
    ['https://example.com/\u007f', 'url_characters'],
    ['https://example.com/\u0085', 'url_characters'],
    [' https://example.com/', 'url_characters'],
    ['https://example.com/ ', 'url_characters'],
    ['https://example.com/\u00a0', 'url_characters'],
    ['\ufeffhttps://example.com/', 'url_characters'],
    ['https://example.com/\ud800', 'url_characters'],
    [`https://example.com/${'ü'.repeat(1000)}`, 'max_length'],
  ];
  it.each(refused)('%j is refused: %s', (input, reason) => {
    expect(checkHttpsUrl(input)).toMatchObject({ ok: false, reason });
  });

  it('non-strings are refused', () => {
    for (const v of [5, null, undefined, {}, ['https://example.com/']]) expect(checkHttpsUrl(v)).toMatchObject({ ok: false, reason: 'https_required' });
  });

  it('at most 4096 characters once normalised (and a smaller limit on request)', () => {
    const at = (n: number) => `https://example.com/${'a'.repeat(n - 'https://example.com/'.length)}`;
    expect(checkHttpsUrl(at(URL_MAX_LENGTH))).toEqual({ ok: true, href: at(URL_MAX_LENGTH) });
    expect(checkHttpsUrl(at(URL_MAX_LENGTH + 1))).toMatchObject({ ok: false, reason: 'max_length', limit: URL_MAX_LENGTH });
    expect(checkHttpsUrl(at(2049), 2048)).toMatchObject({ ok: false, reason: 'max_length', limit: 2048 });
  });

  it('property: an accepted value is an absolute https URL of visible ASCII, within the limit, and normalising it again changes nothing', () => {
    const piece = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 30 }),
      fc.string({ unit: 'binary', maxLength: 30 }),
      fc.constantFrom(
        'https:',
        'https://',
        'HTTPS:',
        'https:/',
        '//',
        '\\',
        '%',
        '%zz',
        '%00',
        '?',
        '#',
        '@',
        ':',
        '[',
        ']',
        '::1',
        '.',
        '..',
        'xn--',
        'bücher',
        'straße',
        '\u200b',
        ' ',
        '\t',
        '\r\n',
      ),
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 8 }).map((p) => p.join('')),
        fc.constantFrom('', 'https:', 'https://', 'https://a.example/'),
        (tail, head) => {
          const input = head + tail;
          const verdict = checkHttpsUrl(input);
          if (!verdict.ok) return;
          expect(verdict.href).toMatch(VISIBLE_ASCII);
          expect(verdict.href.length).toBeLessThanOrEqual(URL_MAX_LENGTH);
          const url = new URL(verdict.href);
          expect(url.protocol).toBe('https:');
          expect(url.hostname).not.toBe('');
          expect(checkHttpsUrl(verdict.href)).toEqual({ ok: true, href: verdict.href });
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe('through HTTP', () => {
  let t: TestApp;
  let key: string;
  let collectionId: string;
  const send = (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown): Promise<LightMyRequestResponse> =>
    t.inject({ method, url, headers: { ...bearer(key), 'content-type': 'application/json' }, payload: body === undefined ? undefined : JSON.stringify(body) });

  beforeAll(async () => {
    t = await startTestApp({ env: { COUNTRY_HEADER: 'x-test-country' } });
    key = (await t.workspace({ plan: 'enterprise', rateLimitPerMinute: 1_000_000 })).key;
    const col = await send('POST', '/api/collections', [{ name: 'urls' }]);
    collectionId = col.json<{ id: string }[]>()[0]!.id;
  });
  afterAll(() => t?.close());

  function expect400(res: LightMyRequestResponse, field: string, reasonCode: 'url_characters' | 'max_length' | 'https_required') {
    expect(res.statusCode, res.body).toBe(400);
    const { error } = res.json<{ error: { code: string; en: string; ar: string } }>();
    expect(error.code).toBe('invalid_field');
    expect(error.en).toContain(`${field}:`);
    expect(error.ar).toContain(field);
    // NUL and lone surrogates are refused earlier, by the body's text check (cannot be stored).
    const said = { url_characters: /control|cannot be stored/, max_length: /4096/, https_required: /https/ }[reasonCode];
    expect(error.en).toMatch(said!);
  }

  it('every URL field of a link is stored, returned and used in its normalised form', async () => {
    const res = await send('POST', '/api/links', [
      {
        url: 'https:example.com',
        collectionId,
        image: 'HTTPS://IMG.EXAMPLE/a b.png',
        expiredUrl: 'https:/gone.example',
        ios: 'https://bücher.example/straße?q=ü',
        android: 'https://play.example:443/x/../y',
        geo: { DE: 'https:de.example', JP: 'https://例え.テスト/パス' },
      },
    ]);
    expect(res.statusCode, res.body).toBe(201);
    const expected = {
      url: 'https://example.com/',
      image: 'https://img.example/a%20b.png',
      expiredUrl: 'https://gone.example/',
      ios: 'https://xn--bcher-kva.example/stra%C3%9Fe?q=%C3%BC',
      android: 'https://play.example/y',
      geo: { DE: 'https://de.example/', JP: 'https://xn--r8jz45g.xn--zckzah/%E3%83%91%E3%82%B9' },
    };
    const [link] = res.json<{ id: string; shortUrl: string }[]>();
    expect(link).toMatchObject(expected);
    const listed = await send('GET', `/api/links?id=${link!.id}`);
    expect(listed.json()[0]).toMatchObject(expected);

    const path = new URL(link!.shortUrl).pathname;
    const visit = async (headers: Record<string, string>) => {
      const r = await t.inject({ method: 'GET', url: path, headers });
      expect(r.statusCode, r.body).toBe(302);
      const location = String(r.headers.location);
      expect(location).toMatch(VISIBLE_ASCII);
      return location.replace(/[?&]ltid=[^&#]*/, '');
    };
    expect(await visit({})).toBe('https://example.com/');
    expect(await visit({ 'user-agent': IPHONE })).toBe('https://xn--bcher-kva.example/stra%C3%9Fe?q=%C3%BC');
    expect(await visit({ 'user-agent': ANDROID })).toBe('https://play.example/y');
    expect(await visit({ 'x-test-country': 'DE' })).toBe('https://de.example/');
    expect(await visit({ 'x-test-country': 'JP' })).toBe('https://xn--r8jz45g.xn--zckzah/%E3%83%91%E3%82%B9');
  });

  it('an update normalises too', async () => {
    const created = await send('POST', '/api/links', [{ url: 'https://a.example/', collectionId }]);
    const id = created.json()[0].id as string;
    const res = await send('PUT', '/api/links', [{ id, url: 'https:b.example', geo: { GB: 'https://bücher.example' }, ios: 'https:c.example' }]);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()[0]).toMatchObject({ url: 'https://b.example/', geo: { GB: 'https://xn--bcher-kva.example/' }, ios: 'https://c.example/' });
  });

  it('control characters and surrounding whitespace are a 400 naming the field, on create and update, in every URL field', async () => {
    const created = await send('POST', '/api/links', [{ url: 'https://a.example/', collectionId }]);
    const id = created.json()[0].id as string;
    const bad = ['https://example.com/a\r\nSet-Cookie: x=1', 'https://example.com/\t', ' https://example.com/', 'https://ex\u0000ample.com/'];
    for (const value of bad) {
      for (const field of ['url', 'image', 'expiredUrl', 'ios', 'android']) {
        expect400(await send('POST', '/api/links', [{ url: 'https://ok.example/', collectionId, [field]: value }]), `[0].${field}`, 'url_characters');
        expect400(await send('PUT', '/api/links', [{ id, [field]: value }]), `[0].${field}`, 'url_characters');
      }
      expect400(await send('POST', '/api/links', [{ url: 'https://ok.example/', collectionId, geo: { DE: value } }]), '[0].geo.DE', 'url_characters');
      expect400(await send('PUT', '/api/links', [{ id, geo: { FR: value } }]), '[0].geo.FR', 'url_characters');
    }
    const all = await send('GET', '/api/links?take=5000');
    expect(JSON.stringify(all.json())).not.toMatch(/Set-Cookie|\\t|\\r|\\n|\\u0000/);
  });

  it('longer than 4096 once normalised is a 400 (max_length)', async () => {
    const long = `https://example.com/${'ü'.repeat(1000)}`; // 1,020 characters in, 6,020 stored
    expect400(await send('POST', '/api/links', [{ url: long, collectionId }]), '[0].url', 'max_length');
    expect400(await send('POST', '/api/links', [{ url: 'https://ok.example/', collectionId, geo: { DE: long } }]), '[0].geo.DE', 'max_length');
  });

  it("a partner's image follows the same rule", async () => {
    const ok = await send('POST', '/api/partners', [{ name: 'P', image: 'https:bücher.example/a b.png' }]);
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json()[0].image).toBe('https://xn--bcher-kva.example/a%20b.png');
    const bad = await send('POST', '/api/partners', [{ name: 'Q', image: 'https://example.com/\r\n' }]);
    expect400(bad, '[0].image', 'url_characters');
    const id = ok.json()[0].id as string;
    const put = await send('PUT', '/api/partners', [{ id, image: 'HTTPS://P.EXAMPLE' }]);
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()[0].image).toBe('https://p.example/');
  });
});
