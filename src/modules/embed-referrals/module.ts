import { plugin, type ModuleRegistration } from '../../wiring.js';
import { embedReferralRoutes } from './routes.js';

/** Embedded referrals (operations.md §18): a partner's referral page inside the workspace's own product, opened by a short-lived token. */
export const embedReferralsModule: ModuleRegistration = {
  name: 'embed-referrals',
  setUp: (w) => ({
    plugins: [
      plugin(embedReferralRoutes, {
        ...w.resource,
        roleOf: w.roleOf,
        partners: { onApproved: w.partnerLinks.onApproved },
        links: w.links,
        limiter: w.limiter,
        baseUrl: w.config.baseUrl,
        mailer: w.mail?.mailer,
      }),
    ],
  }),
};
