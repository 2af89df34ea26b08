import { plugin, type ModuleRegistration } from '../../wiring.js';
import { onPartnersBannedOrRejected } from '../partners/service.js';
import { clickRewardJob } from './click-rewards.js';
import { commissionRoutes } from './routes.js';
import { reverseUnpaidCommissions } from './service.js';

/** Commissions (operations.md §18): earned with the leads and sales that make them, for partners' visitors each day (an hourly job), listed, released, reversed, added by hand. */
export const commissionsModule: ModuleRegistration = {
  name: 'commissions',
  setUp: (w) => {
    // Banning or rejecting a partner reverses their unpaid commissions, in the same transaction.
    onPartnersBannedOrRejected(reverseUnpaidCommissions);
    return {
      plugins: [plugin(commissionRoutes, { ...w.resource, roleOf: w.roleOf })],
      jobs: [clickRewardJob({ database: w.database, clicks: w.clicks, log: w.logger })],
    };
  },
};
