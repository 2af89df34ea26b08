import type { ToolFormat } from './fields.js';

/**
 * Tolt. Its dashboard's exports are not documented column by column; its API's objects are:
 * - the partner (docs.tolt.com/partners/create, /partners/update): `first_name`, `last_name`,
 *   `email`, `payout_method` (`paypal`, `wise`, …), `payout_details.email`, `created_at`, and
 *   (API v2, docs.tolt.com/guides/partner-signup) `link.value` (the `?ref=` value) and a
 *   promotion code's `code`;
 * - the customer (docs.tolt.com/sdks/typescript "Create a customer"): `customer_id` (your id,
 *   often the Stripe customer id), `email`, `name`, `partner_id`, `created_at`; a partner's own
 *   `partner_email` / `link.value` name them here (Tolt's `part_…` ids mean nothing to us).
 */
export const TOLT: ToolFormat = {
  partners: {
    firstName: ['first_name'],
    lastName: ['last_name'],
    name: ['display_name', 'name'],
    email: ['email'],
    referralKey: ['link.value', 'link', 'ref'],
    couponCodes: ['promotion_code.code', 'promotion_code', 'promotion_codes', 'code'],
    payoutMethod: ['payout_method'],
    payoutEmail: ['payout_details.email', 'payout_email'],
  },
  referrals: {
    customerExternalId: ['customer_id'],
    customerEmail: ['customer_email', 'email'],
    customerName: ['customer_name', 'name'],
    stripeCustomerId: ['stripe_customer_id', 'customer_id'],
    partnerEmail: ['partner_email', 'partner.email'],
    partnerKey: ['partner.link.value', 'link.value', 'ref'],
    referredAt: ['created_at'],
  },
  referralColumns: ['customer_id', 'partner_email', 'partner.email'],
};
