/**
 * The shapes of embedded referrals. What the page reads is a partner's view, declared apart from
 * the owner's shapes: their commissions as the partner portal shows them (customers masked).
 */
import { Type } from '@sinclair/typebox';
import { DateTime, Nullable, StringEnum, Uuid } from '../../http/schemas.js';

export const EmbedTokenCreate = Type.Object(
  {
    partnerId: Type.Optional(Type.String({ description: 'An approved partner of the workspace. Alone: not with tenantId, name or email' })),
    tenantId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 190,
        description: "Your product's id of the user: the partner holding it, or a new approved partner in the default group made with it",
      }),
    ),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 190, description: 'With tenantId: the name of a partner made now (required then)' })),
    email: Type.Optional(
      Type.String({ format: 'email', maxLength: 190, description: 'With tenantId: the e-mail of a partner made now; lets the page offer to set up payouts' }),
    ),
  },
  { description: 'Either `partnerId`, or `tenantId` with `name` (and `email`)' },
);

export const CreatedEmbedToken = Type.Object({
  token: Type.String({ description: 'The page token (`lte_…`): shown only here, valid until expiresAt; a credential of GET /api/embed/referrals alone' }),
  url: Type.String({ description: 'The page to put in an iframe: BASE_URL/embed/referrals?token=…; add `&lang=ar` for Arabic' }),
  expiresAt: DateTime,
  partnerId: Uuid,
});

const count = (description: string) => Type.Integer({ minimum: 0, description });

export const EmbedReferrals = Type.Object(
  {
    partner: Type.Object({ name: Type.String() }),
    program: Type.Object({ name: Type.String(), currency: Type.String({ description: 'The program currency (lowercase ISO 4217)' }) }),
    link: Nullable(
      Type.Object(
        { shortUrl: Type.String({ description: 'The link to share' }), url: Type.String({ description: 'Where it leads' }) },
        { description: "The partner's default link (else their first); null while it is being made" },
      ),
    ),
    totals: Type.Object(
      {
        clicks: count("Clicks on the partner's links, all time"),
        leads: count('Leads, all time'),
        sales: count('Sales, all time'),
        earnings: Type.Unsafe<Record<string, Record<string, number | bigint>>>({
          type: 'object',
          additionalProperties: {
            type: 'object',
            properties: { pending: { type: 'integer' }, held: { type: 'integer' }, payable: { type: 'integer' }, paid: { type: 'integer' } },
          },
          description: 'All time, per currency: pending, held, payable and paid, minor units (exact JSON integers)',
        }),
      },
      { description: 'All time' },
    ),
    commissions: Type.Array(Type.Ref('PortalCommission'), { description: 'The latest 50, newest first; customers masked as the partner portal shows them' }),
    payouts: Type.Object({
      offer: StringEnum(['invite', 'portal', 'none'] as const, {
        description:
          'invite: the partner has an e-mail and no account yet (POST /api/embed/referrals/payouts-invite mails one); portal: they have an account, payout details are given in the partner portal; none: no e-mail is known, or the server sends no mail',
      }),
      email: Nullable(Type.String({ description: 'With invite: where the invitation goes, masked (a•••@example.com)' })),
      portalUrl: Nullable(Type.String({ description: 'With portal: the partner portal' })),
    }),
  },
  { $id: 'EmbedReferrals', description: "One partner's referral page, as that partner may see it." },
);

export const EmbedPayoutsInvite = Type.Object({
  email: Type.String({ description: 'Where it was mailed, masked' }),
  expiresAt: DateTime,
});

export const EmbedPageQuery = Type.Object({
  token: Type.Optional(Type.String({ maxLength: 200, description: 'The token of POST /api/embed-tokens' })),
  lang: Type.Optional(StringEnum(['en', 'ar'] as const, { default: 'en', description: 'The language of the page (ar: right to left)' })),
});
