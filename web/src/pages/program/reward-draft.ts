/**
 * The reward form's values as typed, and the Reward made from them: a flat amount in the
 * program currency's major unit to minor units, a percentage with up to two decimals to basis
 * points, each exactly. Pure, so the conversions are tested alone.
 */
import { majorUnits, parseMajor, parseScaled } from '../../ui/money.js';
import type { Reward, RewardCondition } from './reward-sentence.js';

export const CONDITION_FIELDS = ['eventName', 'amount', 'currency', 'country', 'metadata'] as const;
export type ConditionField = (typeof CONDITION_FIELDS)[number];
export const CONDITION_OPS = ['eq', 'neq', 'in', 'gt', 'gte', 'lt', 'lte'] as const;
export type ConditionOp = (typeof CONDITION_OPS)[number];
/** Comparisons of numbers: a value that is not a number never satisfies them. */
const NUMERIC_OPS = new Set<ConditionOp>(['gt', 'gte', 'lt', 'lte']);

export interface ConditionDraft {
  field: ConditionField;
  /** The key of a `metadata.<key>` field. */
  key: string;
  op: ConditionOp;
  /** For `in`: the values separated by commas. Amounts in major units. */
  value: string;
}

export interface RewardDraft {
  event: Reward['event'];
  type: Reward['type'];
  /** Major units of the program currency (flat), or a percentage (percentage). */
  amount: string;
  /** Months; empty: every sale. */
  maxDuration: string;
  /** Visitors a day; empty: no cap. */
  maxPerDay: string;
  conditions: ConditionDraft[];
}

/** What is wrong with what was typed: the field (`amount`, `conditions.2`) and the words' key. */
export type RewardProblem = { field: string; problem: 'amount' | 'percent' | 'wholeNumber' | 'value' | 'key' };

export const emptyRewardDraft = (): RewardDraft => ({ event: 'sale', type: 'percentage', amount: '', maxDuration: '', maxPerDay: '', conditions: [] });
export const emptyCondition = (): ConditionDraft => ({ field: 'metadata', key: '', op: 'eq', value: '' });

/** A percentage with up to two decimals, from basis points: 2000 → "20", 1250 → "12.5", 1 → "0.01". */
function percentText(basisPoints: number): string {
  return majorUnits(basisPoints, 'usd').replace(/\.?0+$/, '');
}

function conditionDraft(c: RewardCondition, currency: string): ConditionDraft {
  const metadata = c.field.startsWith('metadata.');
  const field = (metadata ? 'metadata' : c.field) as ConditionField;
  const key = metadata ? c.field.slice('metadata.'.length) : '';
  const amount = c.field === 'amount' && typeof c.value === 'number';
  const value = Array.isArray(c.value) ? c.value.join(', ') : amount ? majorUnits(c.value as number, currency) : String(c.value);
  return { field, key, op: c.op, value };
}

/** A reward as the form shows it. `currency`: the program's (flat amounts and amount conditions). */
export function rewardDraftOf(r: Reward, currency: string): RewardDraft {
  return {
    event: r.event,
    type: r.type,
    amount: r.type === 'percentage' ? percentText(r.amount) : majorUnits(r.amount, currency),
    maxDuration: r.maxDuration === undefined ? '' : String(r.maxDuration),
    maxPerDay: r.maxPerDay === undefined ? '' : String(r.maxPerDay),
    conditions: (r.conditions ?? []).map((c) => conditionDraft(c, currency)),
  };
}

const whole = (text: string) => (/^\d+$/.test(text.trim()) ? Number(text.trim()) : undefined);

function conditionOf(c: ConditionDraft, currency: string): RewardCondition | 'value' | 'key' {
  const key = c.key.trim();
  if (c.field === 'metadata' && key === '') return 'key';
  const field = c.field === 'metadata' ? `metadata.${key}` : c.field;
  const text = c.value.trim();
  const normal = (v: string) => (c.field === 'currency' ? v.toLowerCase() : c.field === 'country' ? v.toUpperCase() : v);
  if (c.op === 'in') {
    const values = text
      .split(/[,،]/)
      .map((v) => normal(v.trim()))
      .filter(Boolean);
    return values.length === 0 ? 'value' : { field, op: c.op, value: values };
  }
  if (text === '') return 'value';
  if (c.field === 'amount') {
    const minor = parseMajor(text, currency);
    return minor === undefined ? 'value' : { field, op: c.op, value: minor };
  }
  if (NUMERIC_OPS.has(c.op)) {
    const n = Number(text);
    return text === '' || !Number.isFinite(n) ? 'value' : { field, op: c.op, value: n };
  }
  return { field, op: c.op, value: normal(text) };
}

/** The Reward the draft says, or what is wrong with it. A percentage is a sale's only. */
export function rewardOf(d: RewardDraft, currency: string): { reward: Reward } | RewardProblem {
  const type = d.event === 'sale' ? d.type : 'flat';
  const amount = type === 'percentage' ? parseScaled(d.amount, 2) : parseMajor(d.amount, currency);
  if (amount === undefined || (type === 'percentage' && (amount < 1 || amount > 10_000)))
    return { field: 'amount', problem: type === 'percentage' ? 'percent' : 'amount' };
  const reward: Reward = { event: d.event, type, amount };
  if (d.event === 'sale' && d.maxDuration.trim() !== '') {
    const months = whole(d.maxDuration);
    if (months === undefined) return { field: 'maxDuration', problem: 'wholeNumber' };
    reward.maxDuration = months;
  }
  if (d.event === 'click' && d.maxPerDay.trim() !== '') {
    const cap = whole(d.maxPerDay);
    if (cap === undefined) return { field: 'maxPerDay', problem: 'wholeNumber' };
    reward.maxPerDay = cap;
  }
  const conditions: RewardCondition[] = [];
  for (const [i, c] of d.conditions.entries()) {
    const made = conditionOf(c, currency);
    if (typeof made === 'string') return { field: `conditions.${i}`, problem: made };
    conditions.push(made);
  }
  if (conditions.length) reward.conditions = conditions;
  return { reward };
}

/**
 * The reward form's field an API error names, for the reward at `index` of the group's list
 * (`rewards[1].amount` → amount, `rewards[1].conditions[0].value` → conditions.0); undefined
 * when it names another reward or nothing the form shows.
 */
export function rewardFieldOf(field: string | undefined, index: number): string | undefined {
  const m = /^rewards\[(\d+)\](?:\.(\w+)(?:\[(\d+)\])?)?/.exec(field ?? '');
  if (!m || Number(m[1]) !== index) return undefined;
  const [, , name, sub] = m;
  if (name === 'conditions' && sub !== undefined) return `conditions.${sub}`;
  return name === 'amount' || name === 'maxDuration' || name === 'maxPerDay' ? name : undefined;
}
