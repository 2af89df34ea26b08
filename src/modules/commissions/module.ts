import { plugin, type ModuleRegistration } from '../../wiring.js';
import { onPartnersBannedOrRejected } from '../partners/service.js';
import { commissionRoutes } from './routes.js';
import { reverseUnpaidCommissions } from './service.js';

/** Commissions (operations.md §18): earned with the leads and sales that make them, listed, released, reversed, added by hand. */
export const commissionsModule: ModuleRegistration = {
  name: 'commissions',
  setUp: (w) => {
    // Banning or rejecting a partner reverses their unpaid commissions, in the same transaction.
    onPartnersBannedOrRejected(reverseUnpaidCommissions);
    return { plugins: [plugin(commissionRoutes, { ...w.resource, roleOf: w.roleOf })] };
  },
};
