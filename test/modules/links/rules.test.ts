/**
 * Unit tests of the pure pieces of the links module: the field rules (checkLinkInput), the
 * framing verdict (allowsFraming), the address guard (isPublicAddress), password sealing and
 * short ids. Everything that touches HTTP or the database is in links.test.ts.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/core/errors.js';
import { allowsFraming } from '../../../src/modules/links/frame-check.js';
import { checkLinkInput, type LinkInput } from '../../../src/modules/links/rules.js';
import { isPublicAddress } from '../../../src/infra/safe-fetch.js';
import { newShortId } from '../../../src/modules/links/short-id.js';
import type { Plan } from '../../../src/core/plans.js';

const COLLECTION = '0b8f5c2e-3c43-4d1a-9a53-4f2b4c7e1a01';
const TAG_A = '1c9f6d3f-4d54-4e2b-8b64-5a3c5d8f2b02';
const TAG_B = '2d0a7e4a-5e65-4f3c-9c75-6b4d6e9a3c03';
const PARTNER = '3e1b8f5b-6f76-4a4d-8d86-7c5e7f0b4d04';
const BASE: LinkInput = { url: 'https://example.com/landing', collectionId: COLLECTION };

/** The field path and reason code a rejected input reports. */
function failure(fn: () => unknown): { field: unknown; reasonCode: unknown; params: Record<string, unknown> } {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    const e = err as AppError;
    expect(e.code).toBe('invalid_field');
    return { field: e.params.field, reasonCode: e.params.reasonCode, params: e.params };
  }
  throw new Error('expected checkLinkInput to reject the input');
}

