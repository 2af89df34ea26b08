import type { ToolFormat } from './fields.js';

/**
 * PartnerStack. Neither its dashboard's CSV exports nor (in the references searched) its API's
 * objects are documented column by column here: the names are its API v2's field names as its
 * reference uses them (docs.partnerstack.com/reference: a partnership's `key` / `partner_key`,
 * `email`, `first_name`, `last_name`, `created_at`; a customer's `customer_key`, `email`,
 * `name`, `provider_key` (the Stripe customer id), `partner_key`, `created_at`), not checked
 * against a real export. A column named otherwise is read with its name changed to one of these.
 */
export const PARTNERSTACK: ToolFormat = {
  partners: {
    firstName: ['first_name'],
    lastName: ['last_name'],
    name: ['name'],
    email: ['email'],
    referralKey: ['partner_key', 'key'],
    couponCodes: ['coupon_code', 'coupon_codes', 'coupon'],
    paypalEmail: ['paypal_email'],
  },
  referrals: {
    customerExternalId: ['customer_key'],
    customerEmail: ['customer_email', 'email'],
    customerName: ['customer_name', 'name'],
    stripeCustomerId: ['provider_key', 'stripe_customer_id'],
    partnerEmail: ['partner_email', 'partnership.email'],
    partnerKey: ['partner_key', 'partnership.key'],
    referredAt: ['created_at'],
  },
  referralColumns: ['customer_key', 'provider_key'],
};
