/**
 * The reward rules of operations.md §18 as pure functions: which reward an event earns by, what it
 * earns, what a refund leaves, and how far maxDuration reaches. Exact values, and properties
 * against references computed another way (decimal strings, a days-in-month table).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  earningsOf,
  earnsWithinDuration,
  maxDurationEnd,
  netEarnings,
  rewardFor,
  roundHalfEven,
  type EarningEvent,
  type Reward,
} from '../../../src/modules/program/rewards.js';

const purchase: EarningEvent = { kind: 'sale', eventName: 'Purchase', amount: 12_345, currency: 'usd', country: 'DE', metadata: { plan: 'pro', seats: 3 } };

describe('rewardFor', () => {
  const flatLead: Reward = { event: 'lead', type: 'flat', amount: 500 };
  const bigSales: Reward = { event: 'sale', type: 'percentage', amount: 3000, conditions: [{ field: 'amount', op: 'gte', value: 10_000 }] };
  const allSales: Reward = { event: 'sale', type: 'percentage', amount: 2000 };

  it('takes the first reward of the event kind, in order, whose conditions all hold', () => {
    expect(rewardFor([flatLead, bigSales, allSales], purchase, 'usd')).toBe(bigSales);
    expect(rewardFor([flatLead, bigSales, allSales], { ...purchase, amount: 9999 }, 'usd')).toBe(allSales);
    expect(rewardFor([flatLead, allSales, bigSales], purchase, 'usd')).toBe(allSales);
    expect(rewardFor([flatLead, bigSales, allSales], { kind: 'lead', eventName: 'Sign up' }, 'usd')).toBe(flatLead);
    expect(rewardFor([flatLead, bigSales], { kind: 'click', country: 'DE' }, 'usd')).toBeUndefined();
    expect(rewardFor([bigSales], { ...purchase, amount: 9999 }, 'usd')).toBeUndefined();
    expect(rewardFor([], purchase, 'usd')).toBeUndefined();
  });

  const when = (field: string, op: string, value: unknown, event: Partial<EarningEvent> = {}, programCurrency = 'usd'): boolean =>
    rewardFor([{ event: 'sale', type: 'flat', amount: 1, conditions: [{ field, op, value } as never] }], { ...purchase, ...event }, programCurrency) !==
    undefined;

  it('compares eq, neq and in as strings', () => {
    expect(when('amount', 'eq', '12345')).toBe(true);
    expect(when('amount', 'eq', 12_345)).toBe(true);
    expect(when('amount', 'eq', '12345.0')).toBe(false);
    expect(when('metadata.seats', 'eq', '3')).toBe(true);
    expect(when('metadata.seats', 'in', ['1', '3'])).toBe(true);
    expect(when('metadata.seats', 'in', ['1', '2'])).toBe(false);
    expect(when('metadata.trial', 'eq', 'true', { metadata: { trial: true } })).toBe(true);
    expect(when('eventName', 'eq', 'purchase')).toBe(false);
    expect(when('eventName', 'neq', 'purchase')).toBe(true);
    expect(when('eventName', 'neq', 'Purchase')).toBe(false);
    expect(when('country', 'in', ['FR', 'DE'])).toBe(true);
    expect(when('currency', 'eq', 'usd')).toBe(true);
  });

  it('compares gt, gte, lt and lte as numbers, and a field that is no number satisfies none', () => {
    const at = (op: string, value: unknown) => when('amount', op, value);
    expect([at('gt', 12_344), at('gt', 12_345), at('gte', 12_345), at('gte', 12_346)]).toEqual([true, false, true, false]);
    expect([at('lt', 12_346), at('lt', 12_345), at('lte', 12_345), at('lte', 12_344)]).toEqual([true, false, true, false]);
    expect(at('gt', '1')).toBe(false);
    expect(when('metadata.seats', 'gt', 2.5)).toBe(true);
    for (const op of ['gt', 'gte', 'lt', 'lte']) {
      expect(when('metadata.seats', op, 3, { metadata: { seats: '3' } })).toBe(false);
      expect(when('metadata.seats', op, 3, { metadata: { seats: Number.NaN } })).toBe(false);
      expect(when('metadata.plan', op, 3)).toBe(false);
    }
  });

  it('lets a field the event lacks satisfy neq only', () => {
    for (const [op, value] of [
      ['eq', 'x'],
      ['in', ['x']],
      ['gt', 0],
      ['lte', 1e300],
    ] as const) {
      expect(when('metadata.missing', op, value)).toBe(false);
      expect(when('country', op, value, { country: null })).toBe(false);
      expect(when('eventName', op, value, { eventName: undefined })).toBe(false);
    }
    expect(when('metadata.missing', 'neq', 'x')).toBe(true);
    expect(when('metadata.plan', 'neq', 'x', { metadata: null })).toBe(true);
    expect(when('metadata.plan', 'neq', 'x', { metadata: { plan: null } })).toBe(true);
    expect(when('country', 'neq', 'DE', { country: null })).toBe(true);
  });

  it('reads a top-level metadata key, its own only', () => {
    expect(when('metadata.a.b', 'eq', '1', { metadata: { 'a.b': 1 } })).toBe(true);
    expect(when('metadata.a.b', 'eq', '1', { metadata: { a: { b: 1 } } })).toBe(false);
    expect(when('metadata.constructor', 'neq', 'x', { metadata: {} })).toBe(true);
    expect(when('metadata.toString', 'eq', String(Object.prototype.toString), { metadata: {} })).toBe(false);
    expect(when('metadata.__proto__', 'neq', 'x', { metadata: {} })).toBe(true);
    // An object or list equals nothing (its String() form is no value a client wrote).
    expect(when('metadata.tags', 'eq', 'a,b', { metadata: { tags: ['a', 'b'] } })).toBe(false);
    expect(when('metadata.tags', 'neq', 'a,b', { metadata: { tags: ['a', 'b'] } })).toBe(true);
    expect(when('metadata.tags', 'in', ['[object Object]'], { metadata: { tags: {} } })).toBe(false);
  });

  it('holds an amount condition only in the program currency, unless the reward names a currency', () => {
    expect(when('amount', 'gt', 100, { currency: 'eur' })).toBe(false);
    expect(when('amount', 'neq', 5, { currency: 'eur' })).toBe(false);
    expect(when('amount', 'gt', 100, { currency: 'eur' }, 'eur')).toBe(true);
    const inEuros: Reward = {
      event: 'sale',
      type: 'flat',
      amount: 1,
      conditions: [
        { field: 'amount', op: 'gt', value: 100 },
        { field: 'currency', op: 'eq', value: 'eur' },
      ],
    };
    expect(rewardFor([inEuros], { ...purchase, currency: 'eur' }, 'usd')).toBe(inEuros);
    expect(rewardFor([inEuros], { ...purchase, currency: 'gbp' }, 'usd')).toBeUndefined();
    const anyButYen: Reward = {
      ...inEuros,
      conditions: [
        { field: 'currency', op: 'neq', value: 'jpy' },
        { field: 'amount', op: 'gt', value: 100 },
      ],
    };
    expect(rewardFor([anyButYen], { ...purchase, currency: 'gbp' }, 'usd')).toBe(anyButYen);
  });
});

describe('roundHalfEven', () => {
  it('rounds to the nearest integer, a tie to the even one, either sign', () => {
    const cases: [bigint, bigint, bigint][] = [
      [0n, 7n, 0n],
      [5n, 2n, 2n],
      [7n, 2n, 4n],
      [-5n, 2n, -2n],
      [-7n, 2n, -4n],
      [1n, 3n, 0n],
      [2n, 3n, 1n],
      [-2n, 3n, -1n],
      [15n, 10n, 2n],
      [25n, 10n, 2n],
      [35n, 10n, 4n],
      [-25n, 10n, -2n],
      [-26n, 10n, -3n],
      [24_999n, 10_000n, 2n],
      [25_001n, 10_000n, 3n],
      [12n, 1n, 12n],
      [(1n << 80n) + 1n, 2n, 1n << 79n],
      [(1n << 80n) + 3n, 2n, (1n << 79n) + 2n],
    ];
    for (const [n, d, expected] of cases) expect([n, d, roundHalfEven(n, d)]).toEqual([n, d, expected]);
  });

  it('refuses a denominator that is not positive', () => {
    expect(() => roundHalfEven(1n, 0n)).toThrow(RangeError);
    expect(() => roundHalfEven(1n, -2n)).toThrow(RangeError);
  });

  /** The quotient by 10^k rounded half to even, read off the decimal digits. */
  function byDecimalDigits(n: bigint, k: number): bigint {
    const digits = (n < 0n ? -n : n).toString().padStart(k + 1, '0');
    const whole = digits.slice(0, digits.length - k);
    const fraction = digits.slice(digits.length - k);
    const half = k === 0 ? '' : `5${'0'.repeat(k - 1)}`;
    const odd = '13579'.includes(whole.at(-1)!);
    const up = k > 0 && (fraction > half || (fraction === half && odd));
    const magnitude = BigInt(whole) + (up ? 1n : 0n);
    return n < 0n ? -magnitude : magnitude;
  }

  const bigInts = fc.bigInt({ min: -(1n << 120n), max: 1n << 120n });

  it('equals the decimal-digit reference for powers of ten, past 2^53', () => {
    fc.assert(
      fc.property(bigInts, fc.integer({ min: 0, max: 30 }), (n, k) => roundHalfEven(n, 10n ** BigInt(k)) === byDecimalDigits(n, k)),
      { numRuns: 2000 },
    );
    // Ties, where rounding half to even differs from every other rule.
    fc.assert(
      fc.property(fc.bigInt({ min: -(1n << 100n), max: 1n << 100n }), fc.integer({ min: 1, max: 25 }), (q, k) => {
        const d = 10n ** BigInt(k);
        const n = q * d + (q < 0n ? -d / 2n : d / 2n);
        return roundHalfEven(n, d) === byDecimalDigits(n, k);
      }),
    );
  });

  it('is the nearest integer for any denominator, a tie going to the even one', () => {
    fc.assert(
      fc.property(bigInts, fc.bigInt({ min: 1n, max: 1n << 70n }), (n, d) => {
        const r = roundHalfEven(n, d);
        const gap = n - r * d; // n/d - r, times d
        const twice = 2n * (gap < 0n ? -gap : gap);
        return twice < d || (twice === d && r % 2n === 0n);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('earningsOf', () => {
  const flat: Reward = { event: 'sale', type: 'flat', amount: 2500 };
  const pct = (amount: number): Reward => ({ event: 'sale', type: 'percentage', amount });

  it('pays a flat amount in the program currency, whatever the sale', () => {
    expect(earningsOf(flat, { ...purchase, currency: 'eur' }, 'usd')).toEqual({ earnings: 2500, currency: 'usd' });
    expect(earningsOf({ event: 'lead', type: 'flat', amount: 0 }, { kind: 'lead' }, 'jpy')).toEqual({ earnings: 0, currency: 'jpy' });
  });

  it("pays basis points of the sale in the sale's currency, rounded half to even", () => {
    expect(earningsOf(pct(2000), purchase, 'eur')).toEqual({ earnings: 2469, currency: 'usd' });
    expect(earningsOf(pct(1), { ...purchase, amount: 5000 }, 'usd').earnings).toBe(0);
    expect(earningsOf(pct(1), { ...purchase, amount: 15_000 }, 'usd').earnings).toBe(2);
    expect(earningsOf(pct(1), { ...purchase, amount: 25_000 }, 'usd').earnings).toBe(2);
    expect(earningsOf(pct(3), { ...purchase, amount: 5000 }, 'usd').earnings).toBe(2);
    expect(earningsOf(pct(10_000), { ...purchase, amount: 0 }, 'usd').earnings).toBe(0);
  });

  it('is exact for amounts near 2^53', () => {
    const max = Number.MAX_SAFE_INTEGER;
    expect(earningsOf(pct(10_000), { ...purchase, amount: max }, 'usd').earnings).toBe(max);
    // 9007199254740991 × 3333 / 10000 = 3002099511605172.3003
    expect(earningsOf(pct(3333), { ...purchase, amount: max }, 'usd').earnings).toBe(3_002_099_511_605_172);
    // 9007199254740991 × 5 / 10000 = 4503599627370.4955
    expect(earningsOf(pct(5), { ...purchase, amount: max }, 'usd').earnings).toBe(4_503_599_627_370);
  });

  it('refuses a percentage without an amount and currency to take it of', () => {
    expect(() => earningsOf(pct(100), { kind: 'sale', currency: 'usd' }, 'usd')).toThrow(RangeError);
    expect(() => earningsOf(pct(100), { kind: 'sale', amount: 100 }, 'usd')).toThrow(RangeError);
    expect(() => earningsOf(pct(100), { kind: 'sale', amount: 1.5, currency: 'usd' }, 'usd')).toThrow(RangeError);
  });
});

describe('netEarnings', () => {
  it('scales the original by what is left of the sale, rounded half to even', () => {
    expect(netEarnings(1000, 10_000, 2500)).toBe(750);
    expect(netEarnings(333, 1000, 500)).toBe(166); // 166.5
    expect(netEarnings(335, 1000, 500)).toBe(168); // 167.5
    expect(netEarnings(1, 3, 1)).toBe(1); // 0.667
    expect(netEarnings(1, 3, 2)).toBe(0); // 0.333
    expect(netEarnings(999, 3, 1)).toBe(666);
    expect(netEarnings(2469, 12_345, 12_345)).toBe(0);
    expect(netEarnings(2469, 12_345, 0)).toBe(2469);
    expect(netEarnings(-400, 1000, 250)).toBe(-300);
  });

  it('is recomputed from the original: two refunds leave what one refund of their sum leaves', () => {
    // 51 × 700/1000 = 35.7 → 36; a further 300 refunded: 51 × 400/1000 = 20.4 → 20, where 36 × 400/700 = 20.57 would give 21.
    expect(netEarnings(51, 1000, 300)).toBe(36);
    expect(netEarnings(51, 1000, 600)).toBe(20);
  });

  it('keeps a free sale whole until anything is refunded; a refund of the amount or more leaves 0', () => {
    expect(netEarnings(500, 0, 0)).toBe(500);
    expect(netEarnings(500, 0, 1)).toBe(0);
    expect(netEarnings(500, 100, 101)).toBe(0);
  });

  it('is exact past 2^53 in the product', () => {
    const max = Number.MAX_SAFE_INTEGER;
    expect(netEarnings(max, max, 1)).toBe(max - 1);
    // (2^53 - 2) × (2^53 - 1 - 3002399751580330) / (2^53 - 1) = 6004799503160660.33…
    expect(netEarnings(max - 1, max, 3_002_399_751_580_330)).toBe(6_004_799_503_160_660);
  });

  it('refuses what is no amount', () => {
    expect(() => netEarnings(100, 100, -1)).toThrow(RangeError);
    expect(() => netEarnings(100, -1, 0)).toThrow(RangeError);
    expect(() => netEarnings(100.5, 100, 1)).toThrow(RangeError);
    expect(() => netEarnings(100, 2 ** 53, 1)).toThrow(RangeError);
  });

  const sales = fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }).chain((amount) =>
    fc.record({
      original: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
      amount: fc.constant(amount),
      a: fc.integer({ min: 0, max: amount }),
      b: fc.integer({ min: 0, max: amount }),
    }),
  );

  it('leaves the original for no refund and 0 for a whole one', () => {
    fc.assert(
      fc.property(
        sales,
        ({ original, amount }) => netEarnings(original, amount, 0) === original && (amount === 0 || netEarnings(original, amount, amount) === 0),
      ),
    );
  });

  it('never grows as more is refunded, and stays between 0 and the original', () => {
    fc.assert(
      fc.property(sales, ({ original, amount, a, b }) => {
        const [less, more] = a <= b ? [a, b] : [b, a];
        const before = netEarnings(original, amount, less);
        const after = netEarnings(original, amount, more);
        return after <= before && after >= 0 && before <= original;
      }),
      { numRuns: 1000 },
    );
  });
});

describe('maxDurationEnd', () => {
  const at = (iso: string) => new Date(iso);
  const end = (iso: string, months: number) => maxDurationEnd(at(iso), months).toISOString();

  it('adds calendar months in UTC at the same time of day, clamping the day to the month', () => {
    expect(end('2025-01-31T10:20:30.456Z', 1)).toBe('2025-02-28T10:20:30.456Z');
    expect(end('2024-01-31T10:20:30.456Z', 1)).toBe('2024-02-29T10:20:30.456Z');
    expect(end('2025-01-31T23:59:59.999Z', 2)).toBe('2025-03-31T23:59:59.999Z');
    expect(end('2025-03-31T00:00:00.000Z', 1)).toBe('2025-04-30T00:00:00.000Z');
    expect(end('2024-02-29T12:00:00.000Z', 12)).toBe('2025-02-28T12:00:00.000Z');
    expect(end('2024-02-29T12:00:00.000Z', 48)).toBe('2028-02-29T12:00:00.000Z');
    expect(end('2025-08-31T08:00:00.000Z', 6)).toBe('2026-02-28T08:00:00.000Z');
    expect(end('2025-12-15T01:02:03.000Z', 1)).toBe('2026-01-15T01:02:03.000Z');
    expect(end('2025-06-15T01:02:03.000Z', 0)).toBe('2025-06-15T01:02:03.000Z');
    expect(end('2025-06-15T01:02:03.000Z', 1200)).toBe('2125-06-15T01:02:03.000Z');
    expect(end('2099-12-31T00:00:00.000Z', 2)).toBe('2100-02-28T00:00:00.000Z'); // 2100 is no leap year
  });

  it('refuses months that are no maxDuration, and an invalid date', () => {
    for (const months of [-1, 1.5, 1201, Number.NaN]) expect(() => maxDurationEnd(at('2025-01-01T00:00:00Z'), months)).toThrow(RangeError);
    expect(() => maxDurationEnd(new Date(Number.NaN), 1)).toThrow(RangeError);
  });

  const leap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const daysIn = (y: number, m: number) => [31, leap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m]!;

  it('lands on the target month, on the same day or that month’s last, at the same time of day', () => {
    const dates = fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2200-12-31T23:59:59.999Z'), noInvalidDate: true });
    fc.assert(
      fc.property(dates, fc.integer({ min: 0, max: 1200 }), (start, months) => {
        const result = maxDurationEnd(start, months);
        const index = start.getUTCFullYear() * 12 + start.getUTCMonth() + months;
        const [y, m] = [Math.floor(index / 12), index % 12];
        const timeOfDay = (d: Date) => d.getTime() - Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
        return (
          result.getUTCFullYear() === y &&
          result.getUTCMonth() === m &&
          result.getUTCDate() === Math.min(start.getUTCDate(), daysIn(y, m)) &&
          timeOfDay(result) === timeOfDay(start)
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('grows strictly with the months', () => {
    const dates = fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2200-12-31T23:59:59.999Z'), noInvalidDate: true });
    fc.assert(fc.property(dates, fc.integer({ min: 0, max: 1199 }), (start, months) => maxDurationEnd(start, months) < maxDurationEnd(start, months + 1)));
  });
});

describe('earnsWithinDuration', () => {
  const first = new Date('2025-01-31T10:00:00.000Z');

  it('lets every sale earn without maxDuration, and the first sale always', () => {
    expect(earnsWithinDuration(first, new Date('2125-01-01T00:00:00Z'), undefined, false)).toBe(true);
    expect(earnsWithinDuration(first, first, 0, true)).toBe(true);
    expect(earnsWithinDuration(first, first, 12, true)).toBe(true);
  });

  it('with 0, pays the first sale only, not another of the same millisecond', () => {
    expect(earnsWithinDuration(first, first, 0, false)).toBe(false);
    expect(earnsWithinDuration(first, new Date(first.getTime() + 1), 0, false)).toBe(false);
  });

  it('with 12, pays the first sale and 11 monthly renewals', () => {
    const renewals = Array.from({ length: 12 }, (_, k) => maxDurationEnd(first, k + 1));
    expect(renewals.map((at) => earnsWithinDuration(first, at, 12, false))).toEqual([...Array(11).fill(true), false]);
    expect(renewals[1]!.toISOString()).toBe('2025-03-31T10:00:00.000Z');
    expect(earnsWithinDuration(first, new Date('2026-01-31T09:59:59.999Z'), 12, false)).toBe(true);
    expect(earnsWithinDuration(first, new Date('2026-01-31T10:00:00.000Z'), 12, false)).toBe(false);
  });
});
