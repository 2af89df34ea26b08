/**
 * The destination a visitor is sent to (operations.md §5): the link's utm values as utm_* and
 * `ref`, and the click id, added to the destination's own query, which is kept as written.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withTracking } from '../../../src/modules/redirect/destination.js';

/** withTracking for destinations that can always be made a Location. */
function track(...args: Parameters<typeof withTracking>): string {
  const out = withTracking(...args);
  if (out === undefined) throw new Error(`no Location for ${args[0]}`);
  return out;
}

const CLICK = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';

/** How often `name` occurs as a key of the raw query (before the fragment). */
function occurrences(url: string, name: string): number {
  const query = url.split('#')[0]!.split('?').slice(1).join('?');
  return query.split('&').filter((pair) => decodeURIComponent(pair.split('=')[0]!) === name).length;
}

describe('withTracking', () => {
  it('a destination without a query gets one with the click id', () => {
    expect(track('https://shop.example/p/1', null, 'ltid', CLICK)).toBe(`https://shop.example/p/1?ltid=${CLICK}`);
    expect(track('https://shop.example', null, 'ltid', CLICK)).toBe(`https://shop.example?ltid=${CLICK}`);
  });

  it('an empty query ("?") is not doubled', () => {
    expect(track('https://shop.example/p?', null, 'ltid', CLICK)).toBe(`https://shop.example/p?ltid=${CLICK}`);
  });

  it('the utm values map to utm_source … utm_content and referral to ref', () => {
    const out = track(
      'https://shop.example/p',
      { source: 'newsletter', medium: 'email', campaign: 'spring', term: 'shoes', content: 'hero', referral: 'partner-x' },
      'ltid',
      CLICK,
    );
    const url = new URL(out);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      utm_source: 'newsletter',
      utm_medium: 'email',
      utm_campaign: 'spring',
      utm_term: 'shoes',
      utm_content: 'hero',
      ref: 'partner-x',
      ltid: CLICK,
    });
    expect(out).not.toContain('utm_referral');
    expect(out).not.toContain('referral=');
  });

  it('keeps the existing query byte for byte, encoded parameters included; raw unicode is percent-encoded (a Location must be ASCII)', () => {
    const query = 'q=caf%C3%A9&x=%20y&plus=a+b&slash=%2F&raw=é&empty=&dup=1&dup=2';
    const asSent = query.replace('é', '%C3%A9');
    const out = track(`https://shop.example/search?${query}`, { source: 'news' }, 'ltid', CLICK);
    expect(out.startsWith(`https://shop.example/search?${asSent}&`)).toBe(true);
    const rest = out.slice(`https://shop.example/search?${asSent}&`.length);
    expect(rest.split('&').sort()).toEqual([`ltid=${CLICK}`, 'utm_source=news']);
  });

  it('keys with no value (?flag) are kept as written', () => {
    const out = track('https://shop.example/?flag&other&a=1', null, 'ltid', CLICK);
    expect(out).toBe(`https://shop.example/?flag&other&a=1&ltid=${CLICK}`);
  });

  it('the fragment stays last and is not touched', () => {
    expect(track('https://shop.example/p#top', null, 'ltid', CLICK)).toBe(`https://shop.example/p?ltid=${CLICK}#top`);
    const out = track('https://shop.example/p?a=1#reviews?utm_source=x&ltid=y', { source: 'news' }, 'ltid', CLICK);
    expect(out.endsWith('#reviews?utm_source=x&ltid=y')).toBe(true);
    expect(out.indexOf('#')).toBe(out.lastIndexOf('#'));
    const url = new URL(out);
    expect(url.hash).toBe('#reviews?utm_source=x&ltid=y');
    expect(url.searchParams.get('a')).toBe('1');
    expect(url.searchParams.get('utm_source')).toBe('news');
    expect(url.searchParams.get('ltid')).toBe(CLICK);
  });

  it("a utm parameter already in the destination is replaced by the link's value and appears once", () => {
    const out = track('https://shop.example/?utm_source=old&a=1&utm_medium=cpc&utm_source=older', { source: 'newsletter' }, 'ltid', CLICK);
    expect(occurrences(out, 'utm_source')).toBe(1);
    expect(new URL(out).searchParams.get('utm_source')).toBe('newsletter');
    // Parameters the link does not set stay as they were, in place.
    expect(out.startsWith('https://shop.example/?a=1&utm_medium=cpc&')).toBe(true);
  });

  it('a percent-encoded spelling of our key is recognised as the same parameter', () => {
    const out = track('https://shop.example/?utm%5Fsource=old&b=2', { source: 'new' }, 'ltid', CLICK);
    expect(occurrences(out, 'utm_source')).toBe(1);
    expect(new URL(out).searchParams.getAll('utm_source')).toEqual(['new']);
  });

  it('referral replaces an existing ref', () => {
    const out = track('https://shop.example/?ref=someone&x=1', { referral: 'partner-x' }, 'ltid', CLICK);
    expect(occurrences(out, 'ref')).toBe(1);
    expect(new URL(out).searchParams.get('ref')).toBe('partner-x');
    expect(new URL(out).searchParams.get('x')).toBe('1');
  });

  it('the click id is appended once and replaces one already in the destination', () => {
    const out = track('https://shop.example/?ltid=stale&x=1&ltid=again', null, 'ltid', CLICK);
    expect(occurrences(out, 'ltid')).toBe(1);
    expect(out).toBe(`https://shop.example/?x=1&ltid=${CLICK}`);
  });

  it('uses the configured click id parameter name', () => {
    const out = track('https://shop.example/?cid=stale&ltid=theirs', null, 'cid', CLICK);
    expect(occurrences(out, 'cid')).toBe(1);
    expect(new URL(out).searchParams.get('cid')).toBe(CLICK);
    // Another site's own parameter that happens to be our default name is theirs to keep.
    expect(new URL(out).searchParams.get('ltid')).toBe('theirs');
  });

  it('unicode and reserved characters in utm values are percent-encoded', () => {
    const out = track('https://shop.example/', { campaign: 'café ☕', source: 'a&b=c#d', medium: 'سلام' }, 'ltid', CLICK);
    expect(out).toContain('utm_campaign=caf%C3%A9%20%E2%98%95');
    expect(out).toContain('utm_source=a%26b%3Dc%23d');
    expect(out).toContain('utm_medium=%D8%B3%D9%84%D8%A7%D9%85');
    expect(out).not.toMatch(/[^\x21-\x7e]/); // only printable ASCII
    expect(new URL(out).hash).toBe('');
    const params = new URL(out).searchParams;
    expect(params.get('utm_campaign')).toBe('café ☕');
    expect(params.get('utm_source')).toBe('a&b=c#d');
    expect(params.get('utm_medium')).toBe('سلام');
  });

  it('utm keys without a value (null or empty) add nothing and keep the destination’s own', () => {
    const utm = { source: null, medium: '', campaign: 'spring' } as unknown as Record<string, string>;
    const out = track('https://shop.example/?utm_source=theirs', utm, 'ltid', CLICK);
    const params = new URL(out).searchParams;
    expect(params.getAll('utm_source')).toEqual(['theirs']);
    expect(params.has('utm_medium')).toBe(false);
    expect(params.get('utm_campaign')).toBe('spring');
    expect(out).not.toContain('null');
  });
});

