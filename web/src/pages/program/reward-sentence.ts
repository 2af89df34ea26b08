/**
 * A partner reward written as a sentence an owner reads at a glance (operations.md §18,
 * "Groups and rewards written as sentences"): "20 % of every sale for 12 months", "$5.00 for
 * every lead", "$0.10 for every visitor a day, up to 100 a day", "… when amount ≥ $100.00 and
 * metadata.plan is pro or team". Pure (no DOM, no hooks), so it is tested on its own.
 */
import type { components } from '../../api/schema.js';
import { formatMoney } from '../../ui/money.js';

export type Reward = components['schemas']['PartnerGroup']['rewards'][number];
export type RewardCondition = NonNullable<Reward['conditions']>[number];
type Lang = 'en' | 'ar';

/** Latin names and values kept left to right inside an Arabic sentence (first-strong isolate). */
const isolate = (lang: Lang, text: string) => (lang === 'ar' ? `\u2068${text}\u2069` : text);

/** Basis points as a percentage with at most two decimals: 2000 → "20", 1250 → "12.5", 1 → "0.01". */
export function percentOf(lang: Lang, basisPoints: number): string {
  return new Intl.NumberFormat(lang, { maximumFractionDigits: 2 }).format(basisPoints / 100);
}

/** "12 months", "شهر واحد", "12 شهرًا": Arabic counts take the plural form CLDR names. */
function months(lang: Lang, n: number): string {
  const number = new Intl.NumberFormat(lang).format(n);
  if (lang === 'en') return n === 1 ? '1 month' : `${number} months`;
  const forms: Record<string, string> = { one: 'شهر واحد', two: 'شهرين', few: `${number} أشهر`, many: `${number} شهرًا` };
  return forms[new Intl.PluralRules('ar').select(n)] ?? `${number} شهر`;
}

const WORDS = {
  en: {
    every: { click: 'every visitor a day', lead: 'every lead', sale: 'every sale' },
    percentOfEvery: (p: string) => `${p} % of every sale`,
    percentOfFirst: (p: string) => `${p} % of the first sale only`,
    flatFor: (money: string, what: string) => `${money} for ${what}`,
    flatForFirst: (money: string) => `${money} for the first sale only`,
    forMonths: (m: string) => ` for ${m}`,
    upTo: (n: string) => `, up to ${n} a day`,
    when: ' when ',
    and: ' and ',
    or: ' or ',
    listComma: ', ',
    fields: { eventName: 'the event name', amount: 'amount', currency: 'currency', country: 'country' } as Record<string, string>,
    is: 'is',
    isNot: 'is not',
  },
  ar: {
    every: { click: 'كل زائر في اليوم', lead: 'كل عميل محتمل', sale: 'كل عملية بيع' },
    percentOfEvery: (p: string) => `${p}٪ من كل عملية بيع`,
    percentOfFirst: (p: string) => `${p}٪ من أول عملية بيع فقط`,
    flatFor: (money: string, what: string) => `${money} عن ${what}`,
    flatForFirst: (money: string) => `${money} عن أول عملية بيع فقط`,
    forMonths: (m: string) => ` لمدة ${m}`,
    upTo: (n: string) => `، بحد أقصى ${n} في اليوم`,
    when: ' عندما يكون ',
    and: ' و',
    or: ' أو ',
    listComma: '، ',
    fields: { eventName: 'اسم الحدث', amount: 'المبلغ', currency: 'العملة', country: 'البلد' } as Record<string, string>,
    is: 'هو',
    isNot: 'ليس',
  },
} as const;

const SIGNS = { gt: '>', gte: '≥', lt: '<', lte: '≤' } as const;

/** A condition's field as words ("amount", "المبلغ") or as written (metadata.plan). */
function fieldWords(lang: Lang, field: string): string {
  return WORDS[lang].fields[field] ?? isolate(lang, field);
}

/** A country code as its name in the language (DE → Germany), else the code. */
function countryName(lang: Lang, code: string): string {
  try {
    return new Intl.DisplayNames(lang, { type: 'region' }).of(code.toUpperCase()) ?? code;
  } catch {
    return code;
  }
}