describe('checkLinkInput: create (POST, or PUT entry without id)', () => {
  const rejected: { why: string; input: LinkInput; plan?: Plan; field: string; reason: string }[] = [
    { why: 'url missing', input: { collectionId: COLLECTION }, field: 'url', reason: 'required' },
    { why: 'collectionId missing', input: { url: BASE.url }, field: 'collectionId', reason: 'required' },
    { why: 'title null', input: { ...BASE, title: null }, field: 'title', reason: 'not_null' },
    { why: 'password null', input: { ...BASE, password: null }, field: 'password', reason: 'not_null' },
    { why: 'expiresAt null', input: { ...BASE, expiresAt: null }, field: 'expiresAt', reason: 'not_null' },
    { why: 'partnerId null', input: { ...BASE, partnerId: null }, field: 'partnerId', reason: 'not_null' },
    { why: 'http url', input: { ...BASE, url: 'http://example.com/' }, field: 'url', reason: 'https_required' },
    { why: 'ftp url', input: { ...BASE, url: 'ftp://example.com/' }, field: 'url', reason: 'https_required' },
    { why: 'relative url', input: { ...BASE, url: '/landing' }, field: 'url', reason: 'https_required' },
    { why: 'http image', input: { ...BASE, image: 'http://example.com/a.png' }, field: 'image', reason: 'https_required' },
    { why: 'http expiredUrl', input: { ...BASE, expiredUrl: 'http://example.com/gone' }, field: 'expiredUrl', reason: 'https_required' },
    { why: 'http ios', input: { ...BASE, ios: 'http://apps.apple.com/x' }, field: 'ios', reason: 'https_required' },
    { why: 'http android', input: { ...BASE, android: 'http://play.google.com/x' }, field: 'android', reason: 'https_required' },
    { why: 'http geo value', input: { ...BASE, geo: { US: 'http://example.com/us' } }, field: 'geo.US', reason: 'https_required' },
    { why: 'non-string geo value', input: { ...BASE, geo: { US: 5 } }, field: 'geo.US', reason: 'https_required' },
    { why: 'lowercase country', input: { ...BASE, geo: { us: 'https://example.com/us' } }, field: 'geo.us', reason: 'country_code' },
    { why: 'unassigned country XX', input: { ...BASE, geo: { XX: 'https://example.com/' } }, field: 'geo.XX', reason: 'country_code' },
    { why: 'UK is not ISO 3166-1 (GB is)', input: { ...BASE, geo: { UK: 'https://example.com/' } }, field: 'geo.UK', reason: 'country_code' },
    { why: 'alpha-3 country', input: { ...BASE, geo: { USA: 'https://example.com/' } }, field: 'geo.USA', reason: 'country_code' },
    { why: 'null utm key on insert', input: { ...BASE, utm: { source: null } }, field: 'utm.source', reason: 'not_null' },
    { why: 'same tag twice (any case)', input: { ...BASE, tagIds: [TAG_A, TAG_A.toUpperCase()] }, field: 'tagIds[1]', reason: 'duplicate_in_request' },
    { why: 'expiresAt not a date', input: { ...BASE, expiresAt: 'tomorrow' }, field: 'expiresAt', reason: 'format' },
    // Plan gates (operations.md §3): a create that uses a missing feature is a 400 naming it.
    { why: 'free: expiresAt', plan: 'free', input: { ...BASE, expiresAt: '2030-01-01T00:00:00Z' }, field: 'expiresAt', reason: 'plan_feature' },
    { why: 'free: expiredUrl', plan: 'free', input: { ...BASE, expiredUrl: 'https://example.com/gone' }, field: 'expiredUrl', reason: 'plan_feature' },
    { why: 'free: password', plan: 'free', input: { ...BASE, password: 'pw' }, field: 'password', reason: 'plan_feature' },
    { why: 'free: cloaked', plan: 'free', input: { ...BASE, cloaked: true }, field: 'cloaked', reason: 'plan_feature' },
    { why: 'free: ios', plan: 'free', input: { ...BASE, ios: 'https://apps.apple.com/x' }, field: 'ios', reason: 'plan_feature' },
    { why: 'free: android', plan: 'free', input: { ...BASE, android: 'https://play.google.com/x' }, field: 'android', reason: 'plan_feature' },
    { why: 'free: geo', plan: 'free', input: { ...BASE, geo: { US: 'https://example.com/us' } }, field: 'geo', reason: 'plan_feature' },
    { why: 'pro: cloaked', plan: 'pro', input: { ...BASE, cloaked: true }, field: 'cloaked', reason: 'plan_feature' },
    { why: 'pro: geo', plan: 'pro', input: { ...BASE, geo: { DE: 'https://example.com/de' } }, field: 'geo', reason: 'plan_feature' },
  ];

  it.each(rejected)('rejects $why', ({ input, plan, field, reason }) => {
    const f = failure(() => checkLinkInput(input, 4, 'create', plan ?? 'enterprise'));
    expect(f.field).toBe(`[4].${field}`);
    expect(f.reasonCode).toBe(reason);
  });

  const featureNames: [Plan, LinkInput, string][] = [
    ['free', { expiresAt: '2030-01-01T00:00:00Z' }, 'link expiration'],
    ['free', { password: 'pw' }, 'password protection'],
    ['pro', { cloaked: true }, 'link cloaking'],
    ['free', { ios: 'https://apps.apple.com/x' }, 'device targeting'],
    ['pro', { geo: { FR: 'https://example.com/fr' } }, 'geo targeting'],
  ];
  it.each(featureNames)('a %s plan create names the missing feature (%o → %s)', (plan, extra, feature) => {
    const f = failure(() => checkLinkInput({ ...BASE, ...extra }, 0, 'create', plan));
    expect(f.params.feature).toBe(feature);
    expect(f.params.plan).toBe(plan);
  });

  const accepted: { why: string; plan: Plan; input: LinkInput; expect: LinkInput }[] = [
    { why: 'minimal item', plan: 'free', input: BASE, expect: BASE },
    { why: 'geo null (the one null an insert takes)', plan: 'free', input: { ...BASE, geo: null }, expect: { ...BASE, geo: null } },
    { why: 'empty geo means none, allowed on free', plan: 'free', input: { ...BASE, geo: {} }, expect: { ...BASE, geo: null } },
    { why: 'cloaked false on free', plan: 'free', input: { ...BASE, cloaked: false }, expect: { ...BASE, cloaked: false } },
    {
      why: 'pro: expiration, password, device targeting',
      plan: 'pro',
      input: {
        ...BASE,
        expiresAt: '2030-01-01T02:00:00+02:00',
        expiredUrl: 'https://e.com/x',
        password: 'pw',
        ios: 'https://i.com/',
        android: 'https://a.com/',
      },
      expect: {
        ...BASE,
        expiresAt: '2030-01-01T00:00:00.000Z',
        expiredUrl: 'https://e.com/x',
        password: 'pw',
        ios: 'https://i.com/',
        android: 'https://a.com/',
      },
    },
    {
      why: 'business: cloaking and geo',
      plan: 'business',
      input: { ...BASE, cloaked: true, geo: { US: 'https://us.example.com/', GB: 'https://gb.example.com/' } },
      expect: { ...BASE, cloaked: true, geo: { US: 'https://us.example.com/', GB: 'https://gb.example.com/' } },
    },
    {
      why: 'ids are normalised to lowercase, tag order kept',
      plan: 'free',
      input: { url: BASE.url, collectionId: COLLECTION.toUpperCase(), partnerId: PARTNER.toUpperCase(), tagIds: [TAG_B.toUpperCase(), TAG_A] },
      expect: { ...BASE, partnerId: PARTNER, tagIds: [TAG_B, TAG_A] },
    },
    {
      why: 'utm keeps only its six keys',
      plan: 'free',
      input: { ...BASE, utm: { source: 's', medium: 'm', campaign: 'c', term: 't', content: 'x', referral: 'r', other: 'dropped' } },
      expect: { ...BASE, utm: { source: 's', medium: 'm', campaign: 'c', term: 't', content: 'x', referral: 'r' } },
    },
    {
      why: 'unknown properties are ignored',
      plan: 'free',
      input: { ...BASE, shortUrl: 'https://evil.test/x', id: COLLECTION } as LinkInput,
      expect: BASE,
    },
  ];
  it.each(accepted)('accepts $why', ({ plan, input, expect: fields }) => {
    expect(checkLinkInput(input, 0, 'create', plan)).toEqual({ fields, ignored: [] });
  });

  it('accepts every officially assigned country code and https URL in geo', () => {
    const geo = { US: 'https://e.com/us', GB: 'https://e.com/gb', DE: 'https://e.com/de', JP: 'https://e.com/jp', ZW: 'https://e.com/zw' };
    expect(checkLinkInput({ ...BASE, geo }, 0, 'create', 'enterprise').fields.geo).toEqual(geo);
  });
});

