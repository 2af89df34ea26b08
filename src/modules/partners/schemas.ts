import { Type } from '@sinclair/typebox';
import { DateTime, HttpsUrlInput, Nullable, StringEnum, Uuid } from '../../http/schemas.js';
import { PartnerStats } from './stats-schemas.js';

export const PARTNER_STATUSES = ['invited', 'pending', 'approved', 'rejected', 'banned', 'archived'] as const;
export type PartnerStatus = (typeof PARTNER_STATUSES)[number];

/** The fields of a partner's standing in the program: setting any needs `programsWrite` too. */
export const PROGRAM_FIELDS = ['status', 'groupId', 'couponCodes', 'referralKey', 'tenantId', 'userId'] as const;

export const MAX_COUPON_CODES = 20;

const name = Type.String({ minLength: 1, maxLength: 190 });
const email = Nullable(Type.String({ format: 'email', maxLength: 190 }));
const image = Nullable(
  HttpsUrlInput(
    2048,
    'https URL, stored in its normalised form (as a link `url`: punycode host, percent-encoded path), at most 2048 characters once normalised',
  ),
);

const status = StringEnum(PARTNER_STATUSES, {
  description:
    'The partner in the program. A new partner is `approved` unless the body says `invited` or `pending`. Moves: invited → approved; ' +
    'pending → approved or rejected; approved → banned or archived; banned or archived → approved; anything else is 400 `status_move`. ' +
    'Setting `approved` or `banned` is a money act: by session, human token or OAuth grant, only an owner (403 `owner_required`).',
});
const groupId = Nullable({ ...Uuid, description: 'A group of the program (GET /api/partner-groups); null: the group `default`' });
const referralKey = Type.String({
  pattern: '^[a-z0-9_-]{3,50}$',
  description:
    'Unique in the workspace ignoring case: 3–50 of a-z, 0-9, `_` and `-`. Default: the name in lower case, each run of other characters `-`, ' +
    'trimmed, cut to 47, then `-2`, `-3`… on collision (or the first 8 characters of the id when shorter than 3)',
});
const couponCodes = Type.Array(Type.String({ pattern: '^[A-Za-z0-9_-]{1,50}$', description: '1–50 of letters, digits, `_` and `-`' }), {
  maxItems: MAX_COUPON_CODES,
  description: 'Codes customers type, or Stripe promotion code ids (`promo_…`): unique in the workspace ignoring case; a list given replaces the stored one',
});
const tenantId = Nullable(Type.String({ minLength: 1, maxLength: 190, description: "The embedding product's user id: unique in the workspace" }));

const programNote = 'Setting `status`, `groupId`, `couponCodes`, `referralKey` or `tenantId` needs `partnersWrite` and `programsWrite` (403 `missing_scopes`).';

export const Partner = Type.Object(
  {
    id: Uuid,
    name,
    email,
    image,
    status,
    groupId: Nullable({ ...Uuid, description: "The partner's group: the id of the group `default` when none is set; null while the workspace has no program" }),
    referralKey: Nullable(Type.String({ description: referralKey.description })),
    couponCodes: Type.Array(Type.String(), { description: couponCodes.description }),
    tenantId,
    userId: Nullable({
      ...Uuid,
      description: 'The person who signs in as this partner: set by accepting an invitation (POST /api/partner-invites/accept); PUT `null` unlinks them',
    }),
    defaultLinkId: Nullable({
      ...Uuid,
      description:
        "Read-only: the partner's default link, made once the first time they are approved in a program (for partners the program's first PUT approved, " +
        "shortly after by a background job): the program's `landingUrl` in the program's collection, carrying the partner's id; it follows later `landingUrl` " +
        "changes unless its `url` was edited, cannot be deleted while the partner is approved (400 `default_link`), and with the program's `linkHost` gets the " +
        'alias `https://<linkHost>/<referralKey>` when that is free on the server (otherwise none). Null until then',
    }),
    payoutMethod: Nullable(StringEnum(['paypal', 'wise', 'bank'] as const, { description: 'Read-only: set by the partner in the portal' })),
    payoutDestination: Nullable(Type.String({ description: 'Read-only, masked (`j•••@example.com`): where payouts go' })),
    payoutDetailsChangedAt: Nullable({ ...DateTime, description: 'Read-only: when the payout details were last replaced' }),
    createdAt: DateTime,
    updatedAt: DateTime,
    stats: Type.Optional(PartnerStats),
  },
  { $id: 'Partner', description: 'Someone who promotes links (an affiliate); links and clicks can name one. ' + programNote },
);

const programInput = {
  status: Type.Optional(status),
  groupId: Type.Optional(groupId),
  couponCodes: Type.Optional(couponCodes),
  referralKey: Type.Optional(referralKey),
  tenantId: Type.Optional(tenantId),
};

export const PartnerCreate = Type.Object({ name, email: Type.Optional(email), image: Type.Optional(image), ...programInput });

export const PartnerUpsert = Type.Object({
  id: Type.Optional(Uuid),
  userId: Type.Optional(
    Type.Null({
      description:
        'Only null, on an existing partner: unlinks the person who signs in as them and clears their payout details, so another invitation can be accepted (needs `programsWrite` too)',
    }),
  ),
  name: Type.Optional(name),
  email: Type.Optional(email),
  image: Type.Optional(image),
  ...programInput,
});
