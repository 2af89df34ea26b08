/**
 * The semantic checks of a group's rewards (operations.md §18, "Groups and rewards"): every bad
 * input gives the field it names and the reason code, and the schema takes the shapes §18 lists.
 */
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/core/errors.js';
import { reasons } from '../../../src/i18n/messages.js';
import { Reward as RewardSchema, type Reward, type RewardCondition } from '../../../src/modules/program/reward-schema.js';
import { checkRewards, isConditionField } from '../../../src/modules/program/rewards.js';

const sale: Reward = { event: 'sale', type: 'percentage', amount: 2000, maxDuration: 12 };
const lead: Reward = { event: 'lead', type: 'flat', amount: 500 };
const click: Reward = { event: 'click', type: 'flat', amount: 10, maxPerDay: 100 };

/** The field and reason code checkRewards throws for `rewards`, or 'ok'. */
function verdict(rewards: Reward[], path = 'rewards'): { field: unknown; reason: unknown; params: Record<string, unknown> } | 'ok' {
  try {
    checkRewards(rewards, path);
    return 'ok';
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    expect(e.code).toBe('invalid_field');
    const { field, reasonCode, ...params } = e.params;
    return { field, reason: reasonCode, params };
  }
}

const withCondition = (condition: RewardCondition, reward: Reward = sale): Reward[] => [
  lead,
  { ...reward, conditions: [{ field: 'eventName', op: 'eq', value: 'Purchase' }, condition] },
];

