import { plugin, type ModuleRegistration } from '../../wiring.js';
import { partnerPortalRoutes } from './routes.js';

/** The partner portal's API (operations.md §18): a partner's own links, figures, commissions, payouts and payout details. */
export const partnerPortalModule: ModuleRegistration = {
  name: 'partner-portal',
  setUp: (w) => ({
    plugins: [
      plugin(partnerPortalRoutes, {
        ...w.resource,
        links: w.links,
        analytics: { shortLinkBaseUrl: w.config.shortLinkBaseUrl },
        sealer: w.sealer,
        throttle: w.throttle,
        mailer: w.mail?.mailer,
      }),
    ],
  }),
};
