import { Type } from '@sinclair/typebox';
import { DateTime, listQueryProperties, Nullable, StringEnum, Uuid } from '../../http/schemas.js';
import { AnalyticsQuery } from '../analytics/schemas.js';

export const EventListQuery = Type.Object({
  ...listQueryProperties,
  id: Type.Optional({ ...Uuid, description: 'Only this event (a lead or sale id)' }),
  type: Type.Optional(StringEnum(['lead', 'sale'] as const, { description: 'Only leads or only sales; both when omitted' })),
  linkId: Type.Optional({ ...Uuid, description: 'Only events attributed to this link' }),
  customerId: Type.Optional({ ...Uuid, description: "Only this customer's events (our id; with customerExternalId: both must match)" }),
  customerExternalId: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, description: "Only events of customers with this externalId (a deleted customer's events included)" }),
  ),
  // The very same bounds as GET /api/analytics.
  startDate: AnalyticsQuery.properties.startDate,
  endDate: AnalyticsQuery.properties.endDate,
  // The same formats as GET /api/analytics (metadata is written as its JSON text in csv).
  format: AnalyticsQuery.properties.format,
});

export const Event = Type.Object(
  {
    type: StringEnum(['lead', 'sale'] as const),
    id: Uuid,
    eventName: Type.String(),
    linkId: Uuid,
    clickId: Uuid,
    customerId: Uuid,
    customerExternalId: Type.String(),
    leadId: Nullable({ ...Uuid, description: 'Sales: the lead the sale was attributed to, if any; leads: null' }),
    amount: Nullable(Type.Integer({ description: 'Sales: minor units; leads: null' })),
    currency: Nullable(Type.String({ description: 'Sales: lowercase ISO 4217; leads: null' })),
    refundedAmount: Nullable(
      Type.Integer({
        description: 'Extension: sales: the part of amount refunded (Stripe refunds), 0 when none; analytics count amount − refundedAmount; leads: null',
      }),
    ),
    metadata: Nullable(Type.Object({}, { additionalProperties: true })),
    createdAt: DateTime,
    source: StringEnum(['server', 'client', 'stripe', 'import'] as const, {
      description:
        'Extension. Where it was reported from: server (the API with a key or token), client (a browser, with the publishable key), stripe (a payment), import (brought by an import)',
    }),
    shortUrl: Nullable(Type.String({ description: "The link's short URL (as the link record shows it; kept for a deleted link)" })),
    linkTitle: Nullable(Type.String({ description: "The link's title" })),
    customerName: Nullable(Type.String({ description: "The customer's name" })),
    customerEmail: Nullable(Type.String({ description: "The customer's email" })),
  },
  {
    $id: 'Event',
    description:
      'A lead or sale as recorded by POST /api/track/lead or /api/track/sale. Extension: this record is the same for both kinds, with the sale-only fields null on leads. It names its link (shortUrl, linkTitle) and customer (customerName, customerEmail) beside their ids, so a list shows them without a call per row.',
  },
);
