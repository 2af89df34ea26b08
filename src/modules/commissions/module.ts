import { plugin, type ModuleRegistration } from '../../wiring.js';
import { onPartnersBannedOrRejected, providePartnerEarnings } from '../partners/service.js';
import { clickRewardJob } from './click-rewards.js';
import { commissionRoutes } from './routes.js';
import { partnerEarnings, reverseUnpaidCommissions } from './service.js';

/** Commissions (operations.md §18): earned with the leads and sales that make them, for partners' visitors each day (an hourly job), listed, released, reversed, added by hand. */
export const commissionsModule: ModuleRegistration = {
  name: 'commissions',
  setUp: (w) => {
    // Banning or rejecting a partner reverses their unpaid commissions, in the same transaction.
    onPartnersBannedOrRejected(reverseUnpaidCommissions);
    // GET /api/partners?withStats shows each partner's earnings, read from the commissions.
    providePartnerEarnings(partnerEarnings);
    return {
      plugins: [plugin(commissionRoutes, { ...w.resource, roleOf: w.roleOf })],
      jobs: [clickRewardJob({ database: w.database, clicks: w.clicks, log: w.logger })],
    };
  },
};
