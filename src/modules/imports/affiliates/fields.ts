/**
 * What an affiliate tool's export gives (operations.md §18 "Moving in"), field by field, and
 * which of each tool's columns feed them (one small file per tool beside this one, each saying
 * where its format is documented). A file is one of two kinds, told by its columns: partners
 * (the tool's affiliates) or referrals (the customers they brought, each naming its partner).
 */

export const PARTNER_FIELDS = [
  'name',
  'firstName',
  'lastName',
  'email',
  'referralKey',
  'couponCodes',
  'paypalEmail',
  'wiseEmail',
  'payoutMethod',
  'payoutEmail',
] as const;
export type PartnerField = (typeof PARTNER_FIELDS)[number];

export const REFERRAL_FIELDS = ['customerExternalId', 'customerEmail', 'customerName', 'stripeCustomerId', 'partnerEmail', 'partnerKey', 'referredAt'] as const;
export type ReferralField = (typeof REFERRAL_FIELDS)[number];

/** Columns feeding each field, in order of preference (names compare as sources.ts's columnKey does). */
export type Guesses<F extends string> = Partial<Record<F, readonly string[]>>;

export interface ToolFormat {
  partners: Guesses<PartnerField>;
  referrals: Guesses<ReferralField>;
  /** Columns only a referrals export has: any of them makes the file one. */
  referralColumns: readonly string[];
}

export const AFFILIATE_SOURCES = ['rewardful', 'partnerstack', 'firstpromoter', 'tolt', 'tapfiliate'] as const;
export type AffiliateSource = (typeof AFFILIATE_SOURCES)[number];

export function isAffiliateSource(source: string): source is AffiliateSource {
  return (AFFILIATE_SOURCES as readonly string[]).includes(source);
}