describe('checkLinkInput: update (PUT entry with id)', () => {
  it('needs at least one field besides id; unknown properties do not count', () => {
    expect(failure(() => checkLinkInput({}, 2, 'update', 'enterprise')).field).toBe('[2]');
    expect(failure(() => checkLinkInput({ id: COLLECTION, foo: 1 } as LinkInput, 2, 'update', 'enterprise')).reasonCode).toBe('nothing_to_update');
  });

  it.each(['url', 'collectionId', 'tagIds'] as const)('refuses %s: null', (field) => {
    const f = failure(() => checkLinkInput({ [field]: null }, 1, 'update', 'enterprise'));
    expect(f).toMatchObject({ field: `[1].${field}`, reasonCode: 'not_null' });
  });

  it('lets null clear the optional fields, cloaked null meaning false', () => {
    const input: LinkInput = {
      title: null,
      description: null,
      image: null,
      utm: null,
      expiresAt: null,
      expiredUrl: null,
      password: null,
      cloaked: null,
      ios: null,
      android: null,
      geo: null,
      externalId: null,
      tenantId: null,
      partnerId: null,
    };
    expect(checkLinkInput(input, 0, 'update', 'enterprise')).toEqual({ fields: { ...input, cloaked: false }, ignored: [] });
  });

  it('keeps null utm keys on update (they remove that key)', () => {
    expect(checkLinkInput({ utm: { source: null, medium: 'm' } }, 0, 'update', 'enterprise').fields).toEqual({ utm: { source: null, medium: 'm' } });
  });

  it('checks https and country codes on update as on create', () => {
    expect(failure(() => checkLinkInput({ url: 'http://x.com/' }, 0, 'update', 'enterprise')).field).toBe('[0].url');
    expect(failure(() => checkLinkInput({ geo: { gb: 'https://x.com/' } }, 0, 'update', 'enterprise')).reasonCode).toBe('country_code');
  });

  it('does not apply plan-gated fields without the plan, and applies the rest (PUT rule 6)', () => {
    expect(checkLinkInput({ password: 'x', title: 't' }, 0, 'update', 'free')).toEqual({ fields: { title: 't' }, ignored: ['password'] });
    const pro = checkLinkInput({ cloaked: true, geo: { US: 'https://x.com/' }, password: 'p', ios: 'https://i.com/', title: 't' }, 0, 'update', 'pro');
    expect(pro.fields).toEqual({ password: 'p', ios: 'https://i.com/', title: 't' });
    expect([...pro.ignored].sort()).toEqual(['cloaked', 'geo']);
  });

  it('applies clearing a plan-gated field whatever the plan (a downgrade must not trap a link)', () => {
    const clear = { password: null, cloaked: false, geo: null, ios: null, android: null, expiresAt: null, expiredUrl: null };
    expect(checkLinkInput(clear, 0, 'update', 'free')).toEqual({ fields: clear, ignored: [] });
    expect(checkLinkInput({ cloaked: null, geo: {} }, 0, 'update', 'free')).toEqual({ fields: { cloaked: false, geo: null }, ignored: [] });
    const mixed = checkLinkInput({ password: null, ios: 'https://i.com/', geo: { US: 'https://x.com/' } }, 0, 'update', 'free');
    expect(mixed).toEqual({ fields: { password: null }, ignored: ['ios', 'geo'] });
  });
});

