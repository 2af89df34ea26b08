import { plugin, type ModuleRegistration } from '../../wiring.js';
import { commissionRoutes } from './routes.js';

/** Commissions (operations.md §18): earned with the leads and sales that make them, listed, released, reversed, added by hand. */
export const commissionsModule: ModuleRegistration = {
  name: 'commissions',
  setUp: (w) => ({ plugins: [plugin(commissionRoutes, { ...w.resource, roleOf: w.roleOf })] }),
};
