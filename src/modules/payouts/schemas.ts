import { Type } from '@sinclair/typebox';
import { DateTime, listQueryProperties, Nullable, StringEnum, Uuid } from '../../http/schemas.js';

const sum = (description: string) =>
  Type.Integer({ description: `${description}, in the currency's minor unit: an exact JSON integer, which may pass 2^53 (read it with a big-integer parser)` });

export const PayoutItem = Type.Object({
  partnerId: Uuid,
  amount: sum('What the partner is paid'),
  commissions: Type.Array(Uuid, { description: 'The commissions it pays' }),
  method: Nullable(StringEnum(['paypal', 'wise', 'bank'] as const)),
  destination: Nullable(Type.String({ description: 'Masked (j•••@example.com)' })),
  detailsChangedAt: Nullable(DateTime),
});

export const Payout = Type.Object(
  {
    id: Uuid,
    status: StringEnum(['pending', 'completed', 'cancelled'] as const),
    currency: Type.String(),
    method: Nullable(Type.String({ description: 'The method it was limited to; null: every method' })),
    total: sum('The sum of its items'),
    items: Type.Array(PayoutItem, { description: "Frozen when the payout is made: a later refund or reversal is kept as the commission's adjustment" }),
    skipped: Type.Array(
      Type.Object({
        partnerId: Uuid,
        reason: StringEnum(['no_payout_details', 'details_changed_recently', 'not_approved', 'below_minimum', 'method'] as const),
      }),
      { description: 'Partners with payable commissions in the currency left out, and why' },
    ),
    reference: Nullable(Type.String()),
    failedPartnerIds: Type.Array(Uuid),
    createdAt: DateTime,
    completedAt: Nullable(DateTime),
  },
  { $id: 'Payout', description: 'Extension. A batch of what is payable in one currency: a record of what was paid, and the file for the payment provider.' },
);

export const PayoutSummary = Type.Omit(Payout, ['items'], { $id: 'PayoutSummary' });

export const PayoutCreate = Type.Object({
  currency: Type.String({ pattern: '^[a-z]{3}$', description: 'Lower-case ISO 4217 code: one currency per payout' }),
  method: Type.Optional(StringEnum(['paypal', 'wise', 'bank'] as const, { description: 'Only partners paid by this method' })),
  partnerIds: Type.Optional(
    Type.Array(Uuid, {
      minItems: 1,
      maxItems: 10_000,
      description: 'Only these partners; naming a partner also lets in payout details changed in the last 7 days (left out otherwise)',
    }),
  ),
});

export const PayoutComplete = Type.Object({
  reference: Type.Optional(Type.String({ minLength: 1, maxLength: 190, description: "The provider's batch reference" })),
  failed: Type.Optional(Type.Array(Uuid, { maxItems: 10_000, description: 'Partners the provider could not pay: their commissions go back to payable' })),
});

export const PayoutParams = Type.Object({ id: Uuid });
export const PayoutFileQuery = Type.Object({
  format: StringEnum(['paypal', 'wise', 'csv'] as const, {
    description: "paypal: PayPal Payouts' web upload (no header; ≤ 5,000 rows a file); wise: Wise's batch by e-mail template (≤ 1,000 rows); csv: every item",
  }),
  part: Type.Optional(
    Type.Integer({ minimum: 1, default: 1, description: "Which file, when the items pass the provider's rows per file (Linktrail-Parts tells how many)" }),
  ),
});
export const PayoutListQuery = Type.Object({
  ...listQueryProperties,
  status: Type.Optional(StringEnum(['pending', 'completed', 'cancelled'] as const)),
  currency: Type.Optional(Type.String({ pattern: '^[a-z]{3}$' })),
});
