/**
 * The partner program's forms (web/src/pages/program): the PUT /api/program body made from what
 * an owner typed, the Reward made from the reward form (amounts and percentages exact), a reward
 * read back into the form unchanged, and who sees the program's pages (web/src/access.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/core/scopes.js';
import { mayOpen } from '../../web/src/access.js';
import { bodyOf, draftOf, emptyDraft, formFieldOf } from '../../web/src/pages/program/program-draft.js';
import { emptyRewardDraft, rewardDraftOf, rewardFieldOf, rewardOf, type RewardDraft } from '../../web/src/pages/program/reward-draft.js';
import type { Reward } from '../../web/src/pages/program/reward-sentence.js';
import type { Program } from '../../web/src/pages/program/types.js';

const PROGRAM: Program = {
  id: '00000000-0000-4000-8000-000000000001',
  name: 'Friends',
  slug: 'friends',
  landingUrl: 'https://shop.example/',
  currency: 'usd',
  holdingDays: 30,
  minPayout: { usd: 5000, jpy: 700 },
  attributionDays: 90,
  linkPrefixes: ['https://shop.example/', 'https://blog.example/'],
  maxPartnerLinks: 20,
  linkHost: null,
  applications: { open: false, autoApprove: false },
  embedOrigins: [],
  termsUrl: null,
  fraudRules: { selfReferral: true, sameVisitor: true, disposableEmail: true, burst: true, duplicateCustomer: true },
  trustClientEvents: false,
  collectionId: '00000000-0000-4000-8000-000000000002',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

describe('the program form', () => {
  it('starts a program with its four fields only, trimmed, the currency in lower case', () => {
    const d = { ...emptyDraft(), name: ' Friends ', slug: 'friends', landingUrl: 'https://shop.example/ ', currency: 'EUR', holdingDays: 'x' };
    expect(bodyOf(d, false)).toEqual({ body: { name: 'Friends', slug: 'friends', landingUrl: 'https://shop.example/', currency: 'eur' } });
  });

  it('sends every setting of an existing program, amounts in minor units, lists one a line, no terms as null', () => {
    const d = draftOf(PROGRAM);
    expect(d.minPayout).toEqual([
      { currency: 'usd', amount: '50.00' },
      { currency: 'jpy', amount: '700' },
    ]);
    expect(d.linkPrefixes).toBe('https://shop.example/\nhttps://blog.example/');
    const changed = {
      ...d,
      holdingDays: '14',
      minPayout: [...d.minPayout, { currency: 'EUR', amount: '25,5' }, { currency: '', amount: '' }],
      embedOrigins: ' https://app.example \n\n',
    };
    expect(bodyOf(changed, true)).toEqual({
      body: {
        name: 'Friends',
        slug: 'friends',
        landingUrl: 'https://shop.example/',
        currency: 'usd',
        holdingDays: 14,
        attributionDays: 90,
        maxPartnerLinks: 20,
        minPayout: { usd: 5000, jpy: 700, eur: 2550 },
        linkPrefixes: ['https://shop.example/', 'https://blog.example/'],
        embedOrigins: ['https://app.example'],
        termsUrl: null,
        applications: { open: false, autoApprove: false },
        fraudRules: PROGRAM.fraudRules,
        trustClientEvents: false,
      },
    });
  });

  it('names the field of what it cannot send', () => {
    const d = draftOf(PROGRAM);
    expect(bodyOf({ ...d, attributionDays: '1.5' }, true)).toEqual({ field: 'attributionDays', problem: 'wholeNumber' });
    expect(bodyOf({ ...d, maxPartnerLinks: '' }, true)).toEqual({ field: 'maxPartnerLinks', problem: 'wholeNumber' });
    expect(bodyOf({ ...d, minPayout: [{ currency: 'jpy', amount: '7.5' }] }, true)).toEqual({ field: 'minPayout', problem: 'amount' });
    expect(bodyOf({ ...d, minPayout: [{ currency: 'us', amount: '5' }] }, true)).toEqual({ field: 'minPayout', problem: 'currency' });
  });

  it('reads the form field an API error names', () => {
    expect(formFieldOf('minPayout.eur')).toBe('minPayout');
    expect(formFieldOf('linkPrefixes[1]')).toBe('linkPrefixes');
    expect(formFieldOf('slug')).toBe('slug');
    expect(formFieldOf(undefined)).toBeUndefined();
  });
});

describe('the reward form', () => {
  const draft = (over: Partial<RewardDraft>): RewardDraft => ({ ...emptyRewardDraft(), ...over });

  it('makes rewards with exact amounts: percentages to basis points, money to minor units', () => {
    expect(rewardOf(draft({ amount: '12.5', maxDuration: '12' }), 'usd')).toEqual({
      reward: { event: 'sale', type: 'percentage', amount: 1250, maxDuration: 12 },
    });
    expect(rewardOf(draft({ event: 'lead', amount: '0.29' }), 'usd')).toEqual({ reward: { event: 'lead', type: 'flat', amount: 29 } });
    expect(rewardOf(draft({ event: 'click', amount: '0.10', maxPerDay: '100', maxDuration: '3' }), 'usd')).toEqual({
      reward: { event: 'click', type: 'flat', amount: 10, maxPerDay: 100 },
    });
    expect(rewardOf(draft({ type: 'flat', amount: '500' }), 'jpy')).toEqual({ reward: { event: 'sale', type: 'flat', amount: 500 } });
  });

  it('makes conditions of their kind: amounts in minor units, lists split at commas, codes in their case', () => {
    const made = rewardOf(
      draft({
        amount: '20',
        conditions: [
          { field: 'amount', key: '', op: 'gte', value: '100' },
          { field: 'metadata', key: 'plan', op: 'in', value: 'pro, team،max' },
          { field: 'country', key: '', op: 'neq', value: 'de' },
          { field: 'currency', key: '', op: 'eq', value: 'EUR' },
          { field: 'metadata', key: 'seats', op: 'lt', value: '5' },
          { field: 'eventName', key: '', op: 'eq', value: 'Sign up' },
        ],
      }),
      'usd',
    );
    expect(made).toEqual({
      reward: {
        event: 'sale',
        type: 'percentage',
        amount: 2000,
        conditions: [
          { field: 'amount', op: 'gte', value: 10000 },
          { field: 'metadata.plan', op: 'in', value: ['pro', 'team', 'max'] },
          { field: 'country', op: 'neq', value: 'DE' },
          { field: 'currency', op: 'eq', value: 'eur' },
          { field: 'metadata.seats', op: 'lt', value: 5 },
          { field: 'eventName', op: 'eq', value: 'Sign up' },
        ],
      },
    });
  });

  it('names what is wrong', () => {
    expect(rewardOf(draft({ amount: '0' }), 'usd')).toEqual({ field: 'amount', problem: 'percent' });
    expect(rewardOf(draft({ amount: '100.01' }), 'usd')).toEqual({ field: 'amount', problem: 'percent' });
    expect(rewardOf(draft({ amount: '12.345' }), 'usd')).toEqual({ field: 'amount', problem: 'percent' });
    expect(rewardOf(draft({ event: 'lead', amount: '5.005' }), 'usd')).toEqual({ field: 'amount', problem: 'amount' });
    expect(rewardOf(draft({ amount: '5', maxDuration: 'two' }), 'usd')).toEqual({ field: 'maxDuration', problem: 'wholeNumber' });
    expect(rewardOf(draft({ amount: '5', conditions: [{ field: 'metadata', key: ' ', op: 'eq', value: 'x' }] }), 'usd')).toEqual({
      field: 'conditions.0',
      problem: 'key',
    });
    expect(rewardOf(draft({ amount: '5', conditions: [{ field: 'amount', key: '', op: 'gt', value: '1.001' }] }), 'usd')).toEqual({
      field: 'conditions.0',
      problem: 'value',
    });
    expect(rewardOf(draft({ amount: '5', conditions: [{ field: 'metadata', key: 'n', op: 'lt', value: 'many' }] }), 'usd')).toEqual({
      field: 'conditions.0',
      problem: 'value',
    });
  });

  it('finds the field an API error names for the reward the dialog holds', () => {
    expect(rewardFieldOf('rewards[1].amount', 1)).toBe('amount');
    expect(rewardFieldOf('rewards[1].maxPerDay', 1)).toBe('maxPerDay');
    expect(rewardFieldOf('rewards[1].conditions[2].op', 1)).toBe('conditions.2');
    expect(rewardFieldOf('rewards[1].conditions', 1)).toBeUndefined();
    expect(rewardFieldOf('rewards[0].amount', 1)).toBeUndefined();
    expect(rewardFieldOf('rewards[1].type', 1)).toBeUndefined();
    expect(rewardFieldOf('name', 0)).toBeUndefined();
    expect(rewardFieldOf(undefined, 0)).toBeUndefined();
  });

  it('reads every reward back into the form and makes the same reward again', () => {
    const condition = fc.oneof(
      fc.record({
        field: fc.constant('amount'),
        op: fc.constantFrom('gt' as const, 'gte' as const, 'lt' as const, 'lte' as const),
        value: fc.integer({ min: 0, max: 1e9 }),
      }),
      fc.record({
        field: fc.constant('metadata.plan'),
        op: fc.constant('in' as const),
        value: fc.array(fc.stringMatching(/^[a-z]{1,8}$/), { minLength: 1, maxLength: 4 }),
      }),
      fc.record({
        field: fc.constant('eventName'),
        op: fc.constantFrom('eq' as const, 'neq' as const),
        value: fc.stringMatching(/^[A-Za-z][A-Za-z ]{0,10}[A-Za-z]$/),
      }),
    );
    const reward = fc.oneof(
      fc.record(
        {
          event: fc.constant('sale' as const),
          type: fc.constant('percentage' as const),
          amount: fc.integer({ min: 1, max: 10_000 }),
          maxDuration: fc.integer({ min: 0, max: 1200 }),
          conditions: fc.array(condition, { minLength: 1, maxLength: 3 }),
        },
        { requiredKeys: ['event', 'type', 'amount'] },
      ),
      fc.record(
        {
          event: fc.constant('click' as const),
          type: fc.constant('flat' as const),
          amount: fc.integer({ min: 0, max: 1e12 }),
          maxPerDay: fc.integer({ min: 1, max: 1e6 }),
        },
        { requiredKeys: ['event', 'type', 'amount'] },
      ),
    );
    fc.assert(
      fc.property(reward, fc.constantFrom('usd', 'jpy', 'kwd'), (r, currency) => {
        expect(rewardOf(rewardDraftOf(r as Reward, currency), currency)).toEqual({ reward: r });
      }),
    );
  });
});

describe('who sees the partner program', () => {
  const ALL = [...SCOPES];
  it('goes by programsRead, whatever the role', () => {
    for (const pattern of ['/program', '/program/partners', '/program/groups', '/program/commissions', '/program/payouts', '/program/applications']) {
      expect(mayOpen(pattern, { role: 'viewer', scopes: ['programsRead'] }), pattern).toBe(true);
      expect(mayOpen(pattern, { role: 'owner', scopes: ALL.filter((s) => s !== 'programsRead') }), pattern).toBe(false);
    }
    expect(mayOpen('/programs', { role: 'viewer', scopes: [] })).toBe(true);
  });
});

describe('totals per currency', () => {
  it('adds commissions currency by currency, exactly past 2^53, in code order', async () => {
    const { totalsByCurrency } = await import('../../web/src/pages/program/totals.js');
    const big = Number.MAX_SAFE_INTEGER;
    const totals = totalsByCurrency([
      { currency: 'usd', earnings: big },
      { currency: 'eur', earnings: 250 },
      { currency: 'usd', earnings: 2 },
      { currency: 'eur', earnings: -50 },
    ]);
    expect([...totals]).toEqual([
      ['eur', 200n],
      ['usd', 9007199254740993n],
    ]);
  });
});
