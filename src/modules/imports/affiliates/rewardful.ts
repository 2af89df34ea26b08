import type { ToolFormat } from './fields.js';

/**
 * Rewardful. Its dashboard's CSV exports are not documented column by column; its REST API's
 * objects are, and a CSV of them (nested keys joined by `.`) is what is read:
 * - the affiliate object (developers.rewardful.com/rest-api/affiliates/object): `first_name`,
 *   `last_name`, `email`, `paypal_email`, `wise_email` (create affiliate), `links[].token` (the
 *   `?via=` token), `coupon.token`, `created_at`;
 * - the referral object (developers.rewardful.com/rest-api/referrals/object): `customer.id` (the
 *   Stripe customer, `cus_…`), `customer.name`, `customer.email`, `affiliate.email`,
 *   `link.token`, `became_conversion_at`, `became_lead_at`, `created_at`.
 */
export const REWARDFUL: ToolFormat = {
  partners: {
    firstName: ['first_name'],
    lastName: ['last_name'],
    name: ['name'],
    email: ['email'],
    referralKey: ['token', 'links.token', 'links.0.token', 'link_token'],
    couponCodes: ['coupon.token', 'coupon', 'coupons'],
    paypalEmail: ['paypal_email'],
    wiseEmail: ['wise_email'],
  },
  referrals: {
    customerExternalId: ['customer.id', 'customer_id'],
    customerEmail: ['customer.email', 'customer_email', 'email'],
    customerName: ['customer.name', 'customer_name'],
    stripeCustomerId: ['customer.id', 'stripe_customer_id'],
    partnerEmail: ['affiliate.email', 'affiliate_email'],
    partnerKey: ['link.token', 'affiliate.token', 'token'],
    referredAt: ['became_conversion_at', 'became_lead_at', 'created_at'],
  },
  referralColumns: ['customer.id', 'customer.email', 'became_conversion_at', 'affiliate.email'],
};
