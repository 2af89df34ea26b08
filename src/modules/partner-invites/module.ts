import { plugin, type ModuleRegistration } from '../../wiring.js';
import { partnerInviteRoutes } from './routes.js';

/** Partner invitations (operations.md §18): the owner invites, the partner accepts and is approved. */
export const partnerInvitesModule: ModuleRegistration = {
  name: 'partner-invites',
  setUp: (w) => ({
    plugins: [
      plugin(partnerInviteRoutes, {
        ...w.resource,
        roleOf: w.roleOf,
        partners: { onApproved: w.partnerLinks.onApproved },
        baseUrl: w.config.baseUrl,
        sessionMaxMs: w.config.sessionMaxMs,
        authChanged: w.authChanged,
        mailer: w.mail?.mailer,
      }),
    ],
  }),
};