describe('withTracking reuse', () => {
  it('a link updated with new utm values (a new utm object) is not served the old split', () => {
    const dest = 'https://shop.example/p?x=1#top';
    expect(track(dest, { source: 'a' }, 'lt_id', 'c1')).toBe('https://shop.example/p?x=1&utm_source=a&lt_id=c1#top');
    expect(track(dest, { source: 'b' }, 'lt_id', 'c2')).toBe('https://shop.example/p?x=1&utm_source=b&lt_id=c2#top');
    expect(track(dest, null, 'lt_id', 'c3')).toBe('https://shop.example/p?x=1&lt_id=c3#top');
    expect(track(dest, null, 'cid', 'c4')).toBe('https://shop.example/p?x=1&cid=c4#top');
  });
});

describe("the short link's own query (operations.md §5)", () => {
  it("is passed on; its keys replace the destination's and the utm values; the click id stays ours", () => {
    const out = track(
      'https://shop.example/p?a=1&utm_source=site&keep=yes#top',
      { source: 'link', medium: 'email' },
      'ltid',
      CLICK,
      'utm_source=newsletter&a=2&x=1&ltid=forged',
    );
    const url = new URL(out);
    expect(url.hash).toBe('#top');
    expect(url.searchParams.getAll('utm_source')).toEqual(['newsletter']);
    expect(url.searchParams.getAll('utm_medium')).toEqual(['email']);
    expect(url.searchParams.getAll('a')).toEqual(['2']);
    expect(url.searchParams.get('keep')).toBe('yes');
    expect(url.searchParams.get('x')).toBe('1');
    expect(url.searchParams.getAll('ltid')).toEqual([CLICK]);
  });

  it('property: whatever a visitor or a stored destination holds, the result is a header-safe URL with one click id, or none at all', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.webUrl({ withQueryParameters: true, withFragments: true }),
          fc.string({ unit: 'binary' }).map((s) => `https://shop.example/${s}`),
        ),
        fc.string({ unit: 'binary', maxLength: 80 }),
        fc.dictionary(fc.constantFrom('source', 'medium', 'campaign'), fc.string({ unit: 'binary', maxLength: 10 })),
        (destination, visitorQuery, utm) => {
          const out = withTracking(destination, utm, 'ltid', CLICK, visitorQuery);
          if (out === undefined) return;
          expect(out).toMatch(/^[\x21-\x7e]+$/);
          const query = out.split('#')[0]!.split('?').slice(1).join('?');
          expect(query.split('&').filter((p) => p.split('=')[0] === 'ltid')).toEqual([`ltid=${CLICK}`]);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("a raw '#' in the short link's own query stays in the query, encoded: the click id is never pushed into a fragment", () => {
    expect(withTracking('https://shop.example/', {}, 'ltid', CLICK, '#')).toBe(`https://shop.example/?%23&ltid=${CLICK}`);
    expect(withTracking('https://shop.example/p#top', null, 'ltid', CLICK, 'a=1#b')).toBe(`https://shop.example/p?a=1%23b&ltid=${CLICK}#top`);
  });

  it('a destination holding a lone surrogate cannot be a Location: none is made', () => {
    expect(withTracking('https://shop.example/\ud800', null, 'ltid', CLICK)).toBeUndefined();
    expect(withTracking('https://shop.example/a\r\nSet-Cookie: x=1', null, 'ltid', CLICK)).toBe(`https://shop.example/a%0D%0ASet-Cookie:%20x=1?ltid=${CLICK}`);
  });
});
