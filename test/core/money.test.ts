/**
 * Minor units written in major units (src/core/money.ts): ISO 4217's exponents, exact digits for
 * any integer (a bigint past 2^53 too), never a float.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatMajor, minorUnitDigits } from '../../src/core/money.js';
import { CURRENCIES } from '../../src/core/currencies.js';

/** The decimal text back to minor units, by string arithmetic only. */
function parseMajor(text: string, digits: number): bigint {
  const [whole, fraction = ''] = text.split('.');
  expect(fraction.length).toBe(digits);
  return BigInt(`${whole}${fraction}`.replace(/^(-?)0+(?=\d)/, '$1'));
}

describe('minorUnitDigits', () => {
  it('follows ISO 4217: 0 for jpy, krw, clp…, 3 for kwd, bhd, tnd…, 2 for the rest', () => {
    expect(['usd', 'eur', 'gbp', 'huf', 'idr', 'isk', 'mga', 'mru', 'twd'].map(minorUnitDigits)).toEqual([2, 2, 2, 2, 2, 0, 2, 2, 2]);
    expect(['jpy', 'krw', 'clp', 'vnd', 'xof', 'xaf', 'xpf', 'ugx', 'pyg'].map(minorUnitDigits)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(['kwd', 'bhd', 'jod', 'omr', 'tnd', 'lyd', 'iqd'].map(minorUnitDigits)).toEqual([3, 3, 3, 3, 3, 3, 3]);
    expect(minorUnitDigits('JPY')).toBe(0);
  });

  it('gives every currency of the list 16 zero-digit, 7 three-digit and the rest two-digit codes', () => {
    const counts = { 0: 0, 2: 0, 3: 0 } as Record<number, number>;
    for (const code of CURRENCIES) counts[minorUnitDigits(code)]! += 1;
    expect(counts).toEqual({ 0: 16, 2: CURRENCIES.size - 23, 3: 7 });
  });
});

describe('formatMajor', () => {
  it.each([
    [12345, 'usd', '123.45'],
    [5, 'jpy', '5'],
    [-7, 'usd', '-0.07'],
    [1234, 'kwd', '1.234'],
    [0, 'usd', '0.00'],
    [1, 'kwd', '0.001'],
    [-1234567, 'jpy', '-1234567'],
    [10050, 'eur', '100.50'],
  ] as const)('%s %s is %s', (amount, currency, text) => {
    expect(formatMajor(amount, currency)).toBe(text);
    expect(formatMajor(BigInt(amount), currency)).toBe(text);
  });

  it('keeps every digit past 2^53 minor units', () => {
    const big = 2n ** 53n + 1n; // 9007199254740993, not a double
    expect(formatMajor(big, 'usd')).toBe('90071992547409.93');
    expect(formatMajor(big, 'jpy')).toBe('9007199254740993');
    expect(formatMajor(big, 'kwd')).toBe('9007199254740.993');
    expect(formatMajor(-(10n ** 30n) - 5n, 'usd')).toBe('-10000000000000000000000000000.05');
  });

  it('refuses a number that is not a safe integer (it may already have lost digits)', () => {
    expect(() => formatMajor(2 ** 53, 'usd')).toThrow(RangeError);
    expect(() => formatMajor(1.5, 'usd')).toThrow(RangeError);
    expect(() => formatMajor(Number.NaN, 'usd')).toThrow(RangeError);
  });

  it('reads back to the same minor units, for any amount and currency', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }), fc.constantFrom(...CURRENCIES), (amount, currency) => {
        const digits = minorUnitDigits(currency);
        expect(parseMajor(formatMajor(amount, currency), digits)).toBe(amount);
      }),
    );
  });
});
