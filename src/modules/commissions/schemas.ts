import { Type } from '@sinclair/typebox';
import { BulkOf, DateTime, listQueryProperties, Nullable, StringEnum, Uuid } from '../../http/schemas.js';

export const COMMISSION_TYPES = ['click', 'lead', 'sale', 'custom'] as const;
export const COMMISSION_STATUSES = ['pending', 'payable', 'held', 'reversed', 'paid'] as const;
export const REVERSED_REASONS = ['refund', 'banned', 'rejected', 'fraud', 'manual'] as const;

const minor = (description: string) => Type.Integer({ description: `${description}, in the currency's minor unit` });

export const Commission = Type.Object(
  {
    id: Uuid,
    partnerId: Uuid,
    type: StringEnum(COMMISSION_TYPES),
    linkId: Nullable(Uuid),
    customerId: Nullable(Uuid),
    eventId: Nullable({ ...Uuid, description: 'The lead or sale that earned it; null for click and custom commissions' }),
    saleAmount: Nullable(minor("The sale's amount")),
    currency: Type.String(),
    earnings: minor("What the partner earns (negative for a clawback); follows the sale's refunds"),
    status: StringEnum(COMMISSION_STATUSES, {
      description:
        'pending until payableAt, then payable (derived, no event); held for review with holdReasons; reversed with reversedReason; paid when its payout completes (never changes after)',
    }),
    holdReasons: Type.Array(Type.String(), {
      description:
        'Why it is held: the fraud rules that fired (selfReferral, sameVisitor, disposableEmail, burst, duplicateCustomer), clientEvent for a lead or sale a browser reported (unless the program sets trustClientEvents), and dispute while a Stripe dispute of its sale is open',
    }),
    reversedReason: Nullable(StringEnum(REVERSED_REASONS)),
    adjustment: Nullable(minor('A change made while the commission is in a pending payout, settled when the payout completes or is cancelled')),
    payoutId: Nullable(Uuid),
    description: Nullable(Type.String()),
    createdAt: DateTime,
    payableAt: DateTime,
    updatedAt: DateTime,
  },
  { $id: 'Commission', description: "Extension. What a partner earned for a click day, a lead, a sale, or by the owner's hand." },
);

export const CommissionListQuery = Type.Object({
  ...listQueryProperties,
  partnerId: Type.Optional(Uuid),
  status: Type.Optional(StringEnum(COMMISSION_STATUSES)),
  type: Type.Optional(StringEnum(COMMISSION_TYPES)),
  customerId: Type.Optional(Uuid),
  currency: Type.Optional(Type.String({ pattern: '^[a-z]{3}$' })),
  payoutId: Type.Optional(Uuid),
  startDate: Type.Optional(Type.String({ format: 'date-time', description: 'Made at or after' })),
  endDate: Type.Optional(Type.String({ format: 'date-time', description: 'Made before' })),
});

export const CommissionCreate = BulkOf(
  Type.Object({
    partnerId: Uuid,
    earnings: Type.Integer({ minimum: -1e12, maximum: 1e12, description: "In the currency's minor unit; negative takes money back" }),
    currency: Type.String({ pattern: '^[a-z]{3}$' }),
    description: Type.String({ minLength: 1, maxLength: 500 }),
  }),
  'Custom commissions, payable at once',
);

export const CommissionChange = BulkOf(
  Type.Object({
    id: Uuid,
    status: StringEnum(['pending', 'reversed'] as const, { description: 'pending releases a held commission; reversed rejects or cancels one' }),
    reason: Type.Optional(StringEnum(['fraud', 'manual'] as const, { description: 'Of a reversal: fraud for a held one, manual (default) for others' })),
  }),
  'Status changes',
);
