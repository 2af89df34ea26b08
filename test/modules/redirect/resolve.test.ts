/**
 * The redirect decision (api.md "Link resolution order", "States and transitions"): a pure
 * function of the link, the visitor and the time. Every combination of the link's features
 * (password × expiry × ios × android × geo × cloaked) is crossed with every kind of visitor
 * (os, country, unlocked), so every pair of features is covered; the expected decision is
 * written from the specification's list, independently of the implementation.
 */
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { osOf, resolveDestination, type Decision, type RedirectLink, type Visitor } from '../../../src/modules/redirect/resolve.js';

const NOW = Date.UTC(2030, 0, 15, 12, 0, 0);
const URL_DEFAULT = 'https://shop.example/default';
const URL_IOS = 'https://apps.apple.com/app/id1';
const URL_ANDROID = 'https://play.google.com/store/apps/details?id=x';
const URL_FR = 'https://shop.example/fr';
const URL_DE = 'https://shop.example/de';
const URL_EXPIRED = 'https://shop.example/sorry';

type Expiry = 'none' | 'future' | 'past with expiredUrl' | 'past without expiredUrl';

interface Case {
  password: boolean;
  expiry: Expiry;
  ios: boolean;
  android: boolean;
  geo: boolean;
  cloaked: boolean;
  os: Visitor['os'];
  country: 'FR' | 'US' | undefined;
  unlocked: boolean;
}

function linkOf(c: Case): RedirectLink {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    workspaceId: '00000000-0000-4000-8000-000000000002',
    shortId: 'Abcd1234',
    url: URL_DEFAULT,
    utm: null,
    expiresAt: c.expiry === 'none' ? null : c.expiry === 'future' ? NOW + 60_000 : NOW - 60_000,
    expiredUrl: c.expiry === 'past with expiredUrl' || c.expiry === 'future' ? URL_EXPIRED : null,
    passwordSealed: c.password ? 'sealed-password' : null,
    cloaked: c.cloaked,
    ios: c.ios ? URL_IOS : null,
    android: c.android ? URL_ANDROID : null,
    geo: c.geo ? { FR: URL_FR, DE: URL_DE } : null,
    partnerId: null,
    title: null,
    description: null,
    image: null,
  };
}

/** The specification's order, step by step. */
function expected(c: Case): Decision {
  // 1. Password gate.
  if (c.password && !c.unlocked) return { kind: 'password' };
  // 2. Expiration: expiredUrl or the expired page; nothing after this runs.
  if (c.expiry === 'past with expiredUrl') return { kind: 'expired', to: URL_EXPIRED };
  if (c.expiry === 'past without expiredUrl') return { kind: 'expired', to: null };
  // 3. iOS or Android by User-Agent, before geo.
  if (c.os === 'ios' && c.ios) return { kind: 'forward', to: URL_IOS, cloaked: c.cloaked, via: 'ios' };
  if (c.os === 'android' && c.android) return { kind: 'forward', to: URL_ANDROID, cloaked: c.cloaked, via: 'android' };
  // 4. Geo by country (FR is in the map, US is not).
  if (c.geo && c.country === 'FR') return { kind: 'forward', to: URL_FR, cloaked: c.cloaked, via: 'geo' };
  // 5. Default url. 6. Cloaking only changes how it is shown.
  return { kind: 'forward', to: URL_DEFAULT, cloaked: c.cloaked, via: 'url' };
}

function allCases(): Case[] {
  const bools = [false, true];
  const out: Case[] = [];
  for (const password of bools)
    for (const expiry of ['none', 'future', 'past with expiredUrl', 'past without expiredUrl'] as Expiry[])
      for (const ios of bools)
        for (const android of bools)
          for (const geo of bools)
            for (const cloaked of bools)
              for (const os of ['ios', 'android', 'other'] as const)
                for (const country of ['FR', 'US', undefined] as const)
                  for (const unlocked of bools) out.push({ password, expiry, ios, android, geo, cloaked, os, country, unlocked });
  return out;
}

const visitorOf = (c: Case): Visitor => ({ os: c.os, country: c.country, unlocked: c.unlocked });

