import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from '../../http/schemas.js';

export const REWARD_EVENTS = ['click', 'lead', 'sale'] as const;
export const REWARD_TYPES = ['flat', 'percentage'] as const;
export const CONDITION_OPS = ['eq', 'neq', 'in', 'gt', 'gte', 'lt', 'lte'] as const;

/** The most rewards a group holds, and conditions a reward holds. */
export const MAX_REWARDS = 50;
export const MAX_CONDITIONS = 20;
/** The most values an `in` condition lists, and characters in one of its strings. */
export const MAX_IN_VALUES = 100;
export const MAX_CONDITION_STRING = 255;

export const RewardCondition = Type.Object(
  {
    field: Type.String({
      minLength: 1,
      maxLength: 109,
      description:
        'What the condition reads: `eventName` (the lead or sale event name), `amount` (the sale amount, minor unit), `currency` (the sale currency), `country` (of the click, ISO 3166-1 alpha-2) or `metadata.<key>` (the top-level key of the event metadata, 1–100 characters).',
    }),
    op: StringEnum(CONDITION_OPS, {
      description:
        '`eq`, `neq` and `in` compare as strings (the number 42 equals "42"); `gt`, `gte`, `lt` and `lte` compare numbers, and a field that is not a number does not satisfy them. A field the event lacks satisfies only `neq`.',
    }),
    value: Type.Unsafe<string | number | string[]>({
      type: ['string', 'number', 'array'],
      maxLength: MAX_CONDITION_STRING,
      items: { type: 'string', maxLength: MAX_CONDITION_STRING },
      maxItems: MAX_IN_VALUES,
      description:
        'A string or number for `eq` and `neq`; a non-empty list of strings (at most 100) for `in`; a number for `gt`, `gte`, `lt`, `lte`. A `currency` value is a lowercase ISO 4217 code, a `country` value two uppercase letters.',
    }),
  },
  { description: 'A test on the event; a reward applies only when all its conditions hold.' },
);

export const Reward = Type.Object(
  {
    event: StringEnum(REWARD_EVENTS, {
      description:
        "What earns: a counted visitor a day (`click`), a lead, or a sale. Click rewards are written once a UTC day is over: from 01:00 UTC the next day, one commission per approved partner and day (`eventId` null) for the distinct human visitors of the partner's links (not bots, HEAD requests, prefetches or coupon clicks), by the group's rewards as they are then, for the last 7 days at most; leads and sales earn in the request that stores them.",
    }),
    type: StringEnum(REWARD_TYPES, {
      description: '`flat`: `amount` in the program currency per event; `percentage` (sales only): `amount` basis points of the sale, in its currency.',
    }),
    amount: Type.Integer({
      description:
        "`flat`: the minor unit of the program currency (0 to 1,000,000,000,000); `percentage`: basis points, 1 to 10,000 (1,000 is 10 %), of the sale's amount, rounded half to even.",
    }),
    maxDuration: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 1200,
        description:
          "Sales only: months (calendar, UTC) from the customer's first earning sale during which later sales earn; 12 pays the first sale and 11 monthly renewals, 0 the first sale only. Absent: every sale earns.",
      }),
    ),
    maxPerDay: Type.Optional(Type.Integer({ minimum: 1, description: 'Clicks only: the most visitors paid for per partner and UTC day. Absent: no cap.' })),
    conditions: Type.Optional(
      Type.Array(RewardCondition, {
        maxItems: MAX_CONDITIONS,
        description: 'At most 20, all of which must hold. An event earns by the first reward for its kind, in the order listed, whose conditions hold.',
      }),
    ),
  },
  { description: 'What a partner earns for a click, lead or sale.' },
);

export type RewardCondition = Static<typeof RewardCondition>;
export type Reward = Static<typeof Reward>;
