/**
 * The partner portal's shapes, declared apart from the owner's (operations.md §18 "Partner
 * portal"): a partner sees their links, figures, commissions and payouts, and of a customer
 * only what the customer would not mind a stranger knowing.
 */
import { Type } from '@sinclair/typebox';
import { DateTime, listQueryProperties, Nullable, StringEnum, Uuid } from '../../http/schemas.js';
import { Money } from '../analytics/schemas.js';
import { COMMISSION_STATUSES, COMMISSION_TYPES, REVERSED_REASONS } from '../commissions/schemas.js';
import { LinkUrlInput, LinkUtmInput } from '../links/schemas.js';

const minor = (description: string) => Type.Integer({ description: `${description}, in the currency's minor unit` });

export const PortalLink = Type.Object(
  {
    id: Uuid,
    url: Type.String(),
    shortUrl: Type.String(),
    qrCode: Type.String({ description: 'An image URL of the QR code of shortUrl' }),
    title: Nullable(Type.String()),
    utm: Nullable(Type.Record(Type.String(), Type.String())),
    default: Type.Boolean({ description: "The partner's default link (made when they were approved)" }),
    stats: Type.Object({ clicks: Type.Integer(), leads: Type.Integer(), sales: Type.Integer() }, { description: 'All time' }),
    createdAt: DateTime,
  },
  { $id: 'PortalLink', description: "A partner's link as the partner sees it." },
);

export const PortalLinkCreate = Type.Object(
  {
    url: {
      ...LinkUrlInput,
      description: "https; it must start with one of the program's link prefixes (same scheme, host and port; the path at a `/` boundary; no user info)",
    },
    title: Type.Optional(Type.String({ maxLength: 500 })),
    utm: Type.Optional(LinkUtmInput),
  },
  { description: 'Only these fields: anything else (a password, cloaking, targeting, expiry, test) is ignored, never applied' },
);

export const PortalLinkListQuery = Type.Object({
  take: listQueryProperties.take,
  skip: listQueryProperties.skip,
  sort: listQueryProperties.sort,
});

export const PORTAL_GROUP_BYS = [
  'timeseries',
  'country',
  'continent',
  'device',
  'browser',
  'os',
  'referrer',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_term',
  'utm_content',
  'link',
] as const;

export const PortalAnalyticsQuery = Type.Object({
  groupBy: Type.Optional(
    StringEnum(PORTAL_GROUP_BYS, { default: 'timeseries', description: "What to group the partner's figures by; referrer is the referring host only" }),
  ),
  interval: Type.Optional(StringEnum(['day', 'month'] as const, { default: 'day', description: 'timeseries buckets: UTC days or months' })),
  startDate: Type.Optional(Type.String({ description: 'As GET /api/analytics: an ISO date or date-time' })),
  endDate: Type.Optional(Type.String({ description: 'As GET /api/analytics' })),
  linkId: Type.Optional({ ...Uuid, description: "One of the partner's links (another's matches nothing)" }),
  take: listQueryProperties.take,
  skip: listQueryProperties.skip,
  sort: listQueryProperties.sort,
});

export const PortalGroup = Type.Object(
  {
    key: Type.String({ description: 'The bucket start in UTC (timeseries, YYYY-MM-DDTHH:MM:SSZ), the value, or a link id' }),
    clicks: Type.Integer(),
    leads: Type.Integer(),
    sales: Type.Integer(),
    revenue: Money('Per currency: sale amounts net of refunds, minor units.'),
    earnings: Money("Per currency (timeseries only, else {}): the partner's commissions made in the bucket, reversed ones left out, minor units."),
  },
  { $id: 'PortalGroup' },
);

export const PortalCustomer = Type.Object(
  {
    id: Uuid,
    name: Nullable(Type.String({ description: 'First name and the initial of the last: "Jane D."' })),
    email: Nullable(Type.String({ description: 'Masked: j•••@example.com' })),
    country: Nullable(Type.String({ description: "Of their first lead's click" })),
    createdAt: DateTime,
  },
  { $id: 'PortalCustomer', description: 'A customer as a partner sees them: never their external id, avatar, metadata or full e-mail.' },
);