describe('allowsFraming', () => {
  const EMBEDDER = 'https://go.example.com';
  const cases: [string, IncomingHttpHeaders, boolean][] = [
    ['no framing headers', {}, true],
    ['unrelated headers', { 'content-type': 'text/html', 'cache-control': 'no-store' }, true],
    ['X-Frame-Options DENY', { 'x-frame-options': 'DENY' }, false],
    ['X-Frame-Options deny (any case)', { 'x-frame-options': 'deny' }, false],
    ['X-Frame-Options SAMEORIGIN', { 'x-frame-options': 'SAMEORIGIN' }, false],
    ['X-Frame-Options ALLOW-FROM', { 'x-frame-options': 'ALLOW-FROM https://go.example.com' }, false],
    ['X-Frame-Options repeated, one DENY', { 'x-frame-options': 'ALLOWALL, DENY' }, false],
    ["CSP frame-ancestors 'none'", { 'content-security-policy': "frame-ancestors 'none'" }, false],
    ["CSP frame-ancestors 'self'", { 'content-security-policy': "frame-ancestors 'self'" }, false],
    ['CSP frame-ancestors *', { 'content-security-policy': 'frame-ancestors *' }, true],
    ['CSP frame-ancestors https:', { 'content-security-policy': 'frame-ancestors https:' }, true],
    ['CSP frame-ancestors http: only', { 'content-security-policy': 'frame-ancestors http:' }, false],
    ['CSP frame-ancestors exact origin', { 'content-security-policy': 'frame-ancestors https://go.example.com' }, true],
    ['CSP frame-ancestors exact origin with default port', { 'content-security-policy': 'frame-ancestors https://go.example.com:443' }, true],
    ['CSP frame-ancestors host without scheme', { 'content-security-policy': 'frame-ancestors go.example.com' }, true],
    ['CSP frame-ancestors other origin', { 'content-security-policy': 'frame-ancestors https://other.example.org' }, false],
    ['CSP frame-ancestors other port', { 'content-security-policy': 'frame-ancestors https://go.example.com:8443' }, false],
    ['CSP frame-ancestors http scheme of the same host', { 'content-security-policy': 'frame-ancestors http://go.example.com' }, false],
    ['CSP frame-ancestors *.wildcard matching', { 'content-security-policy': 'frame-ancestors *.example.com' }, true],
    ['CSP frame-ancestors *.wildcard not matching', { 'content-security-policy': 'frame-ancestors *.other.com' }, false],
    ['CSP frame-ancestors *.wildcard does not match the bare parent', { 'content-security-policy': 'frame-ancestors *.go.example.com' }, false],
    ["CSP frame-ancestors 'self' plus the embedder", { 'content-security-policy': "frame-ancestors 'self' https://go.example.com" }, true],
    ['CSP among other directives, forbidding', { 'content-security-policy': "default-src *; frame-ancestors 'none'; img-src https:" }, false],
    ['CSP among other directives, allowing', { 'content-security-policy': "default-src 'self'; frame-ancestors https:; script-src 'none'" }, true],
    ['CSP without frame-ancestors', { 'content-security-policy': "default-src 'self'; script-src 'none'" }, true],
    ['two CSP headers as an array, one forbidding', { 'content-security-policy': ['default-src *', "frame-ancestors 'none'"] } as IncomingHttpHeaders, false],
    // Node joins repeated CSP headers with ", " (one serialized policy list, CSP3 §2.2):
    // every policy of the list must allow framing, a later `*` of another directive does not.
    ['two CSP policies joined by a comma, the first forbidding', { 'content-security-policy': "frame-ancestors 'none', img-src https:" }, false],
    ['XFO DENY wins over a permissive CSP', { 'x-frame-options': 'DENY', 'content-security-policy': 'frame-ancestors *' }, false],
  ];
  it.each(cases)('%s', (_why, headers, allowed) => {
    expect(allowsFraming(headers, EMBEDDER)).toBe(allowed);
  });
});

describe('isPublicAddress', () => {
  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '::1',
    '10.0.0.1',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    'fc00::1',
    'fd00::2',
    'fe80::1',
    '0.0.0.0',
    '::',
    '224.0.0.1',
    '255.255.255.255',
    'not an address',
    '',
  ])('%s is not public', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['8.8.8.8', '1.1.1.1', '2606:4700::1', '::ffff:8.8.8.8'])('%s is public', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe('newShortId', () => {
  it('is 8 base62 characters, distinct over 10,000 draws, using the whole alphabet', () => {
    const drawn = Array.from({ length: 10_000 }, () => newShortId());
    for (const id of drawn) expect(id).toMatch(/^[0-9A-Za-z]{8}$/);
    expect(new Set(drawn).size).toBe(drawn.length);
    // 80,000 characters: every one of the 62 symbols shows up (a smaller alphabet would not).
    expect(new Set(drawn.join('')).size).toBe(62);
  });
});
