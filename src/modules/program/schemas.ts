import { Type, type Static } from '@sinclair/typebox';
import { DateTime, HttpsUrlInput, Nullable, Uuid } from '../../http/schemas.js';
import { Reward } from './reward-schema.js';

export const FRAUD_RULES = ['selfReferral', 'sameVisitor', 'disposableEmail', 'burst', 'duplicateCustomer'] as const;
export type FraudRule = (typeof FRAUD_RULES)[number];

const httpsUrl = (description: string) => HttpsUrlInput(2048, description);
const currency = Type.String({ pattern: '^[a-z]{3}$', description: 'Lower-case ISO 4217 code' });
const minor = Type.Integer({ minimum: 0, maximum: 1e15, description: "An amount in the currency's minor unit" });

const MinPayout = Type.Record(Type.String({ pattern: '^[a-z]{3}$' }), minor, {
  description:
    'The smallest payable total that is paid out, per currency (minor unit). A currency not listed: any positive total. Default `{ <program currency>: 5000 }`.',
});
const Applications = Type.Object(
  {
    open: Type.Boolean({ description: 'Whether BASE_URL/apply/{slug} takes applications' }),
    autoApprove: Type.Boolean({ description: 'Whether an application is approved at once (the applicant is mailed an invitation)' }),
  },
  { description: 'Default `{ open: false, autoApprove: false }`' },
);
const FraudRules = Type.Object(Object.fromEntries(FRAUD_RULES.map((r) => [r, Type.Boolean()])) as Record<FraudRule, ReturnType<typeof Type.Boolean>>, {
  description: 'Which fraud rules hold commissions for review; all true by default.',
});

/** The settings of PUT /api/program besides name, slug, landing URL and currency; absent in a PUT: kept (the first PUT: the default). */
const settingsProperties = {
  holdingDays: Type.Integer({ minimum: 0, maximum: 90, description: 'Days a commission waits before it is payable (default 30)' }),
  minPayout: MinPayout,
  attributionDays: Type.Integer({
    minimum: 1,
    maximum: 365,
    description: 'A lead or sale within this many days of its click wins the customer for the partner (default 90)',
  }),
  linkPrefixes: Type.Array(httpsUrl('An https URL prefix partner links must start with'), {
    maxItems: 50,
    description: "Where partners' links may point (default: the landing URL's origin followed by `/`)",
  }),
  maxPartnerLinks: Type.Integer({ minimum: 0, maximum: 1000, description: 'Links a partner may make in the portal (default 20)' }),
  linkHost: Nullable(Type.String({ maxLength: 253, description: 'A host the workspace holds active, for partner link aliases' })),
  applications: Applications,
  embedOrigins: Type.Array(Type.String({ pattern: '^https://[^/?#]+$', maxLength: 300 }), {
    maxItems: 50,
    description: 'Origins that may frame the embedded referral page (default none)',
  }),
  termsUrl: Nullable(httpsUrl("The program's terms, linked from the application page")),
  fraudRules: FraudRules,
  trustClientEvents: Type.Boolean({
    description: "Whether leads and sales reported from browsers earn commissions (default false: anyone can post those, so they'd be trusted blindly)",
  }),
};

const Settings = Type.Object(settingsProperties);
export type ProgramSettings = Static<typeof Settings>;

export const ProgramInput = Type.Composite([
  Type.Object({
    name: Type.String({ minLength: 1, maxLength: 190 }),
    slug: Type.String({ pattern: '^[a-z0-9-]{3,50}$', description: 'Unique on the server: 3–50 of a-z, 0-9 and `-` (409 `slug_taken`)' }),
    landingUrl: httpsUrl(
      "Where partners' default links point. A change moves every default link whose `url` is still the former landing URL (one edited since keeps its own)",
    ),
    currency: { ...currency, description: 'Lower-case ISO 4217 code: flat rewards and conditions on amounts are in this currency' },
  }),
  Type.Partial(Settings),
]);
export type ProgramInputBody = Static<typeof ProgramInput>;

export const Program = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    slug: Type.String(),
    landingUrl: Type.String(),
    currency: Type.String(),
    ...settingsProperties,
    collectionId: {
      ...Uuid,
      description:
        "The program's collection: partners' default links and the links partners make. Deleted by the owner, the next default link made goes in a new collection named after the program, which this then names.",
    },
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { $id: 'Program', description: "Extension. The workspace's partner program: who earns what for the leads and sales they bring, and how they are paid." },
);

/** Who may change money settings, as every money route of the program says it. */
export const MONEY_NOTE =
  'A money route: besides its scope, a person acting by session, human token or OAuth grant must be an owner of the workspace ' +
  '(403 `owner_required` for members and viewers); an API key acts by its scopes.';

export const PartnerGroup = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    rewards: Type.Array(Reward, {
      description:
        'In order: an event earns by the first reward of its type whose conditions all hold (none: no commission). A sale earns by the rewards in force when it is stored.',
    }),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { $id: 'PartnerGroup', description: 'Extension. Partners of a group earn by its rewards; `default` always exists and holds partners of no other group.' },
);

const groupName = Type.String({ minLength: 1, maxLength: 100, description: 'Unique in the program, ignoring case (409 `group_name_taken`)' });
const rewards = Type.Array(Reward, { maxItems: 50 });

export const PartnerGroupCreate = Type.Object({ name: groupName, rewards: Type.Optional(rewards) });
/** An id changes that group (the rewards given replace its rewards); none creates one. */
export const PartnerGroupUpsert = Type.Object({ id: Type.Optional(Uuid), name: Type.Optional(groupName), rewards: Type.Optional(rewards) });
