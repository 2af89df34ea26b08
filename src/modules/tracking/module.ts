import { plugin, type ModuleRegistration } from '../../wiring.js';
import { trackingRoutes } from './routes.js';

/** Attribution from the browser, the owner's side: the publishable key and the hostnames allowed to use it. */
export const trackingModule: ModuleRegistration = {
  name: 'tracking',
  setUp: (w) => ({
    plugins: [plugin(trackingRoutes, { ...w.resource, roleOf: w.roleOf, tracking: { sealer: w.sealer, changed: w.authChanged } })],
  }),
};