export const PortalCommission = Type.Object(
  {
    id: Uuid,
    type: StringEnum(COMMISSION_TYPES),
    linkId: Nullable(Uuid),
    customer: Nullable(Type.Ref('PortalCustomer')),
    saleAmount: Nullable(minor("The sale's amount")),
    currency: Type.String(),
    earnings: minor('What the partner earns'),
    status: StringEnum(COMMISSION_STATUSES),
    reversedReason: Nullable(StringEnum(REVERSED_REASONS)),
    payoutId: Nullable(Uuid),
    description: Nullable(Type.String()),
    createdAt: DateTime,
    payableAt: DateTime,
  },
  { $id: 'PortalCommission', description: "A partner's commission as the partner sees it (no hold reasons: held is under review)." },
);

export const PortalCommissionListQuery = Type.Object({
  take: listQueryProperties.take,
  skip: listQueryProperties.skip,
  sort: listQueryProperties.sort,
  status: Type.Optional(StringEnum(COMMISSION_STATUSES)),
  type: Type.Optional(StringEnum(COMMISSION_TYPES)),
  currency: Type.Optional(Type.String({ pattern: '^[a-z]{3}$' })),
  payoutId: Type.Optional(Uuid),
});

export const PortalPayout = Type.Object(
  {
    id: Uuid,
    status: StringEnum(['pending', 'completed', 'cancelled', 'failed'] as const, { description: 'failed: the provider could not pay this partner' }),
    currency: Type.String(),
    amount: Type.Integer({ description: "What it pays the partner, in the currency's minor unit (an exact JSON integer)" }),
    method: Nullable(StringEnum(['paypal', 'wise', 'bank'] as const)),
    destination: Nullable(Type.String({ description: 'Masked' })),
    createdAt: DateTime,
    completedAt: Nullable(DateTime),
  },
  { $id: 'PortalPayout' },
);

export const PortalListQuery = Type.Object({ take: listQueryProperties.take, skip: listQueryProperties.skip, sort: listQueryProperties.sort });

export const PayoutDetails = Type.Object(
  {
    method: Nullable(StringEnum(['paypal', 'wise', 'bank'] as const)),
    destination: Nullable(Type.String({ description: 'Masked: j•••@example.com, or •••1234 for a bank account' })),
    holderName: Nullable(Type.String()),
    changedAt: Nullable(DateTime),
  },
  { $id: 'PayoutDetails' },
);

export const PayoutDetailsPut = Type.Object({
  method: StringEnum(['paypal', 'wise', 'bank'] as const),
  email: Type.Optional(Type.String({ format: 'email', maxLength: 254, description: 'paypal and wise: the account e-mail (required)' })),
  holderName: Type.Optional(Type.String({ minLength: 1, maxLength: 190, description: 'bank and wise: the account holder (bank: required)' })),
  details: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'bank: IBAN and BIC, or account and routing numbers (required)' })),
  password: Type.Optional(
    Type.String({ maxLength: 1024, description: "The account's password; not needed within 5 minutes of a passkey or single sign-on sign-in" }),
  ),
});

export const PartnerSummary = Type.Object(
  {
    partner: Type.Object({
      id: Uuid,
      name: Type.String(),
      status: Type.String(),
      referralKey: Nullable(Type.String()),
    }),
    program: Type.Object({
      id: Uuid,
      name: Type.String(),
      currency: Type.String(),
      linkPrefixes: Type.Array(Type.String()),
      maxPartnerLinks: Type.Integer(),
      termsUrl: Nullable(Type.String()),
    }),
    earnings: Type.Unsafe<Record<string, Record<string, number | bigint>>>({
      type: 'object',
      additionalProperties: {
        type: 'object',
        properties: { pending: { type: 'integer' }, held: { type: 'integer' }, payable: { type: 'integer' }, paid: { type: 'integer' } },
      },
      description: 'All time, per currency: pending, held, payable and paid, minor units',
    }),
  },
  { $id: 'PartnerSummary' },
);
