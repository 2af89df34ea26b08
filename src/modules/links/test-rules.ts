import { CURRENCIES } from '../../core/currencies.js';
import { invalid } from '../../core/errors.js';
import { httpsUrl } from '../../core/url-rule.js';

/** What a test is judged by (operations.md §20). */
export const TEST_METRICS = ['leads', 'sales', 'revenue'] as const;
export type TestMetric = (typeof TEST_METRICS)[number];

export interface TestVariant {
  url: string;
  weight: number;
}

/** A link's test as a write asks for it, checked (no id yet). */
export interface TestInput {
  variants: TestVariant[];
  /** ISO 8601, UTC. */
  endsAt: string;
  metric: TestMetric;
  /** Lower-case ISO 4217; set for `revenue` only. */
  currency: string | null;
  autoApply: boolean;
}

/** The running test as the link keeps it (`links.test`): the input and its id. */
export interface StoredTest extends TestInput {
  id: string;
}

export const MIN_VARIANTS = 2;
export const MAX_VARIANTS = 4;
export const MIN_WEIGHT = 10;
/** How far ahead a test may end. */
export const MAX_TEST_DAYS = 90;
const DAY_MS = 86_400_000;

/**
 * The shape of a `test` (2–4 https variants, integer weights of at least 10 adding up to 100, a
 * metric, the currency of a revenue test); `at` names a field as the 400 does (`[2].test.endsAt`).
 * Pure: when it ends against the clock is checkTestWindow's.
 */
export function checkTestInput(raw: unknown, at: (field: string) => string): TestInput {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalid(at('test'), 'type', { type: 'object' });
  const t = raw as Record<string, unknown>;
  if (!Array.isArray(t.variants)) throw invalid(at('test.variants'), t.variants === undefined ? 'required' : 'type', { type: 'array' });
  if (t.variants.length < MIN_VARIANTS) throw invalid(at('test.variants'), 'min_items', { limit: MIN_VARIANTS });
  if (t.variants.length > MAX_VARIANTS) throw invalid(at('test.variants'), 'max_items', { limit: MAX_VARIANTS });
  const variants = t.variants.map((v: unknown, j: number): TestVariant => {
    const field = (f: string) => at(`test.variants[${j}].${f}`);
    if (typeof v !== 'object' || v === null) throw invalid(at(`test.variants[${j}]`), 'type', { type: 'object' });
    const { url, weight } = v as Record<string, unknown>;
    if (url === undefined) throw invalid(field('url'), 'required');
    if (weight === undefined) throw invalid(field('weight'), 'required');
    if (typeof weight !== 'number' || !Number.isInteger(weight)) throw invalid(field('weight'), 'type', { type: 'integer' });
    if (weight < MIN_WEIGHT) throw invalid(field('weight'), 'minimum', { limit: MIN_WEIGHT });
    return { url: httpsUrl(url, field('url')), weight };
  });
  const sum = variants.reduce((s, v) => s + v.weight, 0);
  if (sum !== 100) throw invalid(at('test.variants'), 'weights_sum', { sum });

  if (t.endsAt === undefined) throw invalid(at('test.endsAt'), 'required');
  const ends = typeof t.endsAt === 'string' ? new Date(t.endsAt) : new Date(Number.NaN);
  if (typeof t.endsAt !== 'string' || Number.isNaN(ends.getTime()) || !/[Zz]|[+-]\d\d:?\d\d$/.test(t.endsAt)) {
    throw invalid(at('test.endsAt'), 'format', { format: 'date-time' });
  }
  if (t.metric === undefined) throw invalid(at('test.metric'), 'required');
  if (!TEST_METRICS.includes(t.metric as TestMetric)) throw invalid(at('test.metric'), 'enum', { values: TEST_METRICS.join(', ') });
  const metric = t.metric as TestMetric;
  let currency: string | null = null;
  if (metric === 'revenue') {
    if (t.currency === undefined || t.currency === null) throw invalid(at('test.currency'), 'required');
    const code = String(t.currency).toLowerCase();
    if (!CURRENCIES.has(code)) throw invalid(at('test.currency'), 'currency_code', { value: String(t.currency) });
    currency = code;
  }
  if (t.autoApply !== undefined && typeof t.autoApply !== 'boolean') throw invalid(at('test.autoApply'), 'type', { type: 'boolean' });
  return { variants, endsAt: ends.toISOString(), metric, currency, autoApply: t.autoApply ?? true };
}

/** A new or moved end: after now, at most 90 days ahead. */
export function checkTestWindow(endsAt: string, now: Date, field: string): void {
  const ends = Date.parse(endsAt);
  if (!(ends > now.getTime())) throw invalid(field, 'in_past');
  if (ends - now.getTime() > MAX_TEST_DAYS * DAY_MS) throw invalid(field, 'too_far', { limit: `${MAX_TEST_DAYS} days`, limitAr: `${MAX_TEST_DAYS} يومًا` });
}

/** Whether two variant lists are the same (urls and weights, in order): another list starts another test. */
export function sameVariants(a: readonly TestVariant[], b: readonly TestVariant[]): boolean {
  return a.length === b.length && a.every((v, i) => v.url === b[i]!.url && v.weight === b[i]!.weight);
}