describe('checkRewards', () => {
  it('takes rewards that fit §18', () => {
    const conditions: RewardCondition[] = [
      { field: 'eventName', op: 'in', value: ['Purchase', 'Renewal'] },
      { field: 'amount', op: 'gte', value: 1000 },
      { field: 'amount', op: 'eq', value: '5000' },
      { field: 'currency', op: 'eq', value: 'eur' },
      { field: 'currency', op: 'in', value: ['usd', 'eur'] },
      { field: 'country', op: 'neq', value: 'FR' },
      { field: 'metadata.plan', op: 'eq', value: 3 },
      { field: `metadata.${'k'.repeat(100)}`, op: 'lt', value: -2.5 },
    ];
    expect(verdict([click, lead, { ...sale, conditions }, { event: 'sale', type: 'flat', amount: 0, maxDuration: 0 }])).toBe('ok');
    expect(
      verdict([
        { event: 'sale', type: 'percentage', amount: 1 },
        { event: 'sale', type: 'percentage', amount: 10_000 },
      ]),
    ).toBe('ok');
    expect(verdict([{ event: 'lead', type: 'flat', amount: 1e12 }])).toBe('ok');
    expect(verdict([])).toBe('ok');
  });

  it('refuses a percentage of a click or a lead', () => {
    expect(verdict([sale, { event: 'click', type: 'percentage', amount: 100 }])).toMatchObject({ field: 'rewards[1].type', reason: 'reward_percentage_sales' });
    expect(verdict([{ event: 'lead', type: 'percentage', amount: 100 }], '[3].rewards')).toMatchObject({
      field: '[3].rewards[0].type',
      reason: 'reward_percentage_sales',
    });
  });

  it('refuses basis points outside 1..10000', () => {
    for (const amount of [0, -1, 10_001, 1e9]) {
      expect(verdict([lead, { ...sale, amount }])).toMatchObject({ field: 'rewards[1].amount', reason: 'reward_basis_points' });
    }
  });

  it('refuses a flat amount below 0 or above 10^12', () => {
    expect(verdict([{ ...lead, amount: -1 }])).toMatchObject({ field: 'rewards[0].amount', reason: 'reward_flat_amount' });
    expect(verdict([sale, { ...lead, amount: 1e12 + 1 }])).toMatchObject({ field: 'rewards[1].amount', reason: 'reward_flat_amount' });
  });

  it('refuses maxDuration on anything but a sale, maxPerDay on anything but a click', () => {
    expect(verdict([{ ...lead, maxDuration: 3 }])).toMatchObject({ field: 'rewards[0].maxDuration', reason: 'reward_sale_only' });
    expect(verdict([{ ...click, maxDuration: 0 }])).toMatchObject({ field: 'rewards[0].maxDuration', reason: 'reward_sale_only' });
    expect(verdict([sale, { ...lead, maxPerDay: 5 }])).toMatchObject({ field: 'rewards[1].maxPerDay', reason: 'reward_click_only' });
    expect(verdict([{ event: 'sale', type: 'flat', amount: 5, maxPerDay: 5 }])).toMatchObject({ field: 'rewards[0].maxPerDay', reason: 'reward_click_only' });
  });

  it('refuses more than 50 rewards and more than 20 conditions', () => {
    expect(verdict(Array.from({ length: 50 }, () => lead))).toBe('ok');
    expect(verdict(Array.from({ length: 51 }, () => lead))).toEqual({ field: 'rewards', reason: 'max_items', params: expect.objectContaining({ limit: 50 }) });
    const condition: RewardCondition = { field: 'country', op: 'eq', value: 'DE' };
    expect(verdict([{ ...lead, conditions: Array.from({ length: 20 }, () => condition) }])).toBe('ok');
    expect(verdict([sale, { ...lead, conditions: Array.from({ length: 21 }, () => condition) }])).toMatchObject({
      field: 'rewards[1].conditions',
      reason: 'max_items',
      params: { limit: 20 },
    });
  });

  it('refuses a field an event does not carry', () => {
    for (const field of ['amount ', 'Amount', 'metadata', 'metadata.', `metadata.${'k'.repeat(101)}`, 'metadata2.x', 'clickId', '']) {
      expect(verdict(withCondition({ field, op: 'eq', value: 'x' }))).toMatchObject({ field: 'rewards[1].conditions[1].field', reason: 'condition_field' });
    }
  });

  it('refuses an `in` that is not 1 to 100 strings', () => {
    const bad: unknown[] = ['usd', 5, [], ['a', 5], Array.from({ length: 101 }, (_, i) => `v${i}`)];
    for (const value of bad) {
      expect(verdict(withCondition({ field: 'eventName', op: 'in', value } as RewardCondition))).toMatchObject({
        field: 'rewards[1].conditions[1].value',
        reason: 'condition_in_list',
        params: { limit: 100 },
      });
    }
    expect(verdict(withCondition({ field: 'eventName', op: 'in', value: Array.from({ length: 100 }, (_, i) => `v${i}`) }))).toBe('ok');
  });

  it('refuses gt, gte, lt, lte without a finite number', () => {
    for (const op of ['gt', 'gte', 'lt', 'lte'] as const) {
      for (const value of ['5', ['5'], Number.NaN, Number.POSITIVE_INFINITY]) {
        expect(verdict(withCondition({ field: 'amount', op, value } as RewardCondition))).toMatchObject({
          field: 'rewards[1].conditions[1].value',
          reason: 'condition_number',
          params: { op },
        });
      }
    }
  });

  it('refuses an ordering op on a field that holds text only', () => {
    for (const field of ['eventName', 'currency', 'country']) {
      expect(verdict(withCondition({ field, op: 'gte', value: 3 }))).toMatchObject({
        field: 'rewards[1].conditions[1].op',
        reason: 'condition_compares_numbers',
        params: { op: 'gte', name: field },
      });
    }
    const refused = verdict(withCondition({ field: 'currency', op: 'lt', value: 3 }));
    expect(refused !== 'ok' && refused.params.reason).toBe('is lt, which compares numbers, and currency is never a number: use eq, neq or in');
  });

  it('refuses eq and neq without a string or a number', () => {
    for (const op of ['eq', 'neq'] as const) {
      for (const value of [['a'], Number.NaN, true, null]) {
        expect(verdict(withCondition({ field: 'metadata.plan', op, value } as RewardCondition))).toMatchObject({
          field: 'rewards[1].conditions[1].value',
          reason: 'condition_scalar',
          params: { op },
        });
      }
    }
  });

  it('refuses a currency that is not a lowercase ISO 4217 code, naming the item of a list', () => {
    expect(verdict(withCondition({ field: 'currency', op: 'eq', value: 'EUR' }))).toMatchObject({
      field: 'rewards[1].conditions[1].value',
      reason: 'currency_code',
      params: { value: 'EUR' },
    });
    expect(verdict(withCondition({ field: 'currency', op: 'neq', value: 978 }))).toMatchObject({
      field: 'rewards[1].conditions[1].value',
      reason: 'currency_code',
    });
    expect(verdict(withCondition({ field: 'currency', op: 'in', value: ['usd', 'xyz'] }))).toMatchObject({
      field: 'rewards[1].conditions[1].value[1]',
      reason: 'currency_code',
      params: { value: 'xyz' },
    });
  });

  it('refuses a country that is not two uppercase letters', () => {
    for (const value of ['fr', 'FRA', 'F', 33]) {
      expect(verdict(withCondition({ field: 'country', op: 'eq', value }))).toMatchObject({
        field: 'rewards[1].conditions[1].value',
        reason: 'condition_country',
        params: { value: String(value) },
      });
    }
    expect(verdict(withCondition({ field: 'country', op: 'in', value: ['DE', 'de'] }))).toMatchObject({
      field: 'rewards[1].conditions[1].value[1]',
      reason: 'condition_country',
    });
  });

  it('reports the first problem in order', () => {
    const rewards: Reward[] = [
      { event: 'lead', type: 'percentage', amount: 0, maxPerDay: 3 },
      { event: 'click', type: 'flat', amount: -5 },
    ];
    expect(verdict(rewards)).toMatchObject({ field: 'rewards[0].type', reason: 'reward_percentage_sales' });
  });
});