describe('resolveDestination', () => {
  it('follows the specification for every combination of features and visitors (2,304 cases)', () => {
    const cases = allCases();
    expect(cases).toHaveLength(2 * 4 * 2 * 2 * 2 * 2 * 3 * 3 * 2);
    const wrong = cases
      .map((c) => ({ c, got: resolveDestination(linkOf(c), visitorOf(c), NOW), want: expected(c) }))
      .filter(({ got, want }) => !isDeepStrictEqual(got, want));
    expect(wrong.slice(0, 5)).toEqual([]);
  });

  // The same rules, one named example each, so a failure reads as a sentence.
  const base: Case = {
    password: false,
    expiry: 'none',
    ios: false,
    android: false,
    geo: false,
    cloaked: false,
    os: 'other',
    country: undefined,
    unlocked: false,
  };
  const decide = (over: Partial<Case>) => {
    const c = { ...base, ...over };
    return resolveDestination(linkOf(c), visitorOf(c), NOW);
  };

  it('a password link asks for the password first, even when expired or targeted', () => {
    expect(decide({ password: true, expiry: 'past with expiredUrl', ios: true, geo: true, os: 'ios', country: 'FR' })).toEqual({ kind: 'password' });
    expect(decide({ password: true, unlocked: true })).toEqual({ kind: 'forward', to: URL_DEFAULT, cloaked: false, via: 'url' });
  });

  it('an unlocked visitor of an expired password link gets the expiry answer', () => {
    expect(decide({ password: true, unlocked: true, expiry: 'past without expiredUrl' })).toEqual({ kind: 'expired', to: null });
  });

  it('expired: expiredUrl when set, else null; device and geo targeting do not run', () => {
    const targeted = { ios: true, android: true, geo: true, cloaked: true } as const;
    for (const os of ['ios', 'android', 'other'] as const) {
      expect(decide({ ...targeted, expiry: 'past with expiredUrl', os, country: 'FR' })).toEqual({ kind: 'expired', to: URL_EXPIRED });
      expect(decide({ ...targeted, expiry: 'past without expiredUrl', os, country: 'FR' })).toEqual({ kind: 'expired', to: null });
    }
  });

  it('expiry is "current time later than expiresAt": at the instant itself the link still works', () => {
    const link = { ...linkOf(base), expiresAt: NOW, expiredUrl: URL_EXPIRED };
    const visitor = visitorOf(base);
    expect(resolveDestination(link, visitor, NOW - 1)).toMatchObject({ kind: 'forward', to: URL_DEFAULT });
    expect(resolveDestination(link, visitor, NOW)).toMatchObject({ kind: 'forward', to: URL_DEFAULT });
    expect(resolveDestination(link, visitor, NOW + 1)).toEqual({ kind: 'expired', to: URL_EXPIRED });
  });

  it('a future expiry changes nothing', () => {
    expect(decide({ expiry: 'future', ios: true, os: 'ios' })).toEqual({ kind: 'forward', to: URL_IOS, cloaked: false, via: 'ios' });
  });

  it('iOS and Android destinations win over geo', () => {
    expect(decide({ ios: true, android: true, geo: true, os: 'ios', country: 'FR' })).toEqual({ kind: 'forward', to: URL_IOS, cloaked: false, via: 'ios' });
    expect(decide({ ios: true, android: true, geo: true, os: 'android', country: 'FR' })).toEqual({
      kind: 'forward',
      to: URL_ANDROID,
      cloaked: false,
      via: 'android',
    });
  });

  it('a device destination only for its own platform', () => {
    expect(decide({ ios: true, os: 'android' })).toEqual({ kind: 'forward', to: URL_DEFAULT, cloaked: false, via: 'url' });
    expect(decide({ android: true, os: 'ios', geo: true, country: 'FR' })).toEqual({ kind: 'forward', to: URL_FR, cloaked: false, via: 'geo' });
    expect(decide({ ios: true, android: true, os: 'other' })).toEqual({ kind: 'forward', to: URL_DEFAULT, cloaked: false, via: 'url' });
  });

  it('geo by country: a listed country gets its URL; an unlisted or unknown one the default', () => {
    expect(decide({ geo: true, country: 'FR' })).toEqual({ kind: 'forward', to: URL_FR, cloaked: false, via: 'geo' });
    expect(decide({ geo: true, country: 'US' })).toEqual({ kind: 'forward', to: URL_DEFAULT, cloaked: false, via: 'url' });
    expect(decide({ geo: true, country: undefined })).toEqual({ kind: 'forward', to: URL_DEFAULT, cloaked: false, via: 'url' });
  });

  it('the cloaked flag is carried on every forward', () => {
    expect(decide({ cloaked: true })).toEqual({ kind: 'forward', to: URL_DEFAULT, cloaked: true, via: 'url' });
    expect(decide({ cloaked: true, geo: true, country: 'FR' })).toEqual({ kind: 'forward', to: URL_FR, cloaked: true, via: 'geo' });
    expect(decide({ cloaked: true, ios: true, os: 'ios' })).toEqual({ kind: 'forward', to: URL_IOS, cloaked: true, via: 'ios' });
  });
});

describe('osOf', () => {
  it.each([
    [
      'iPhone Safari',
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
    ],
    [
      'iPhone Chrome',
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/124.0.6367.88 Mobile/15E148 Safari/604.1',
    ],
    ['iPad', 'Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1'],
    [
      'iPod touch',
      'Mozilla/5.0 (iPod touch; CPU iPhone OS 12_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/12.1.2 Mobile/15E148 Safari/604.1',
    ],
  ])('%s → ios', (_name, ua) => {
    expect(osOf(ua)).toBe('ios');
  });

  it.each([
    ['Pixel Chrome', 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36'],
    ['Samsung tablet', 'Mozilla/5.0 (Linux; Android 13; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/24.0 Chrome/117.0.0.0 Safari/537.36'],
    ['Android Firefox', 'Mozilla/5.0 (Android 14; Mobile; rv:125.0) Gecko/125.0 Firefox/125.0'],
  ])('%s → android', (_name, ua) => {
    expect(osOf(ua)).toBe('android');
  });

  it.each([
    ['Windows Chrome', 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36'],
    ['macOS Safari', 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15'],
    ['Linux Firefox', 'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0'],
    ['curl', 'curl/8.5.0'],
    ['no User-Agent', ''],
  ])('%s → other', (_name, ua) => {
    expect(osOf(ua)).toBe('other');
  });
});
