import type { Reward, RewardCondition } from './reward-schema.js';

export { checkRewards, isConditionField, MAX_BASIS_POINTS, MAX_FLAT_AMOUNT } from './reward-check.js';
export { earnsWithinDuration, maxDurationEnd } from './reward-duration.js';
export type { Reward, RewardCondition } from './reward-schema.js';

/** What a reward is judged on: a lead or sale as stored, or a partner's counted click. */
export interface EarningEvent {
  kind: 'click' | 'lead' | 'sale';
  eventName?: string;
  amount?: number;
  currency?: string;
  country?: string | null;
  metadata?: Record<string, unknown> | null;
}

/**
 * The reward an event earns by: the first, in the group's order, for the event's kind whose
 * conditions all hold; undefined when none does (no commission).
 */
export function rewardFor(rewards: readonly Reward[], event: EarningEvent, programCurrency: string): Reward | undefined {
  return rewards.find((r) => r.event === event.kind && (r.conditions ?? []).every((c) => holds(c, r, event, programCurrency)));
}

function holds(condition: RewardCondition, reward: Reward, event: EarningEvent, programCurrency: string): boolean {
  // An amount means something only in a known currency: the program's, unless the reward names one.
  const currencyKnown = event.currency === programCurrency || (reward.conditions ?? []).some((c) => c.field === 'currency');
  if (condition.field === 'amount' && !currencyKnown) return false;
  return compare(condition, fieldOf(event, condition.field));
}

/** The event's value for a condition field; undefined when the event has none (null counts as none). */
function fieldOf(event: EarningEvent, field: string): unknown {
  if (field.startsWith('metadata.')) {
    const key = field.slice('metadata.'.length);
    // Own keys only: `metadata.constructor` must not read Object.prototype.
    return event.metadata && Object.hasOwn(event.metadata, key) ? (event.metadata[key] ?? undefined) : undefined;
  }
  if (field === 'eventName') return event.eventName;
  if (field === 'amount') return event.amount;
  if (field === 'currency') return event.currency;
  if (field === 'country') return event.country ?? undefined;
  return undefined;
}

function compare({ op, value }: RewardCondition, actual: unknown): boolean {
  if (actual === undefined) return op === 'neq';
  switch (op) {
    case 'eq':
      return textOf(actual) !== undefined && textOf(actual) === textOf(value);
    case 'neq':
      return !(textOf(actual) !== undefined && textOf(actual) === textOf(value));
    case 'in':
      return Array.isArray(value) && textOf(actual) !== undefined && value.some((v) => textOf(v) === textOf(actual));
    default:
      return compareNumbers(op, actual, value);
  }
}

/** The string form eq/neq/in compare: strings, numbers and booleans; an object or list has none (it equals nothing). */
function textOf(x: unknown): string | undefined {
  return typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean' ? String(x) : undefined;
}

function compareNumbers(op: 'gt' | 'gte' | 'lt' | 'lte', actual: unknown, value: unknown): boolean {
  // Numbers only: the text "42" is not a number here, as a JSON client would expect.
  if (typeof actual !== 'number' || typeof value !== 'number' || !Number.isFinite(actual) || !Number.isFinite(value)) return false;
  if (op === 'gt') return actual > value;
  if (op === 'gte') return actual >= value;
  if (op === 'lt') return actual < value;
  return actual <= value;
}

/** numerator / denominator rounded to the nearest integer, a tie to the even one; exact for any size. */
export function roundHalfEven(numerator: bigint, denominator: bigint): bigint {
  if (denominator <= 0n) throw new RangeError('roundHalfEven: the denominator must be positive');
  const negative = numerator < 0n;
  const magnitude = negative ? -numerator : numerator;
  let quotient = magnitude / denominator;
  const twice = (magnitude % denominator) * 2n;
  if (twice > denominator || (twice === denominator && quotient % 2n === 1n)) quotient += 1n;
  return negative ? -quotient : quotient;
}

/**
 * What one event earns by `reward`: a flat amount in the program currency, or basis points of
 * the sale's amount in the sale's currency (currencies are never converted).
 */
export function earningsOf(reward: Reward, event: EarningEvent, programCurrency: string): { earnings: number; currency: string } {
  if (reward.type === 'flat') return { earnings: reward.amount, currency: programCurrency };
  const { amount, currency } = event;
  if (amount === undefined || !Number.isSafeInteger(amount) || amount < 0 || !currency) {
    throw new RangeError('earningsOf: a percentage reward needs the sale amount (a non-negative integer) and currency');
  }
  return { earnings: Number(roundHalfEven(BigInt(amount) * BigInt(reward.amount), 10_000n)), currency };
}

/**
 * A sale's commission after refunds: the original earnings scaled by the part of the sale that
 * is left, always from the original so repeated refunds never compound rounding. A refund of the
 * whole amount or more leaves 0; a free sale (amount 0) keeps its earnings until anything is refunded.
 */
export function netEarnings(original: number, amount: number, refundedAmount: number): number {
  if (![original, amount, refundedAmount].every(Number.isSafeInteger) || amount < 0 || refundedAmount < 0) {
    throw new RangeError('netEarnings: integers, amount and refundedAmount not negative');
  }
  if (refundedAmount === 0) return original;
  if (refundedAmount >= amount) return 0;
  return Number(roundHalfEven(BigInt(original) * BigInt(amount - refundedAmount), BigInt(amount)));
}