describe('isConditionField', () => {
  it('knows the four named fields and metadata keys of 1 to 100 characters', () => {
    expect(['eventName', 'amount', 'currency', 'country', 'metadata.a', 'metadata.a.b', `metadata.${'x'.repeat(100)}`].map(isConditionField)).toEqual([
      true,
      true,
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(['metadata.', 'event', `metadata.${'x'.repeat(101)}`].map(isConditionField)).toEqual([false, false, false]);
  });
});

describe('the reasons', () => {
  it('have English and Arabic texts', () => {
    const codes = [
      'reward_percentage_sales',
      'reward_basis_points',
      'reward_flat_amount',
      'reward_sale_only',
      'reward_click_only',
      'condition_field',
      'condition_in_list',
      'condition_number',
      'condition_scalar',
      'condition_compares_numbers',
      'condition_country',
    ] as const;
    for (const code of codes) {
      expect(reasons[code].en.length).toBeGreaterThan(10);
      expect(reasons[code].ar).toMatch(/[\u0600-\u06FF]{3}/);
    }
  });
});

describe('the Reward schema', () => {
  const validate = new Ajv({ strict: false }).compile(RewardSchema);

  it('takes the shapes §18 lists', () => {
    expect(validate({ event: 'sale', type: 'percentage', amount: 2000, maxDuration: 1200, conditions: [{ field: 'amount', op: 'gt', value: 5 }] })).toBe(true);
    expect(validate({ event: 'click', type: 'flat', amount: 10, maxPerDay: 1, conditions: [{ field: 'country', op: 'in', value: ['DE'] }] })).toBe(true);
    expect(validate({ event: 'lead', type: 'flat', amount: 10, extra: 'ignored' })).toBe(true);
  });

  it('refuses what the schema can say', () => {
    const bad = [
      { event: 'signup', type: 'flat', amount: 1 },
      { event: 'sale', type: 'share', amount: 1 },
      { event: 'sale', type: 'flat', amount: 1.5 },
      { event: 'sale', type: 'flat' },
      { event: 'sale', type: 'flat', amount: 1, maxDuration: 1201 },
      { event: 'sale', type: 'flat', amount: 1, maxDuration: -1 },
      { event: 'click', type: 'flat', amount: 1, maxPerDay: 0 },
      { event: 'sale', type: 'flat', amount: 1, conditions: [{ field: 'amount', op: 'like', value: 1 }] },
      { event: 'sale', type: 'flat', amount: 1, conditions: [{ field: 'amount', op: 'eq', value: true }] },
      { event: 'sale', type: 'flat', amount: 1, conditions: [{ field: 'amount', op: 'in', value: [1] }] },
      { event: 'sale', type: 'flat', amount: 1, conditions: Array.from({ length: 21 }, () => ({ field: 'amount', op: 'eq', value: 1 })) },
    ];
    expect(bad.map((r) => validate(r))).toEqual(bad.map(() => false));
  });
});
