import { plugin, type ModuleRegistration } from '../../wiring.js';
import { partnerRoutes } from './routes.js';

export const partnersModule: ModuleRegistration = {
  name: 'partners',
  setUp: (w) => ({
    plugins: [
      plugin(partnerRoutes, {
        ...w.resource,
        roleOf: w.roleOf,
        partners: { onApproved: w.partnerLinks.onApproved, onDecided: w.partnerApplications.onDecided },
      }),
    ],
  }),
};
