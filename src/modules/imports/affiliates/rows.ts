import type { RejectedRow } from '../job-source.js';
import { rejectedRow } from '../written.js';
import { EARLIEST_CREATED_AT } from '../build-row.js';
import { parseImportDate } from '../dates.js';
import { MAX_COUPON_CODES } from '../../partners/schemas.js';
import type { PartnerField, ReferralField } from './fields.js';
import type { Plan } from './formats.js';

/**
 * One row of an affiliate tool's export, checked and normalised: a partner, or a referred
 * customer naming their partner, or why the row cannot be imported.
 */

export interface PayoutEmail {
  method: 'paypal' | 'wise';
  email: string;
}

export interface PartnerRow {
  line: number;
  name: string;
  email?: string;
  referralKey?: string;
  couponCodes: string[];
  payout?: PayoutEmail;
}

export interface ReferralRow {
  line: number;
  externalId: string;
  email?: string;
  name?: string;
  stripeCustomerId?: string;
  partnerEmail?: string;
  partnerKey?: string;
  /** ISO 8601, from 2000 to when the file is read; absent: the import's time. */
  referredAt?: string;
  warnings?: RejectedRow[];
}

export type ReadRow = { ok: true; partner: PartnerRow } | { ok: true; referral: ReferralRow } | ({ ok: false } & RejectedRow);

/** A rejected row, worded as the link reader words its own. */
/** A rejected row of the file (rejectedRow, shared with the linktrail source). */
export const rejected = rejectedRow;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const KEY = /^[a-z0-9_-]{3,50}$/;
const CODE = /^[A-Za-z0-9_-]{1,50}$/;
const NAME_LIMIT = 190;
const EMAIL_LIMIT = 100;

type Verdict<T> = { value?: T } | { fail: RejectedRow };

/** The trimmed first non-empty cell of the columns feeding `field`. */
function cellOf<F extends string>(plan: Plan<F>, cells: readonly string[], field: F): string | undefined {
  for (const at of plan[field] ?? []) {
    const cell = cells[at]?.trim();
    if (cell) return cell;
  }
  return undefined;
}

function emailOf(line: number, field: string, value: string | undefined): Verdict<string> {
  if (value === undefined) return {};
  if (value.length > EMAIL_LIMIT || !EMAIL.test(value)) return { fail: rejected(line, field, 'format', { format: 'e-mail address' }) };
  return { value };
}

/** A referral key as a tool writes it, or the link carrying it (`https://shop.example/?via=adam` → `adam`), lower-cased. */
function keyOf(line: number, field: string, value: string | undefined): Verdict<string> {
  if (value === undefined) return {};
  let key = value;
  if (/^https?:\/\//i.test(value)) {
    try {
      const url = new URL(value);
      key = [...url.searchParams.values()].at(-1) ?? url.pathname.split('/').filter(Boolean).at(-1) ?? '';
    } catch {
      key = '';
    }
  }
  key = key.toLowerCase();
  return KEY.test(key) ? { value: key } : { fail: rejected(line, field, 'pattern') };
}

function couponsOf(line: number, value: string | undefined): Verdict<string[]> {
  const codes = [...new Set((value ?? '').split(/[\s,;|]+/).filter(Boolean))];
  if (codes.length > MAX_COUPON_CODES) return { fail: rejected(line, 'couponCodes', 'max_items', { limit: MAX_COUPON_CODES }) };
  if (codes.some((c) => !CODE.test(c))) return { fail: rejected(line, 'couponCodes', 'pattern') };
  return { value: codes };
}

/** The payout e-mail a row gives: PayPal's or Wise's column, or the method named beside one e-mail. */
function payoutOf(plan: Plan<PartnerField>, line: number, cells: readonly string[]): Verdict<PayoutEmail> {
  const method = cellOf(plan, cells, 'payoutMethod')?.toLowerCase();
  const given: [PayoutEmail['method'], string | undefined][] = [
    ['paypal', cellOf(plan, cells, 'paypalEmail')],
    ['wise', cellOf(plan, cells, 'wiseEmail')],
    ...(method === 'paypal' || method === 'wise' ? [[method, cellOf(plan, cells, 'payoutEmail')] as [PayoutEmail['method'], string | undefined]] : []),
  ];
  const [found, email] = given.find(([, e]) => e !== undefined) ?? [];
  if (!found) return {};
  const checked = emailOf(line, found === 'paypal' ? 'paypalEmail' : 'wiseEmail', email);
  return 'fail' in checked ? checked : { value: { method: found, email: checked.value! } };
}

