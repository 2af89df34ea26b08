import { AppError } from '../../../core/errors.js';
import { columnKey } from '../sources.js';
import type { AffiliateSource, Guesses, PartnerField, ReferralField, ToolFormat } from './fields.js';
import { FIRSTPROMOTER } from './firstpromoter.js';
import { PARTNERSTACK } from './partnerstack.js';
import { REWARDFUL } from './rewardful.js';
import { TAPFILIATE } from './tapfiliate.js';
import { TOLT } from './tolt.js';

const FORMATS: Record<AffiliateSource, ToolFormat> = {
  rewardful: REWARDFUL,
  partnerstack: PARTNERSTACK,
  firstpromoter: FIRSTPROMOTER,
  tolt: TOLT,
  tapfiliate: TAPFILIATE,
};

/** Which columns feed each field (indexes, in order of preference). */
export type Plan<F extends string> = Partial<Record<F, number[]>>;

export type FilePlan = { kind: 'partners'; plan: Plan<PartnerField> } | { kind: 'referrals'; plan: Plan<ReferralField> };

function planOf<F extends string>(columns: readonly string[], guesses: Guesses<F>): Plan<F> {
  const keys = columns.map(columnKey);
  const plan: Plan<F> = {};
  for (const [field, names] of Object.entries(guesses) as [F, readonly string[]][]) {
    const found = [...new Set(names.map((n) => keys.indexOf(columnKey(n))).filter((at) => at >= 0))];
    if (found.length) plan[field] = found;
  }
  return plan;
}

/**
 * The file's kind and its columns' plan: a referrals export when it has a column only those have
 * (the customer's id, the partner's e-mail beside it), else a partners export; a file with neither
 * the partner's nor the customer's columns is no export of the tool (400 naming what is looked for).
 */
export function planAffiliateFile(columns: readonly string[], source: AffiliateSource): FilePlan {
  const format = FORMATS[source];
  const keys = new Set(columns.map(columnKey));
  if (format.referralColumns.some((c) => keys.has(columnKey(c)))) {
    const plan = planOf(columns, format.referrals);
    if ((plan.customerExternalId || plan.customerEmail || plan.stripeCustomerId) && (plan.partnerEmail || plan.partnerKey)) return { kind: 'referrals', plan };
  }
  const plan = planOf(columns, format.partners);
  if (plan.email || plan.referralKey) return { kind: 'partners', plan };
  const expected = [...(format.partners.email ?? []), ...(format.partners.referralKey ?? []), ...format.referralColumns].map((n) => `"${n}"`).join(', ');
  throw new AppError('import_no_affiliate_columns', { source, expected, columns: columns.join(', ') || '(none)' });
}
