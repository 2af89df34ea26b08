/**
 * The destination a visitor is sent to (operations.md §5): the link's utm values as utm_* and
 * `ref`, and the click id, added to the destination's own query, which is kept as written.
 */
import { describe, expect, it } from 'vitest';
import { withTracking } from '../../../src/modules/redirect/destination.js';

const CLICK = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';

/** How often `name` occurs as a key of the raw query (before the fragment). */
function occurrences(url: string, name: string): number {
  const query = url.split('#')[0]!.split('?').slice(1).join('?');
  return query.split('&').filter((pair) => decodeURIComponent(pair.split('=')[0]!) === name).length;
}

describe('withTracking', () => {
  it('a destination without a query gets one with the click id', () => {
    expect(withTracking('https://shop.example/p/1', null, 'ltid', CLICK)).toBe(`https://shop.example/p/1?ltid=${CLICK}`);
    expect(withTracking('https://shop.example', null, 'ltid', CLICK)).toBe(`https://shop.example?ltid=${CLICK}`);
  });

  it('an empty query ("?") is not doubled', () => {
    expect(withTracking('https://shop.example/p?', null, 'ltid', CLICK)).toBe(`https://shop.example/p?ltid=${CLICK}`);
  });

  it('the utm values map to utm_source … utm_content and referral to ref', () => {
    const out = withTracking(
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

  it('keeps the existing query byte for byte, encoded and unicode parameters included', () => {
    const query = 'q=caf%C3%A9&x=%20y&plus=a+b&slash=%2F&raw=é&empty=&dup=1&dup=2';
    const out = withTracking(`https://shop.example/search?${query}`, { source: 'news' }, 'ltid', CLICK);
    expect(out.startsWith(`https://shop.example/search?${query}&`)).toBe(true);
    const rest = out.slice(`https://shop.example/search?${query}&`.length);
    expect(rest.split('&').sort()).toEqual([`ltid=${CLICK}`, 'utm_source=news']);
  });

  it('keys with no value (?flag) are kept as written', () => {
    const out = withTracking('https://shop.example/?flag&other&a=1', null, 'ltid', CLICK);
    expect(out).toBe(`https://shop.example/?flag&other&a=1&ltid=${CLICK}`);
  });

  it('the fragment stays last and is not touched', () => {
    expect(withTracking('https://shop.example/p#top', null, 'ltid', CLICK)).toBe(`https://shop.example/p?ltid=${CLICK}#top`);
    const out = withTracking('https://shop.example/p?a=1#reviews?utm_source=x&ltid=y', { source: 'news' }, 'ltid', CLICK);
    expect(out.endsWith('#reviews?utm_source=x&ltid=y')).toBe(true);
    expect(out.indexOf('#')).toBe(out.lastIndexOf('#'));
    const url = new URL(out);
    expect(url.hash).toBe('#reviews?utm_source=x&ltid=y');
    expect(url.searchParams.get('a')).toBe('1');
    expect(url.searchParams.get('utm_source')).toBe('news');
    expect(url.searchParams.get('ltid')).toBe(CLICK);
  });

  it("a utm parameter already in the destination is replaced by the link's value and appears once", () => {
    const out = withTracking('https://shop.example/?utm_source=old&a=1&utm_medium=cpc&utm_source=older', { source: 'newsletter' }, 'ltid', CLICK);
    expect(occurrences(out, 'utm_source')).toBe(1);
    expect(new URL(out).searchParams.get('utm_source')).toBe('newsletter');
    // Parameters the link does not set stay as they were, in place.
    expect(out.startsWith('https://shop.example/?a=1&utm_medium=cpc&')).toBe(true);
  });

  it('a percent-encoded spelling of our key is recognised as the same parameter', () => {
    const out = withTracking('https://shop.example/?utm%5Fsource=old&b=2', { source: 'new' }, 'ltid', CLICK);
    expect(occurrences(out, 'utm_source')).toBe(1);
    expect(new URL(out).searchParams.getAll('utm_source')).toEqual(['new']);
  });

  it('referral replaces an existing ref', () => {
    const out = withTracking('https://shop.example/?ref=someone&x=1', { referral: 'partner-x' }, 'ltid', CLICK);
    expect(occurrences(out, 'ref')).toBe(1);
    expect(new URL(out).searchParams.get('ref')).toBe('partner-x');
    expect(new URL(out).searchParams.get('x')).toBe('1');
  });

  it('the click id is appended once and replaces one already in the destination', () => {
    const out = withTracking('https://shop.example/?ltid=stale&x=1&ltid=again', null, 'ltid', CLICK);
    expect(occurrences(out, 'ltid')).toBe(1);
    expect(out).toBe(`https://shop.example/?x=1&ltid=${CLICK}`);
  });

  it('uses the configured click id parameter name', () => {
    const out = withTracking('https://shop.example/?cid=stale&ltid=theirs', null, 'cid', CLICK);
    expect(occurrences(out, 'cid')).toBe(1);
    expect(new URL(out).searchParams.get('cid')).toBe(CLICK);
    // Another site's own parameter that happens to be our default name is theirs to keep.
    expect(new URL(out).searchParams.get('ltid')).toBe('theirs');
  });

  it('unicode and reserved characters in utm values are percent-encoded', () => {
    const out = withTracking('https://shop.example/', { campaign: 'café ☕', source: 'a&b=c#d', medium: 'سلام' }, 'ltid', CLICK);
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
    const out = withTracking('https://shop.example/?utm_source=theirs', utm, 'ltid', CLICK);
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
    expect(withTracking(dest, { source: 'a' }, 'lt_id', 'c1')).toBe('https://shop.example/p?x=1&utm_source=a&lt_id=c1#top');
    expect(withTracking(dest, { source: 'b' }, 'lt_id', 'c2')).toBe('https://shop.example/p?x=1&utm_source=b&lt_id=c2#top');
    expect(withTracking(dest, null, 'lt_id', 'c3')).toBe('https://shop.example/p?x=1&lt_id=c3#top');
    expect(withTracking(dest, null, 'cid', 'c4')).toBe('https://shop.example/p?x=1&cid=c4#top');
  });
});