export function partnerRow(plan: Plan<PartnerField>, line: number, cells: readonly string[]): ReadRow {
  const email = emailOf(line, 'email', cellOf(plan, cells, 'email'));
  if ('fail' in email) return { ok: false, ...email.fail };
  const key = keyOf(line, 'referralKey', cellOf(plan, cells, 'referralKey'));
  if ('fail' in key) return { ok: false, ...key.fail };
  if (email.value === undefined && key.value === undefined) return { ok: false, ...rejected(line, 'email', 'affiliate_identity') };
  const coupons = couponsOf(line, cellOf(plan, cells, 'couponCodes'));
  if ('fail' in coupons) return { ok: false, ...coupons.fail };
  const payout = payoutOf(plan, line, cells);
  if ('fail' in payout) return { ok: false, ...payout.fail };
  const full = [cellOf(plan, cells, 'firstName'), cellOf(plan, cells, 'lastName')].filter(Boolean).join(' ');
  const name = (cellOf(plan, cells, 'name') ?? (full || email.value || key.value)!).slice(0, NAME_LIMIT);
  return { ok: true, partner: { line, name, email: email.value, referralKey: key.value, couponCodes: coupons.value!, payout: payout.value } };
}

function referredAtOf(line: number, value: string | undefined, now: number): Verdict<string> & { warning?: RejectedRow } {
  if (value === undefined) return {};
  const iso = parseImportDate(value);
  if (iso === undefined) return { fail: rejected(line, 'referredAt', 'import_date') };
  const at = Date.parse(iso);
  if (at >= EARLIEST_CREATED_AT && at <= now) return { value: iso };
  return { warning: { ...rejected(line, 'referredAt', 'referral_date_range', { date: iso }), leftOut: true } };
}

export function referralRow(plan: Plan<ReferralField>, line: number, cells: readonly string[], now: number): ReadRow {
  const email = emailOf(line, 'customerEmail', cellOf(plan, cells, 'customerEmail'));
  if ('fail' in email) return { ok: false, ...email.fail };
  const stripe = cellOf(plan, cells, 'stripeCustomerId');
  const stripeCustomerId = stripe?.startsWith('cus_') ? stripe : undefined;
  // The tool's own id for the customer, else the Stripe customer's, else the e-mail: what sales here will name.
  const externalId = cellOf(plan, cells, 'customerExternalId') ?? stripeCustomerId ?? email.value;
  if (externalId === undefined) return { ok: false, ...rejected(line, 'customerExternalId', 'required') };
  if (externalId.length > 100) return { ok: false, ...rejected(line, 'customerExternalId', 'max_length', { limit: 100 }) };
  const partnerEmail = emailOf(line, 'partnerEmail', cellOf(plan, cells, 'partnerEmail'));
  if ('fail' in partnerEmail) return { ok: false, ...partnerEmail.fail };
  const partnerKey = keyOf(line, 'partnerKey', cellOf(plan, cells, 'partnerKey'));
  if ('fail' in partnerKey) return { ok: false, ...partnerKey.fail };
  if (partnerEmail.value === undefined && partnerKey.value === undefined) return { ok: false, ...rejected(line, 'partnerEmail', 'required') };
  const referredAt = referredAtOf(line, cellOf(plan, cells, 'referredAt'), now);
  if ('fail' in referredAt) return { ok: false, ...referredAt.fail };
  const referral: ReferralRow = {
    line,
    externalId,
    email: email.value,
    name: cellOf(plan, cells, 'customerName')?.slice(0, 100),
    stripeCustomerId,
    partnerEmail: partnerEmail.value,
    partnerKey: partnerKey.value,
    referredAt: referredAt.value,
    ...(referredAt.warning ? { warnings: [referredAt.warning] } : {}),
  };
  return { ok: true, referral };
}

export { nothingWritten, type Written } from '../written.js';
