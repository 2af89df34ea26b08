/**
 * A sample export of each affiliate tool an import reads (operations.md §18 "Moving in"), with
 * where its format is documented: a partners file (two partners; Ada with a coupon code and a
 * PayPal e-mail) and a referrals file (Ada's customer named by referral key, Grace's by e-mail
 * where the tool gives it, and a customer of a partner nobody imported). Where a tool documents
 * no export columns, the sample uses its API objects' field names (nested keys joined by `.`), as
 * the reader does (src/modules/imports/affiliates/<tool>.ts).
 */

export interface AffiliateSample {
  source: 'rewardful' | 'partnerstack' | 'firstpromoter' | 'tolt' | 'tapfiliate';
  partners: string;
  referrals: string;
  /** The external ids the referrals file gives Ada's and Grace's customers here. */
  customers: [string, string];
  /** Ada's customer's Stripe customer id, when the file gives one. */
  stripeCustomerId?: string;
}

/** When the files say Ada's and Grace's customers were referred. */
export const REFERRED_AT = ['2024-03-15T10:00:00.000Z', '2024-04-20T08:30:00.000Z'] as const;

export const SAMPLES: AffiliateSample[] = [
  {
    // developers.rewardful.com/rest-api/affiliates/object (the affiliate object) and
    // developers.rewardful.com/rest-api/referrals/object (the referral object); the dashboard's
    // CSV columns are not documented.
    source: 'rewardful',
    partners: [
      'id,first_name,last_name,email,paypal_email,state,links.token,coupon.token,created_at',
      'd0ed8392-8880-4f39-8715-60230f9eceab,Ada,Lovelace,ada@example.com,ada.pay@example.com,active,ada,ADA10,2023-01-05T09:00:00.000Z',
      'dc939584-a94a-4bdf-b8f4-8d255aae729c,Grace,Hopper,grace@example.com,,active,grace,,2023-02-01T09:00:00.000Z',
    ].join('\n'),
    referrals: [
      'id,conversion_state,customer.id,customer.name,customer.email,affiliate.email,link.token,became_conversion_at,created_at',
      'e523da29-6157-4aac-b4b5-05b3b7b14fb6,conversion,cus_rw_ada1,Cam Buyer,cam@example.org,ada@example.com,ada,2024-03-15T10:00:00.000Z,2024-03-01T10:00:00.000Z',
      'f623da29-6157-4aac-b4b5-05b3b7b14fb7,conversion,cus_rw_grace1,Dee Buyer,dee@example.org,grace@example.com,,2024-04-20T08:30:00.000Z,2024-04-01T10:00:00.000Z',
      '0723da29-6157-4aac-b4b5-05b3b7b14fb8,conversion,cus_rw_eve1,Eve Buyer,eve@example.org,nobody@example.com,nobody,2024-05-01T00:00:00.000Z,2024-05-01T00:00:00.000Z',
    ].join('\n'),
    customers: ['cus_rw_ada1', 'cus_rw_grace1'],
    stripeCustomerId: 'cus_rw_ada1',
  },
  {
    // PartnerStack: no export columns found documented; its API v2 field names
    // (docs.partnerstack.com/reference: partnerships `partner_key`, `email`, `first_name`,
    // `last_name`, `created_at` in epoch milliseconds; customers `customer_key`, `email`, `name`,
    // `provider_key`, `partner_key`). `coupon_code` and `paypal_email` are this sample's own.
    source: 'partnerstack',
    partners: [
      'partner_key,first_name,last_name,email,group,coupon_code,paypal_email,created_at',
      'ada,Ada,Lovelace,ada@example.com,default,ADA10,ada.pay@example.com,1672909200000',
      'grace,Grace,Hopper,grace@example.com,default,,,1675242000000',
    ].join('\n'),
    referrals: [
      'customer_key,name,email,provider_key,partner_key,created_at',
      'ps-cust-ada,Cam Buyer,cam@example.org,cus_ps_ada1,ada,1710496800000',
      'ps-cust-grace,Dee Buyer,dee@example.org,,grace,1713601800000',
      'ps-cust-eve,Eve Buyer,eve@example.org,,nobody,1714521600000',
    ].join('\n'),
    customers: ['ps-cust-ada', 'ps-cust-grace'],
    stripeCustomerId: 'cus_ps_ada1',
  },
  {
    // FirstPromoter: the promoter (docs.firstpromoter.com/api-reference-v1/promoters-api/create)
    // and the referral (GET /api/v2/affiliate/referrals/export, text/csv, columns not listed:
    // docs.firstpromoter.com/api-reference-v2/api-affiliate/referrals/export-referrals).
    source: 'firstpromoter',
    partners: [
      'id,email,first_name,last_name,default_ref_id,promo_code,paypal_email,created_at',
      '123,ada@example.com,Ada,Lovelace,ada,ADA10,ada.pay@example.com,2023-01-05 09:00:00',
      '124,grace@example.com,Grace,Hopper,grace,,,2023-02-01 09:00:00',
    ].join('\n'),
    referrals: [
      'id,uid,email,username,state,customer_since,promoter_email,ref_id,created_at',
      '9001,fp-user-ada,cam@example.org,cam,active,2024-03-15 10:00:00,ada@example.com,ada,2024-03-01 10:00:00',
      '9002,fp-user-grace,dee@example.org,dee,active,2024-04-20 08:30:00,grace@example.com,,2024-04-01 10:00:00',
      '9003,fp-user-eve,eve@example.org,eve,active,2024-05-01 00:00:00,nobody@example.com,nobody,2024-05-01 00:00:00',
    ].join('\n'),
    customers: ['fp-user-ada', 'fp-user-grace'],
  },
  {
    // Tolt: the partner (docs.tolt.com/partners/create: `payout_method`, `payout_details.email`;
    // docs.tolt.com/guides/partner-signup: `link.value`) and the customer
    // (docs.tolt.com/sdks/typescript: `customer_id`, often the Stripe customer id).
    source: 'tolt',
    partners: [
      'id,first_name,last_name,email,status,payout_method,payout_details.email,link.value,promotion_code,created_at',
      'part_s7mbzRGn46BhVgNFHD6fDgXW,Ada,Lovelace,ada@example.com,active,paypal,ada.pay@example.com,ada,ADA10,2023-01-05T09:00:00.000Z',
      'part_yP2D2oFyPsFUfkwzXCzRn3U2,Grace,Hopper,grace@example.com,active,none,,grace,,2023-02-01T09:00:00.000Z',
    ].join('\n'),
    referrals: [
      'id,customer_id,email,name,partner_email,created_at',
      'cust_1,cus_tolt_ada1,cam@example.org,Cam Buyer,ada@example.com,2024-03-15T10:00:00.000Z',
      'cust_2,cus_tolt_grace1,dee@example.org,Dee Buyer,grace@example.com,2024-04-20T08:30:00.000Z',
      'cust_3,cus_tolt_eve1,eve@example.org,Eve Buyer,nobody@example.com,2024-05-01T00:00:00.000Z',
    ].join('\n'),
    customers: ['cus_tolt_ada1', 'cus_tolt_grace1'],
    stripeCustomerId: 'cus_tolt_ada1',
  },
  {
    // Tapfiliate: the affiliate and customer objects (tapfiliate.com/docs/rest/: `firstname`,
    // `lastname`, `email`, `referral_link`, `coupon`; a customer's `customer_id` and its
    // `affiliate`). `paypal_email` is not in the documented object: this sample's own.
    source: 'tapfiliate',
    partners: [
      'id,firstname,lastname,email,referral_link,coupon,paypal_email,created_at',
      'adalovelace,Ada,Lovelace,ada@example.com,https://shop.example/?ref=ada,ADA10,ada.pay@example.com,2023-01-05T09:00:00+00:00',
      'gracehopper,Grace,Hopper,grace@example.com,https://shop.example/?ref=grace,,,2023-02-01T09:00:00+00:00',
    ].join('\n'),
    referrals: [
      'customer_id,status,created_at,affiliate.email,affiliate.referral_code',
      'tap-cust-ada,paying,2024-03-15T10:00:00+00:00,ada@example.com,ada',
      'tap-cust-grace,paying,2024-04-20T08:30:00+00:00,grace@example.com,',
      'tap-cust-eve,paying,2024-05-01T00:00:00+00:00,nobody@example.com,nobody',
    ].join('\n'),
    customers: ['tap-cust-ada', 'tap-cust-grace'],
  },
];