/** One value of a condition as the field reads it: money for amounts, a name for a country, an upper-case code for a currency. */
function valueWords(lang: Lang, field: string, value: string | number, amountCurrency: string): string {
  if (field === 'amount' && typeof value === 'number') return formatMoney(lang, value, amountCurrency);
  if (field === 'amount' && /^-?\d+$/.test(String(value))) return formatMoney(lang, Number(value), amountCurrency);
  if (field === 'country') return countryName(lang, String(value));
  if (field === 'currency') return isolate(lang, String(value).toUpperCase());
  if (typeof value === 'number') return new Intl.NumberFormat(lang, { maximumFractionDigits: 20 }).format(value);
  return isolate(lang, value);
}

/** "pro or team", "pro, team or max". */
function orList(lang: Lang, values: string[]): string {
  const w = WORDS[lang];
  if (values.length <= 1) return values.join('');
  return values.slice(0, -1).join(w.listComma) + w.or + values[values.length - 1];
}

/** One condition: "amount ≥ $100.00", "metadata.plan is pro or team", "country is not Germany". */
export function conditionWords(lang: Lang, c: RewardCondition, amountCurrency: string): string {
  const w = WORDS[lang];
  const field = fieldWords(lang, c.field);
  const one = (v: string | number) => valueWords(lang, c.field, v, amountCurrency);
  if (c.op === 'in') return `${field} ${w.is} ${orList(lang, (Array.isArray(c.value) ? c.value : [c.value]).map(one))}`;
  const value = Array.isArray(c.value) ? orList(lang, c.value.map(one)) : one(c.value);
  if (c.op === 'eq') return `${field} ${w.is} ${value}`;
  if (c.op === 'neq') return `${field} ${w.isNot} ${value}`;
  // A sign between Latin or numeric runs: isolated, so in Arabic "≥" stays between its two sides.
  return `${field} ${SIGNS[c.op]} ${value}`;
}

/**
 * The currency an amount condition is read in: the reward's own `currency` equality, else the
 * program's (a condition on `amount` holds only for events in the program currency otherwise).
 */
function amountCurrencyOf(reward: Reward, programCurrency: string): string {
  const own = reward.conditions?.find((c) => c.field === 'currency' && c.op === 'eq' && typeof c.value === 'string');
  return own ? String(own.value) : programCurrency;
}

/** What the reward pays, without its conditions. */
function payWords(lang: Lang, reward: Reward, programCurrency: string): string {
  const w = WORDS[lang];
  const firstOnly = reward.event === 'sale' && reward.maxDuration === 0;
  const duration = reward.event === 'sale' && reward.maxDuration !== undefined && reward.maxDuration > 0 ? w.forMonths(months(lang, reward.maxDuration)) : '';
  if (reward.type === 'percentage') {
    const p = percentOf(lang, reward.amount);
    return (firstOnly ? w.percentOfFirst(p) : w.percentOfEvery(p)) + duration;
  }
  const money = formatMoney(lang, reward.amount, programCurrency);
  if (firstOnly) return w.flatForFirst(money);
  const cap = reward.event === 'click' && reward.maxPerDay !== undefined ? w.upTo(new Intl.NumberFormat(lang).format(reward.maxPerDay)) : '';
  return w.flatFor(money, w.every[reward.event]) + duration + cap;
}

/**
 * The whole sentence: what it pays, for how long or how many a day, and when.
 * `programCurrency`: flat amounts and amount conditions are in it (lower-case ISO 4217).
 */
export function rewardSentence(lang: Lang, reward: Reward, programCurrency: string): string {
  const pay = payWords(lang, reward, programCurrency);
  const conditions = reward.conditions ?? [];
  if (conditions.length === 0) return pay;
  const w = WORDS[lang];
  const amountCurrency = amountCurrencyOf(reward, programCurrency);
  return pay + w.when + conditions.map((c) => conditionWords(lang, c, amountCurrency)).join(w.and);
}
