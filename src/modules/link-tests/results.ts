import type { LinkTestRow, TestMetric } from '../links/service.js';
import type { TestDayRow } from '../analytics/service.js';
import { probabilitiesBest } from './beta.js';

/** One variant's figures, as GET /api/links/{id}/test answers them. */
export interface VariantResult {
  url: string;
  weight: number;
  /** Its test clicks (people's, not bots'). */
  clicks: number;
  /** Those of its clicks with at least one lead (metric leads) or one sale (sales, revenue), each click once. */
  conversions: number;
  /** conversions / clicks, 0 without clicks. */
  conversionRate: number;
  /** Net sale amounts of its clicks, per currency (minor units). */
  revenue: Record<string, number>;
  /** P(its rate is the highest), to 3 decimals; null for the revenue metric. */
  probabilityBest: number | null;
}

/** One UTC day: each variant's clicks and conversions that day, in variant order. */
export interface TestDay {
  day: string;
  clicks: number[];
  conversions: number[];
}

export interface TestFigures {
  variants: VariantResult[];
  days: TestDay[];
}

/** A variant's score for the winner: its conversion rate, or for revenue its net revenue in the currency per test click. */
function scoreOf(v: VariantResult, metric: TestMetric, currency: string | null): number {
  if (metric !== 'revenue') return v.conversionRate;
  return v.clicks === 0 ? 0 : (v.revenue[currency ?? ''] ?? 0) / v.clicks;
}

/**
 * The figures of a test from its days (operations.md §20): per variant its clicks, conversions
 * by the metric, rate and revenue, and the probability to be best by Beta posteriors; the days
 * for the chart.
 */
export function testFigures(test: Pick<LinkTestRow, 'variants' | 'metric'>, days: TestDayRow[]): TestFigures {
  const n = test.variants.length;
  const variants: VariantResult[] = test.variants.map((v) => ({
    url: v.url,
    weight: v.weight,
    clicks: 0,
    conversions: 0,
    conversionRate: 0,
    revenue: {},
    probabilityBest: null,
  }));
  const byDay = new Map<string, TestDay>();
  for (const d of days) {
    const v = variants[d.variant];
    if (!v) continue;
    const converted = test.metric === 'leads' ? d.leadClicks : d.saleClicks;
    v.clicks += d.clicks;
    v.conversions += converted;
    for (const [currency, amount] of Object.entries(d.revenue)) v.revenue[currency] = (v.revenue[currency] ?? 0) + amount;
    let day = byDay.get(d.day);
    if (!day) byDay.set(d.day, (day = { day: d.day, clicks: new Array<number>(n).fill(0), conversions: new Array<number>(n).fill(0) }));
    day.clicks[d.variant]! += d.clicks;
    day.conversions[d.variant]! += converted;
  }
  for (const v of variants) v.conversionRate = v.clicks === 0 ? 0 : v.conversions / v.clicks;
  if (test.metric !== 'revenue') {
    // A conversion recorded on a click counted elsewhere (a bot's) cannot exceed its clicks in the posterior.
    const p = probabilitiesBest(variants.map((v) => ({ clicks: Math.max(v.clicks, v.conversions), conversions: v.conversions })));
    variants.forEach((v, i) => (v.probabilityBest = Math.round(p[i]! * 1000) / 1000));
  }
  return { variants, days: [...byDay.values()].sort((a, b) => (a.day < b.day ? -1 : 1)) };
}

/**
 * The winner: the highest conversion rate (revenue: net revenue in the test's currency per
 * test click), ties to the lowest index; none when nothing converted (no revenue in it).
 */
export function winnerOf(variants: VariantResult[], metric: TestMetric, currency: string | null): number | null {
  let best: number | null = null;
  let bestScore = 0;
  variants.forEach((v, i) => {
    const score = scoreOf(v, metric, currency);
    if (score > bestScore) [best, bestScore] = [i, score];
  });
  return best;
}
