import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Nullable, Uuid } from '../../http/schemas.js';

/** What an application keeps of its free text: enough to judge it, never a page of it. */
export const MAX_WEBSITE = 300;
export const MAX_PROMOTION = 2000;
/** The field people never see: filled in, the application is a form-filling bot's. */
export const HONEYPOT = 'homepage';

export const SlugParam = Type.Object({ slug: Type.String({ maxLength: 100, description: "The program's slug" }) });

export const ApplyBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 190, description: 'The applicant’s name' }),
  email: Type.String({ format: 'email', maxLength: 190, description: 'Where the answer goes: an invitation when approved' }),
  website: Type.Optional(
    Type.String({
      maxLength: MAX_WEBSITE,
      description: 'Where they publish: an http(s) address (without a scheme, https is assumed), kept as text and never shown as a link',
    }),
  ),
  promotion: Type.Optional(Type.String({ maxLength: MAX_PROMOTION, description: 'How they will promote the program, plain text' })),
  acceptTerms: Type.Boolean({ description: "Must be true: the applicant accepts the program's terms (400 `invalid_field` otherwise)" }),
  [HONEYPOT]: Type.Optional(
    Type.String({
      maxLength: 10_000,
      description: 'Leave it out or empty. Filled in (as bots fill every field), the answer is the same and nothing is stored',
    }),
  ),
});
export type ApplyInput = Static<typeof ApplyBody>;

export const ApplicationListQuery = Type.Object({
  take: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100, description: '1 to 500' })),
  skip: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0, description: 'Records to skip' })),
});

export const PartnerApplication = Type.Object(
  {
    partnerId: Uuid,
    name: Type.String(),
    email: Nullable(Type.String()),
    status: Type.String({ description: "The partner's status: `pending` until approved or rejected" }),
    website: Nullable(Type.String({ description: 'As the applicant typed it (plain text: never render it as a link)' })),
    promotion: Nullable(Type.String({ description: 'How they will promote the program, as they wrote it (plain text)' })),
    termsUrl: Nullable(Type.String({ description: "The program's terms the applicant accepted, when it had a terms URL" })),
    createdAt: DateTime,
  },
  { $id: 'PartnerApplication', description: 'Extension. An application to the partner program: the partner it made and what they wrote.' },
);
