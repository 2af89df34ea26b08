import { plugin, type ModuleRegistration } from '../../wiring.js';
import { onStripeCustomerNamed } from '../conversions/service.js';
import { stripeRoutes } from './routes.js';
import { rememberStripeCustomer } from './service.js';

export const stripeModule: ModuleRegistration = {
  name: 'stripe',
  setUp: (w) => {
    // A lead or sale tracked with stripeCustomerId: a later invoice.paid of that Stripe customer finds them.
    onStripeCustomerNamed((ctx, input) => rememberStripeCustomer({ ctx, input }));
    return {
      plugins: [
        plugin(stripeRoutes, {
          ...w.resource,
          baseUrl: w.config.baseUrl,
          sealer: w.sealer,
          clickIdParam: w.config.clickIdParam,
          conversions: w.conversions,
          roleOf: w.roleOf,
        }),
      ],
    };
  },
};
