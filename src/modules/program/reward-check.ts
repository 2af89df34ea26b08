import { invalid } from '../../core/errors.js';
import { CURRENCIES } from '../../core/currencies.js';
import { MAX_CONDITIONS, MAX_IN_VALUES, MAX_REWARDS, type Reward, type RewardCondition } from './reward-schema.js';

/** The largest flat reward in minor units: far above any real one, it keeps amounts well inside exact integers. */
export const MAX_FLAT_AMOUNT = 1e12;
export const MAX_BASIS_POINTS = 10_000;
const MAX_METADATA_KEY = 100;

const NAMED_FIELDS = new Set(['eventName', 'amount', 'currency', 'country']);
/** Fields that hold text only: an ordering op on them could never hold, so it is a mistake worth a 400. */
const TEXT_FIELDS = new Set(['eventName', 'currency', 'country']);
const NUMBER_OPS = new Set(['gt', 'gte', 'lt', 'lte']);
const COUNTRY = /^[A-Z]{2}$/;

/** Whether `field` names something an event carries: one of the named fields or `metadata.<key>`. */
export function isConditionField(field: string): boolean {
  if (NAMED_FIELDS.has(field)) return true;
  const key = field.startsWith('metadata.') ? field.slice('metadata.'.length) : '';
  return key.length >= 1 && key.length <= MAX_METADATA_KEY;
}

/**
 * What the schema cannot say about a group's rewards: which options fit which event and type,
 * the range of an amount by its type, and condition values that fit their field and op.
 * Throws the first problem as a 400 naming the field under `path` (e.g. `rewards[2].amount`).
 */
export function checkRewards(rewards: readonly Reward[], path: string): void {
  if (rewards.length > MAX_REWARDS) throw invalid(path, 'max_items', { limit: MAX_REWARDS });
  rewards.forEach((reward, i) => checkReward(reward, `${path}[${i}]`));
}

function checkReward(reward: Reward, at: string): void {
  if (reward.type === 'percentage' && reward.event !== 'sale') throw invalid(`${at}.type`, 'reward_percentage_sales');
  checkAmount(reward, `${at}.amount`);
  if (reward.maxDuration !== undefined && reward.event !== 'sale') throw invalid(`${at}.maxDuration`, 'reward_sale_only');
  if (reward.maxPerDay !== undefined && reward.event !== 'click') throw invalid(`${at}.maxPerDay`, 'reward_click_only');
  const conditions = reward.conditions ?? [];
  if (conditions.length > MAX_CONDITIONS) throw invalid(`${at}.conditions`, 'max_items', { limit: MAX_CONDITIONS });
  conditions.forEach((c, j) => checkCondition(c, `${at}.conditions[${j}]`));
}

function checkAmount({ type, amount }: Reward, at: string): void {
  if (type === 'percentage' && !(amount >= 1 && amount <= MAX_BASIS_POINTS)) throw invalid(at, 'reward_basis_points');
  if (type === 'flat' && !(amount >= 0 && amount <= MAX_FLAT_AMOUNT)) throw invalid(at, 'reward_flat_amount');
}

function checkCondition({ field, op, value }: RewardCondition, at: string): void {
  if (!isConditionField(field)) throw invalid(`${at}.field`, 'condition_field');
  if (NUMBER_OPS.has(op) && TEXT_FIELDS.has(field)) throw invalid(`${at}.op`, 'condition_compares_numbers', { op, name: field });
  checkValueShape(op, value, `${at}.value`);
  // The value's shape is right for the op; now its texts must be codes when the field holds codes.
  const texts = Array.isArray(value) ? value.map((v, k) => [v, `${at}.value[${k}]`] as const) : [[value, `${at}.value`] as const];
  for (const [text, where] of texts) checkCode(field, text, where);
}

function checkValueShape(op: RewardCondition['op'], value: unknown, at: string): void {
  if (op === 'in') {
    const ok = Array.isArray(value) && value.length >= 1 && value.length <= MAX_IN_VALUES && value.every((v) => typeof v === 'string');
    if (!ok) throw invalid(at, 'condition_in_list', { limit: MAX_IN_VALUES });
  } else if (NUMBER_OPS.has(op)) {
    if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid(at, 'condition_number', { op });
  } else if (typeof value !== 'string' && !(typeof value === 'number' && Number.isFinite(value))) {
    throw invalid(at, 'condition_scalar', { op });
  }
}

function checkCode(field: string, value: string | number, at: string): void {
  if (field === 'currency' && !(typeof value === 'string' && CURRENCIES.has(value))) {
    throw invalid(at, 'currency_code', { value: String(value) });
  }
  if (field === 'country' && !(typeof value === 'string' && COUNTRY.test(value))) {
    throw invalid(at, 'condition_country', { value: String(value) });
  }
}
