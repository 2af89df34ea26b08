import type { ToolFormat } from './fields.js';

/**
 * Tapfiliate. Its exports are not documented column by column; its REST API's objects are
 * (tapfiliate.com/docs/rest/, the affiliate object: `id`, `firstname`, `lastname`, `email`,
 * `referral_link` (a URL whose `?ref=` value is the key), `coupon`, `created_at`; the customer
 * object: `customer_id`, `created_at`, its `affiliate` with `email` and `referral_code`).
 * Payout e-mails are not part of the documented affiliate object: `paypal_email` is read when a
 * file has it.
 */
export const TAPFILIATE: ToolFormat = {
  partners: {
    firstName: ['firstname', 'first_name'],
    lastName: ['lastname', 'last_name'],
    name: ['name'],
    email: ['email'],
    referralKey: ['referral_code', 'referral_link'],
    couponCodes: ['coupon', 'coupons'],
    paypalEmail: ['paypal_email', 'payout_methods.paypal.email'],
  },
  referrals: {
    customerExternalId: ['customer_id'],
    customerEmail: ['customer_email', 'email'],
    customerName: ['customer_name', 'name'],
    stripeCustomerId: ['stripe_customer_id', 'customer_id'],
    partnerEmail: ['affiliate.email', 'affiliate_email'],
    partnerKey: ['affiliate.referral_code', 'referral_code'],
    referredAt: ['created_at'],
  },
  referralColumns: ['customer_id', 'affiliate.email', 'affiliate_email'],
};
