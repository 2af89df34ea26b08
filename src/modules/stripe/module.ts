import { plugin, type ModuleRegistration } from '../../wiring.js';
import { stripeRoutes } from './routes.js';

export const stripeModule: ModuleRegistration = {
  name: 'stripe',
  setUp: (w) => ({
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
  }),
};
