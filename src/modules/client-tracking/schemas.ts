import { Type } from '@sinclair/typebox';
import { Nullable, Uuid } from '../../http/schemas.js';
import { LeadInput, SaleInput } from '../conversions/schemas.js';

export const ClickInput = Type.Object(
  {
    via: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: "A partner's referral key (the page's `?via=`): the click goes on their default link" }),
    ),
    shortId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Or a short id of a link of the workspace' })),
    url: Type.Optional(Type.String({ maxLength: 4096, description: "The page's URL: its utm_* parameters are the click's UTM values" })),
    referrer: Type.Optional(Type.String({ maxLength: 4096, description: "The page's referrer (document.referrer)" })),
  },
  { description: 'One of via and shortId (via first when both are given).' },
);

export const ClickAnswer = Type.Object(
  {
    clickId: Uuid,
    partner: Type.Optional(Type.Object({ id: Uuid, name: Type.String(), image: Nullable(Type.String()) }, { description: 'The partner of a via click' })),
    coupon: Type.Optional(Type.Object({ code: Type.String() }, { description: "The partner's first coupon code, if they hold one" })),
  },
  { $id: 'TrackedClick' },
);

const NO_STRIPE = 'stripeCustomerId' as const;

export const ClientLeadInput = Type.Omit(LeadInput, [NO_STRIPE], {
  description:
    'A lead a browser reports: clickId must be a click of this workspace of at most attributionDays (90 without a program); "" (deferred) is a 400. An existing customer is left as it is and the lead earns no commission. Every accepted call records a new event.',
});

export const ClientSaleInput = Type.Omit(SaleInput, [NO_STRIPE, 'couponCode'], {
  description:
    'A sale a browser reports, when the workspace allows it (clientSales): by clickId only (a click of this workspace of at most attributionDays); leadEventName is a 400. An existing customer is left as it is and the sale earns no commission.',
});
