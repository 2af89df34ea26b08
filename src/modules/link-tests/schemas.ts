import { Type } from '@sinclair/typebox';
import { DateTime, Nullable, StringEnum, Uuid } from '../../http/schemas.js';

export const LinkTestParams = Type.Object({ id: Uuid });

export const LinkTestComplete = Type.Object({
  variant: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 3,
      description: "The variant to apply (its url becomes the link's); omitted: the winner, if there is one (else the link keeps its url)",
    }),
  ),
});

const VariantResult = Type.Object({
  url: Type.String(),
  weight: Type.Integer({ description: 'Share of the visitors, in percent' }),
  clicks: Type.Integer({ description: "The variant's test clicks (people only; devices, countries, bots, HEAD requests and prefetches never join a test)" }),
  conversions: Type.Integer({
    description: 'How many of those clicks have at least one lead (metric leads) or at least one sale (sales, revenue): each click counted once',
  }),
  conversionRate: Type.Number({ description: 'conversions / clicks; 0 without clicks' }),
  revenue: Type.Record(Type.String(), Type.Integer(), { description: "Net sale amounts of the variant's clicks, per lower-case currency, in minor units" }),
  probabilityBest: Nullable(
    Type.Number({
      description:
        "The probability that this variant's conversion rate is the highest, each rate taken as Beta(1 + conversions, 1 + clicks − conversions), integrated numerically to within 0.0005 and rounded to 3 decimals; null for the revenue metric",
    }),
  ),
});

export const LinkTestResult = Type.Object(
  {
    testId: Uuid,
    status: StringEnum(['running', 'completed'] as const),
    endsAt: DateTime,
    metric: StringEnum(['leads', 'sales', 'revenue'] as const),
    currency: Nullable(Type.String({ description: 'The currency of a revenue test' })),
    autoApply: Type.Boolean(),
    startedAt: DateTime,
    completedAt: Nullable(DateTime),
    variants: Type.Array(VariantResult, {
      description: "In the order of the test (the index is the click's `variant`); a completed test's as they stood when it completed",
    }),
    winner: Nullable(
      Type.Integer({
        description:
          'Completed: the index of the variant applied or that won (the highest conversion rate, or net revenue in the currency per test click; ties to the lowest index); null while running, and when nothing converted or the test was ended by a change of the link',
      }),
    ),
    days: Type.Array(
      Type.Object({
        day: Type.String({ description: 'A UTC day, YYYY-MM-DD' }),
        clicks: Type.Array(Type.Integer(), { description: "Each variant's clicks that day" }),
        conversions: Type.Array(Type.Integer(), { description: "Each variant's clicks converted that day (by the day of the click's first lead or sale)" }),
      }),
      { description: 'Extension: the days with clicks or conversions, oldest first' },
    ),
  },
  { $id: 'LinkTestResult' },
);
