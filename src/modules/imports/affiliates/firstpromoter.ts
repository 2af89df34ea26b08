import type { ToolFormat } from './fields.js';

/**
 * FirstPromoter. Its referrals export (GET /api/v2/affiliate/referrals/export, text/csv:
 * docs.firstpromoter.com/api-reference-v2/api-affiliate/referrals/export-referrals) does not list
 * its columns, so its API objects' field names are read:
 * - the promoter (docs.firstpromoter.com/api-reference-v1/promoters-api/create): `email`,
 *   `profile.first_name`, `profile.last_name`, `profile.paypal_email`, `default_ref_id`,
 *   `promotions[].promo_code`, `created_at`;
 * - the lead / referral (v1 "Show leads and customers", v2 Referral): `uid`, `email`, `username`,
 *   `customer_since`, `created_at`, and its promoter's `email` / `ref_id`.
 */
export const FIRSTPROMOTER: ToolFormat = {
  partners: {
    firstName: ['first_name', 'profile.first_name'],
    lastName: ['last_name', 'profile.last_name'],
    name: ['name'],
    email: ['email'],
    referralKey: ['default_ref_id', 'ref_id', 'ref_token'],
    couponCodes: ['promo_code', 'promotions.0.promo_code', 'coupon'],
    paypalEmail: ['paypal_email', 'profile.paypal_email'],
  },
  referrals: {
    customerExternalId: ['uid'],
    customerEmail: ['email'],
    customerName: ['name', 'username'],
    stripeCustomerId: ['stripe_customer_id', 'customer_id'],
    partnerEmail: ['promoter_email', 'promoter.email'],
    partnerKey: ['ref_id', 'promoter.default_ref_id', 'promoter_ref_id'],
    referredAt: ['customer_since', 'created_at'],
  },
  referralColumns: ['uid', 'promoter_email', 'promoter.email', 'customer_since'],
};
