/**
 * The UTM values a click records (issue 15): those of the Location the visitor is sent to, as
 * the destination's server reads them — the visitor's own query first, then the link's utm,
 * then the destination's own utm_* parameters. And the QR marker, removed from the visitor's query.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formValue, locationWith, tracking } from '../../../src/modules/redirect/destination.js';
import { withoutQrMarker } from '../../../src/modules/redirect/visit.js';

const CLICK = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
const FIELDS = { source: 'utm_source', medium: 'utm_medium', campaign: 'utm_campaign', term: 'utm_term', content: 'utm_content' } as const;

/** What a server reading `location` sees for each UTM name (an empty value is none). */
function served(location: string) {
  const params = new URL(location).searchParams;
  const out: Record<string, string> = {};
  for (const [field, name] of Object.entries(FIELDS)) {
    const value = params.get(name);
    if (value) out[field] = value;
  }
  return Object.keys(out).length ? out : undefined;
}

const utmOf = (destination: string, utm: Record<string, string> | null, visitorQuery = '') => tracking(destination, utm, 'ltid', visitorQuery)?.utm;

describe('the UTM values of a click', () => {
  it.each([
    ['none anywhere', 'https://shop.example/p?x=1', null, '', undefined],
    ["the link's", 'https://shop.example/p', { source: 'news', medium: 'email', referral: 'partner' }, '', { source: 'news', medium: 'email' }],
    ["the destination's own", 'https://shop.example/p?utm_campaign=spring&utm_campaign=later#top', null, '', { campaign: 'spring' }],
    ["the link's over the destination's", 'https://shop.example/p?utm_source=site&utm_term=shoes', { source: 'news' }, '', { source: 'news', term: 'shoes' }],
    [
      "the visitor's over both",
      'https://shop.example/p?utm_campaign=spring',
      { source: 'news', medium: 'email' },
      'utm_source=x&utm_term=t&utm_campaign=c',
      { source: 'x', medium: 'email', term: 't', campaign: 'c' },
    ],
    ["an empty visitor value removes the link's", 'https://shop.example/p', { source: 'news' }, 'utm_source=', undefined],
    ['the first of a repeated visitor name', 'https://shop.example/p', null, 'utm_source=a&utm_source=b', { source: 'a' }],
    [
      'decoded: + is a space, %XX UTF-8',
      'https://shop.example/p?utm_term=caf%C3%A9+au+lait',
      null,
      'utm_content=50%25+off&utm%5Fmedium=e%2Bmail',
      { term: 'café au lait', content: '50% off', medium: 'e+mail' },
    ],
    ['malformed escapes as a server reads them', 'https://shop.example/p', null, 'utm_source=%E9t%C3&utm_term=100%', { source: '\ufffdt\ufffd', term: '100%' }],
    ['raw latin1 bytes of a request target', 'https://shop.example/p', null, 'utm_source=caf\u00c3\u00a9', { source: 'café' }],
    ['a non-ASCII destination value', 'https://shop.example/p?utm_campaign=été', null, '', { campaign: 'été' }],
  ])('%s', (_name, destination, utm, visitorQuery, expected) => {
    const parts = tracking(destination, utm, 'ltid', visitorQuery)!;
    expect(parts.utm).toEqual(expected);
    expect(served(locationWith(parts, CLICK))).toEqual(expected);
  });

  it('without a visitor query, one frozen object per destination and utm, or none: nothing is allocated per click', () => {
    const utm = { source: 'news' };
    const first = utmOf('https://shop.example/cached', utm);
    expect(first).toEqual({ source: 'news' });
    expect(Object.isFrozen(first)).toBe(true);
    expect(utmOf('https://shop.example/cached', utm)).toBe(first);
    expect(utmOf('https://shop.example/cached', null)).toBeUndefined();
  });

  it('property: the values recorded are those a server reads in the Location', () => {
    const name = fc.constantFrom(...Object.values(FIELDS), 'utm%5Fsource', 'UTM_SOURCE', 'utm_term+', 'ltid', 'ref', 'x', '__proto__');
    const value = fc.oneof(fc.string({ unit: 'binary', maxLength: 12 }), fc.constantFrom('', '+', '%', '%2', '%41', '%FF', '%C3%A9', '%E2%82', '%00', 'a%2Bb'));
    const pairs = fc
      .array(
        fc.tuple(name, value).map(([k, v]) => `${k}=${v}`),
        { maxLength: 6 },
      )
      .map((ps) => ps.join('&'));
    const linkUtm = fc.option(fc.dictionary(fc.constantFrom('source', 'medium', 'campaign', 'term', 'content', 'referral'), fc.string({ maxLength: 8 })), {
      nil: null,
    });
    fc.assert(
      fc.property(
        pairs,
        linkUtm,
        pairs.map((q) => q.replace(/#/g, '')),
        (destinationQuery, utm, visitorQuery) => {
          const parts = tracking(`https://shop.example/p?${destinationQuery}`, utm, 'ltid', visitorQuery);
          if (parts === undefined) return; // a lone surrogate: no Location, no click
          expect(parts.utm).toEqual(served(locationWith(parts, CLICK)));
        },
      ),
      { numRuns: 3000 },
    );
  });

  // Node 20's `new URLSearchParams(string)` misreads '%%39é' ('%9\ufffd'); a URL's searchParams follow the standard.
  it("formValue decodes like a URL's searchParams", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('%', '+', 'a', 'F', '0', 'C', '3', '9', 'é', '\u00ff') }), (raw) => {
        const clean = raw.replace(/[&#=]/g, '');
        expect(formValue(clean)).toBe(new URL(`https://shop.example/?v=${clean}`).searchParams.get('v'));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('the QR marker', () => {
  it.each([
    ['ltqr=1', ''],
    ['ltqr', ''],
    ['a=1&ltqr=1&b=2', 'a=1&b=2'],
    ['ltqr=1&ltqr=1', ''],
    ['ltqrx=1&a=ltqr', 'ltqrx=1&a=ltqr'],
    ['x=1', 'x=1'],
  ])('%s → %s', (query, left) => {
    expect(withoutQrMarker(query)).toBe(left);
    expect(withoutQrMarker(query) === query).toBe(query === left);
  });
});
