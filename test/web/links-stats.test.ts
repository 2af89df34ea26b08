/**
 * The Links list's performance columns, pure functions run without a browser: a link's badges
 * (expired, expiring within 7 days, password, device, geo, cloaked), the order a heading
 * gives, the currency a revenue sort uses (a fast-check property: one of the shown codes, the
 * largest figure's), and the stats query of a range.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Link } from '../../web/src/pages/links/rows.js';
import { badgesOf, DEFAULT_ORDER, largestCurrency, nextOrder, statsQuery, type LinkRow } from '../../web/src/pages/links/stats.js';

const NOW = Date.parse('2026-03-10T12:00:00Z');
const DAY = 86_400_000;
const link = (over: Partial<Link> = {}): Link => ({ expiresAt: null, password: null, ios: null, android: null, geo: null, cloaked: false, ...over }) as Link;
const iso = (ms: number) => new Date(ms).toISOString();

describe('badgesOf', () => {
  it('names nothing for a plain link', () => expect(badgesOf(link(), NOW)).toEqual([]));
  it('expired at or before now, expiring within 7 days, nothing beyond', () => {
    expect(badgesOf(link({ expiresAt: iso(NOW) }), NOW)).toEqual(['expired']);
    expect(badgesOf(link({ expiresAt: iso(NOW - DAY) }), NOW)).toEqual(['expired']);
    expect(badgesOf(link({ expiresAt: iso(NOW + 7 * DAY) }), NOW)).toEqual(['expiring']);
    expect(badgesOf(link({ expiresAt: iso(NOW + 7 * DAY + 1) }), NOW)).toEqual([]);
  });
  it('password, device, geo and cloaked, in that order', () => {
    expect(badgesOf(link({ cloaked: true, geo: { DE: 'https://example.de/' }, android: 'https://a.example/', password: 'x' }), NOW)).toEqual([
      'password',
      'device',
      'geo',
      'cloaked',
    ]);
    expect(badgesOf(link({ geo: {} }), NOW)).toEqual([]);
  });
});

describe('nextOrder', () => {
  it('another column starts largest first; the same column turns round', () => {
    const clicks = nextOrder(DEFAULT_ORDER, 'clicks');
    expect(clicks).toEqual({ by: 'clicks', sort: 'desc' });
    expect(nextOrder(clicks, 'clicks')).toEqual({ by: 'clicks', sort: 'asc' });
    expect(nextOrder(DEFAULT_ORDER, 'createdAt')).toEqual({ by: 'createdAt', sort: 'asc' });
  });
  it('revenue keeps the currency it was given while it turns round', () => {
    const revenue = nextOrder(DEFAULT_ORDER, 'revenue', 'eur');
    expect(revenue).toEqual({ by: 'revenue', sort: 'desc', currency: 'eur' });
    expect(nextOrder(revenue, 'revenue', 'usd')).toEqual({ by: 'revenue', sort: 'asc', currency: 'eur' });
  });
});

describe('largestCurrency', () => {
  const row = (revenue: Record<string, number>): LinkRow => ({ ...link(), stats: { clicks: 0, leads: 0, sales: 0, revenue, refunded: {} } }) as LinkRow;
  it('usd without any revenue', () => expect(largestCurrency([row({}), link() as LinkRow])).toBe('usd'));
  it('the code of the largest figure', () => expect(largestCurrency([row({ usd: 500 }), row({ eur: 900, usd: 100 })])).toBe('eur'));
  it('is always one of the codes shown, with a figure no other beats', () => {
    const code = fc.constantFrom('usd', 'eur', 'jpy', 'sar');
    fc.assert(
      fc.property(fc.array(fc.dictionary(code, fc.integer({ min: 0, max: 1e9 })), { minLength: 1 }), (revenues) => {
        const figures = revenues.flatMap((r) => Object.entries(r));
        const chosen = largestCurrency(revenues.map(row));
        if (figures.length === 0) return chosen === 'usd';
        const max = Math.max(...figures.map(([, v]) => v));
        return figures.some(([c, v]) => c === chosen && v === max);
      }),
    );
  });
});

describe('statsQuery', () => {
  it('the last 30 days in the zone, the order, no currency but for revenue', () => {
    expect(statsQuery('30d', { by: 'clicks', sort: 'desc' }, 'Asia/Riyadh', NOW)).toEqual({
      withStats: 'true',
      timezone: 'Asia/Riyadh',
      startDate: '2026-02-09',
      orderBy: 'clicks',
    });
    expect(statsQuery('all', { by: 'revenue', sort: 'asc', currency: 'eur' }, 'UTC', NOW)).toEqual({
      withStats: 'true',
      timezone: 'UTC',
      orderBy: 'revenue',
      currency: 'eur',
    });
  });
});
