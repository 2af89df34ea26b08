import { plugin, type ModuleRegistration } from '../../wiring.js';
import { payoutRoutes } from './routes.js';

/** Payouts (operations.md §18): batches of what is payable, their provider files, completion. */
export const payoutsModule: ModuleRegistration = {
  name: 'payouts',
  setUp: (w) => ({ plugins: [plugin(payoutRoutes, { ...w.resource, roleOf: w.roleOf, sealer: w.sealer })] }),
};
