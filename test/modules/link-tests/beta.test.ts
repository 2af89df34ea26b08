/**
 * The probability that each variant of an A/B test is the best (operations.md §20): the Beta
 * distribution written here against known values, and the integral against Evan Miller's closed
 * form for two variants, to within the 0.0005 the answer promises.
 */
import { describe, expect, test } from 'vitest';
import { betaCdf, betaPdf, logGamma, probabilitiesBest, probabilityBBeatsA } from '../../../src/modules/link-tests/beta.js';

describe('the Beta distribution', () => {
  test('ln Γ matches factorials and Γ(1/2) = √π', () => {
    for (let n = 1; n <= 20; n++) {
      let factorial = 1;
      for (let k = 2; k < n; k++) factorial *= k;
      expect(logGamma(n)).toBeCloseTo(Math.log(factorial), 10);
    }
    expect(logGamma(0.5)).toBeCloseTo(Math.log(Math.sqrt(Math.PI)), 12);
    // ln Γ(1001) = ln 1000! (Python's math.lgamma: 5912.128178488163)
    expect(logGamma(1001)).toBeCloseTo(5912.128178488163, 8);
  });

  test('densities and distribution functions of known shapes', () => {
    // Beta(1, 1) is uniform; Beta(2, 1) has density 2x and distribution x²; Beta(2, 2) density 6x(1 − x).
    for (const x of [0, 0.1, 0.37, 0.5, 0.99, 1]) {
      expect(betaPdf(x, 1, 1)).toBeCloseTo(1, 12);
      expect(betaCdf(x, 1, 1)).toBeCloseTo(x, 12);
      expect(betaPdf(x, 2, 1)).toBeCloseTo(2 * x, 12);
      expect(betaCdf(x, 2, 1)).toBeCloseTo(x * x, 12);
      expect(betaPdf(x, 2, 2)).toBeCloseTo(6 * x * (1 - x), 12);
      expect(betaCdf(x, 2, 2)).toBeCloseTo(3 * x * x - 2 * x ** 3, 12);
    }
    // For integer a and b, I_x(a, b) is the binomial tail P(Binomial(a + b − 1, x) ≥ a): summed exactly here.
    const binomialTail = (x: number, a: number, b: number) => {
      const n = a + b - 1;
      let sum = 0;
      for (let j = a; j <= n; j++) sum += Math.exp(logGamma(n + 1) - logGamma(j + 1) - logGamma(n - j + 1) + j * Math.log(x) + (n - j) * Math.log1p(-x));
      return sum;
    };
    expect(betaCdf(0.3, 5, 10)).toBeCloseTo(0.4157988137806497, 10);
    for (const [x, a, b] of [
      [0.02, 31, 971],
      [0.031, 31, 971],
      [0.6, 120, 80],
      [0.995, 3, 400],
      [0.2, 1, 40],
    ] as const) {
      expect(betaCdf(x, a, b)).toBeCloseTo(binomialTail(x, a, b), 9);
    }
    // Symmetry: I_x(a, b) = 1 − I_(1−x)(b, a), on both sides of the continued fraction's switch.
    for (const [x, a, b] of [
      [0.02, 31, 971],
      [0.5, 120, 80],
      [0.9, 3, 400],
    ] as const) {
      expect(betaCdf(x, a, b) + betaCdf(1 - x, b, a)).toBeCloseTo(1, 12);
    }
  });
});

describe('probability to be best', () => {
  test('equal posteriors share it equally; uniform against 2x is 1/3 against 2/3', () => {
    const [a, b, c] = probabilitiesBest([
      { clicks: 0, conversions: 0 },
      { clicks: 0, conversions: 0 },
      { clicks: 0, conversions: 0 },
    ]);
    for (const p of [a, b, c]) expect(Math.abs(p! - 1 / 3)).toBeLessThan(1e-6);
    const [u, v] = probabilitiesBest([
      { clicks: 0, conversions: 0 },
      { clicks: 1, conversions: 1 },
    ]);
    expect(Math.abs(u! - 1 / 3)).toBeLessThan(1e-6);
    expect(Math.abs(v! - 2 / 3)).toBeLessThan(1e-6);
  });

  test.each([
    [100, 10, 100, 15],
    [1000, 30, 1000, 41],
    [5000, 500, 4800, 520],
    [20, 0, 25, 3],
    [50_000, 1_000, 50_000, 1_080],
    [400, 12, 30_000, 700],
    [12, 11, 3_000, 90],
  ])('two variants: the integral is Evan Miller’s closed form (%i clicks, %i conversions against %i, %i)', (clicksA, convA, clicksB, convB) => {
    const [pA, pB] = probabilitiesBest([
      { clicks: clicksA, conversions: convA },
      { clicks: clicksB, conversions: convB },
    ]);
    const exact = probabilityBBeatsA(1 + convA, 1 + clicksA - convA, 1 + convB, 1 + clicksB - convB);
    expect(Math.abs(pB! - exact)).toBeLessThan(0.0005);
    expect(Math.abs(pA! - (1 - exact))).toBeLessThan(0.0005);
    // Far tighter in fact: the rounding to 3 decimals is what the answer shows.
    expect(Math.abs(pB! - exact)).toBeLessThan(1e-5);
  });

  test('four variants add up to 1 and order as their rates', () => {
    const p = probabilitiesBest([
      { clicks: 2000, conversions: 40 },
      { clicks: 2000, conversions: 55 },
      { clicks: 2000, conversions: 48 },
      { clicks: 10, conversions: 0 },
    ]);
    expect(Math.abs(p.reduce((s, x) => s + x, 0) - 1)).toBeLessThan(0.0005);
    expect(p[1]).toBeGreaterThan(p[2]!);
    expect(p[2]).toBeGreaterThan(p[0]!);
    // Evan Miller's three-variant check: P(1 best) ≤ P(1 beats 2) and P(1 beats 0).
    expect(p[1]!).toBeLessThanOrEqual(probabilityBBeatsA(1 + 48, 1 + 2000 - 48, 1 + 55, 1 + 2000 - 55) + 0.0005);
  });
});
