/**
 * The program form's values as typed (text), and the PUT /api/program body made from them.
 * Pure, so the exact conversions (amounts to minor units, lines to lists) are tested alone.
 */
import type { paths } from '../../api/schema.js';
import { majorUnits, parseMajor } from '../../ui/money.js';
import { FRAUD_RULES, type FraudRule, type Program } from './types.js';

export type ProgramBody = paths['/api/program']['put']['requestBody']['content']['application/json'];

export interface MinPayoutRow {
  currency: string;
  amount: string;
}

export interface ProgramDraft {
  name: string;
  slug: string;
  landingUrl: string;
  currency: string;
  holdingDays: string;
  attributionDays: string;
  maxPartnerLinks: string;
  minPayout: MinPayoutRow[];
  /** One per line. */
  linkPrefixes: string;
  embedOrigins: string;
  termsUrl: string;
  applicationsOpen: boolean;
  autoApprove: boolean;
  fraudRules: Record<FraudRule, boolean>;
  trustClientEvents: boolean;
}

/** What the form's own checks say before sending: the field and the words' key. */
export type DraftProblem = { field: string; problem: 'wholeNumber' | 'amount' | 'currency' };

/** A new program: its four fields blank (the currency usd), the settings at the server's defaults. */
export function emptyDraft(): ProgramDraft {
  return {
    name: '',
    slug: '',
    landingUrl: '',
    currency: 'usd',
    holdingDays: '30',
    attributionDays: '90',
    maxPartnerLinks: '20',
    minPayout: [],
    linkPrefixes: '',
    embedOrigins: '',
    termsUrl: '',
    applicationsOpen: false,
    autoApprove: false,
    fraudRules: Object.fromEntries(FRAUD_RULES.map((r) => [r, true])) as Record<FraudRule, boolean>,
    trustClientEvents: false,
  };
}

/** The program's settings as the form shows them (amounts in major units). */
export function draftOf(p: Program): ProgramDraft {
  return {
    name: p.name,
    slug: p.slug,
    landingUrl: p.landingUrl,
    currency: p.currency,
    holdingDays: String(p.holdingDays),
    attributionDays: String(p.attributionDays),
    maxPartnerLinks: String(p.maxPartnerLinks),
    minPayout: Object.entries(p.minPayout).map(([currency, minor]) => ({ currency, amount: majorUnits(minor, currency) })),
    linkPrefixes: p.linkPrefixes.join('\n'),
    embedOrigins: p.embedOrigins.join('\n'),
    termsUrl: p.termsUrl ?? '',
    applicationsOpen: p.applications.open,
    autoApprove: p.applications.autoApprove,
    fraudRules: { ...p.fraudRules },
    trustClientEvents: p.trustClientEvents,
  };
}

const lines = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

const whole = (text: string) => (/^\d+$/.test(text.trim()) ? Number(text.trim()) : undefined);

/**
 * The PUT body: the first PUT sends the four fields only (the server's defaults for the rest);
 * later ones send every setting the form shows. A number that is not whole, an amount with more
 * decimals than its currency has or a malformed currency code is the form's own problem.
 */
export function bodyOf(d: ProgramDraft, full: boolean): { body: ProgramBody } | DraftProblem {
  const basics = { name: d.name.trim(), slug: d.slug.trim(), landingUrl: d.landingUrl.trim(), currency: d.currency.trim().toLowerCase() };
  if (!full) return { body: basics };
  const numbers = { holdingDays: whole(d.holdingDays), attributionDays: whole(d.attributionDays), maxPartnerLinks: whole(d.maxPartnerLinks) };
  for (const [field, value] of Object.entries(numbers)) if (value === undefined) return { field, problem: 'wholeNumber' };
  const minPayout: Record<string, number> = {};
  for (const row of d.minPayout) {
    const code = row.currency.trim().toLowerCase();
    if (code === '' && row.amount.trim() === '') continue;
    if (!/^[a-z]{3}$/.test(code)) return { field: 'minPayout', problem: 'currency' };
    const minor = parseMajor(row.amount, code);
    if (minor === undefined) return { field: 'minPayout', problem: 'amount' };
    minPayout[code] = minor;
  }
  return {
    body: {
      ...basics,
      holdingDays: numbers.holdingDays!,
      attributionDays: numbers.attributionDays!,
      maxPartnerLinks: numbers.maxPartnerLinks!,
      minPayout,
      linkPrefixes: lines(d.linkPrefixes),
      embedOrigins: lines(d.embedOrigins),
      termsUrl: d.termsUrl.trim() || null,
      applications: { open: d.applicationsOpen, autoApprove: d.autoApprove },
      fraudRules: { ...d.fraudRules },
      trustClientEvents: d.trustClientEvents,
    },
  };
}

/** The form field an API error names: `minPayout.eur` → minPayout, `linkPrefixes[1]` → linkPrefixes. */
export function formFieldOf(field: string | undefined): string | undefined {
  return field?.split(/[.[]/)[0] || undefined;
}
