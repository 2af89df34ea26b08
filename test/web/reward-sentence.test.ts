/**
 * Rewards written as sentences on Program → Groups and rewards (operations.md §18), in English
 * and Arabic, and the exact conversions of what an owner types: an amount in major units to
 * minor units, a percentage with up to two decimals to basis points.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { majorUnits, parseMajor, parseScaled } from '../../web/src/ui/money.js';
import { rewardSentence, type Reward } from '../../web/src/pages/program/reward-sentence.js';

const en = (r: Reward, currency = 'usd') => rewardSentence('en', r, currency);
const ar = (r: Reward, currency = 'usd') => rewardSentence('ar', r, currency);
const FSI = '\u2068';
const PDI = '\u2069';

describe('rewardSentence in English', () => {
  it('writes percentages of sales, with their duration', () => {
    expect(en({ event: 'sale', type: 'percentage', amount: 2000, maxDuration: 12 })).toBe('20 % of every sale for 12 months');
    expect(en({ event: 'sale', type: 'percentage', amount: 1250 })).toBe('12.5 % of every sale');
    expect(en({ event: 'sale', type: 'percentage', amount: 1 })).toBe('0.01 % of every sale');
    expect(en({ event: 'sale', type: 'percentage', amount: 1000, maxDuration: 1 })).toBe('10 % of every sale for 1 month');
    expect(en({ event: 'sale', type: 'percentage', amount: 1000, maxDuration: 0 })).toBe('10 % of the first sale only');
  });

  it('writes flat rewards in the program currency, clicks with their daily cap', () => {
    expect(en({ event: 'lead', type: 'flat', amount: 500 })).toBe('$5.00 for every lead');
    expect(en({ event: 'click', type: 'flat', amount: 10, maxPerDay: 100 })).toBe('$0.10 for every visitor a day, up to 100 a day');
    expect(en({ event: 'click', type: 'flat', amount: 10 })).toBe('$0.10 for every visitor a day');
    expect(en({ event: 'sale', type: 'flat', amount: 500, maxDuration: 0 }, 'eur')).toBe('€5.00 for the first sale only');
    expect(en({ event: 'sale', type: 'flat', amount: 500, maxDuration: 24 }, 'jpy')).toBe('¥500 for every sale for 24 months');
  });

  it('writes conditions after "when", amounts as money and lists with "or"', () => {
    const reward: Reward = {
      event: 'sale',
      type: 'percentage',
      amount: 2000,
      conditions: [
        { field: 'amount', op: 'gte', value: 10000 },
        { field: 'metadata.plan', op: 'in', value: ['pro', 'team'] },
      ],
    };
    expect(en(reward)).toBe('20 % of every sale when amount ≥ $100.00 and metadata.plan is pro or team');
    expect(
      en({
        event: 'lead',
        type: 'flat',
        amount: 300,
        conditions: [
          { field: 'eventName', op: 'eq', value: 'Sign up' },
          { field: 'country', op: 'neq', value: 'DE' },
          { field: 'metadata.tier', op: 'in', value: ['a', 'b', 'c'] },
          { field: 'metadata.seats', op: 'lt', value: 5 },
        ],
      }),
    ).toBe('$3.00 for every lead when the event name is Sign up and country is not Germany and metadata.tier is a, b or c and metadata.seats < 5');
  });

  it('reads an amount condition in the currency the reward names, else the program currency', () => {
    const reward: Reward = {
      event: 'sale',
      type: 'flat',
      amount: 100,
      conditions: [
        { field: 'currency', op: 'eq', value: 'eur' },
        { field: 'amount', op: 'gt', value: 5000 },
      ],
    };
    expect(en(reward)).toBe('$1.00 for every sale when currency is EUR and amount > €50.00');
  });
});

describe('rewardSentence in Arabic', () => {
  it('writes the same rewards in Arabic, with Arabic plurals of months', () => {
    const n = (x: number) => new Intl.NumberFormat('ar').format(x);
    const usd = (minor: number) => new Intl.NumberFormat('ar', { style: 'currency', currency: 'USD' }).format(minor / 100).replace('US$', '\u2066US$\u2069');
    expect(ar({ event: 'sale', type: 'percentage', amount: 2000, maxDuration: 12 })).toBe(`${n(20)}٪ من كل عملية بيع لمدة ${n(12)} شهرًا`);
    expect(ar({ event: 'sale', type: 'percentage', amount: 2000, maxDuration: 1 })).toBe(`${n(20)}٪ من كل عملية بيع لمدة شهر واحد`);
    expect(ar({ event: 'sale', type: 'percentage', amount: 2000, maxDuration: 2 })).toBe(`${n(20)}٪ من كل عملية بيع لمدة شهرين`);
    expect(ar({ event: 'sale', type: 'percentage', amount: 2000, maxDuration: 3 })).toBe(`${n(20)}٪ من كل عملية بيع لمدة ${n(3)} أشهر`);
    expect(ar({ event: 'lead', type: 'flat', amount: 500 })).toBe(`${usd(500)} عن كل عميل محتمل`);
    expect(ar({ event: 'click', type: 'flat', amount: 10, maxPerDay: 100 })).toBe(`${usd(10)} عن كل زائر في اليوم، بحد أقصى ${n(100)} في اليوم`);
    expect(
      ar({
        event: 'sale',
        type: 'percentage',
        amount: 2000,
        conditions: [
          { field: 'amount', op: 'gte', value: 10000 },
          { field: 'metadata.plan', op: 'in', value: ['pro', 'team'] },
        ],
      }),
    ).toBe(`${n(20)}٪ من كل عملية بيع عندما يكون المبلغ ≥ ${usd(10000)} و${FSI}metadata.plan${PDI} هو ${FSI}pro${PDI} أو ${FSI}team${PDI}`);
  });
});

describe('what an owner types, read exactly', () => {
  it('reads major units as minor units by the currency’s decimals', () => {
    expect(parseMajor('5', 'usd')).toBe(500);
    expect(parseMajor('0.10', 'usd')).toBe(10);
    expect(parseMajor('19.99', 'usd')).toBe(1999);
    expect(parseMajor('0.29', 'usd')).toBe(29); // 0.29 * 100 is 28.999999999999996 in floats
    expect(parseMajor('1,5', 'eur')).toBe(150);
    expect(parseMajor('٥٫٢٥', 'usd')).toBe(525);
    expect(parseMajor('500', 'jpy')).toBe(500);
    expect(parseMajor('1.234', 'kwd')).toBe(1234);
    for (const bad of ['', ' ', '.', '1.234', '-1', '1e3', '1,000.00', 'abc', '5.5', '1234567890123456'])
      expect(parseMajor(bad, bad === '5.5' ? 'jpy' : 'usd'), bad).toBeUndefined();
  });

  it('reads a percentage with up to two decimals as basis points', () => {
    expect(parseScaled('20', 2)).toBe(2000);
    expect(parseScaled('12.5', 2)).toBe(1250);
    expect(parseScaled('0.01', 2)).toBe(1);
    expect(parseScaled('100', 2)).toBe(10000);
    expect(parseScaled('12.345', 2)).toBeUndefined();
  });

  it('reads back every amount it writes (majorUnits then parseMajor)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e12 }), fc.constantFrom('usd', 'jpy', 'kwd', 'eur'), (minor, currency) => {
        expect(parseMajor(majorUnits(minor, currency), currency)).toBe(minor);
      }),
    );
  });
});

describe('formatMoney of a BigInt sum', () => {
  it('writes sums past 2^53 exactly, in the currency’s decimals', async () => {
    const { formatMoney } = await import('../../web/src/ui/money.js');
    expect(formatMoney('en', 9007199254740993n, 'usd')).toBe('$90,071,992,547,409.93');
    expect(formatMoney('en', -5n, 'usd')).toBe('-$0.05');
    expect(formatMoney('en', 9007199254740993n, 'jpy')).toBe('¥9,007,199,254,740,993');
    expect(formatMoney('en', 1999n, 'usd')).toBe(formatMoney('en', 1999, 'usd'));
  });
});
