import { Type } from '@sinclair/typebox';
import { routesPlugin } from '../../http/types.js';
import { serviceContext, type ResourceDeps } from '../../core/context.js';
import { LeadEvent, LeadInput, RefundInput, SaleEvent, SaleInput } from './schemas.js';
import { trackLead, trackRefund, trackSale, type ConversionDeps } from './service.js';

export const conversionRoutes = routesPlugin<ResourceDeps & { conversions: ConversionDeps }>('conversions', (app, { conversions, ...deps }) => {
  app.addSchema(LeadEvent);
  app.addSchema(SaleEvent);
  const tags = ['Conversions'];

  app.post(
    '/api/track/lead',
    {
      config: { scope: 'conversionsWrite' },
      schema: { operationId: 'trackLead', tags, summary: 'Track a lead', body: LeadInput, response: { 200: Type.Ref(LeadEvent) } },
    },
    async (req) => trackLead({ ctx: serviceContext(deps, req), deps: conversions, input: req.body }),
  );

  app.post(
    '/api/track/sale',
    {
      config: { scope: 'conversionsWrite' },
      schema: { operationId: 'trackSale', tags, summary: 'Track a sale', body: SaleInput, response: { 200: Type.Ref(SaleEvent) } },
    },
    async (req) => trackSale({ ctx: serviceContext(deps, req), deps: conversions, input: req.body }),
  );

  app.post(
    '/api/track/refund',
    {
      config: { scope: 'conversionsWrite' },
      schema: {
        operationId: 'trackRefund',
        tags,
        summary: 'Record a refund of a sale',
        description:
          "Extension, for sales not from Stripe (Stripe's refunds arrive by its events). The refunded total so far: analytics count the sale net of it, " +
          "and the sale's partner commission follows (recomputed from what it first earned; a whole refund reverses it; after payout a negative commission takes the difference back).",
        body: RefundInput,
        response: { 200: Type.Ref(SaleEvent) },
      },
    },
    async (req) => trackRefund({ ctx: serviceContext(deps, req), input: req.body }),
  );
});
