import { baseContext } from '../../core/context.js';
import { plugin, type ModuleRegistration } from '../../wiring.js';
import { consentRedirectOrigin } from '../oauth/service.js';
import { dashboardRoutes } from './routes.js';

export const dashboardModule: ModuleRegistration = {
  name: 'dashboard',
  setUp: ({ database, config, clock }) => {
    const ctxNow = baseContext({ db: database.db, clock });
    return {
      plugins: [
        plugin(dashboardRoutes, {
          baseUrl: config.baseUrl,
          shortLinkBaseUrl: config.shortLinkBaseUrl,
          consentFormTarget: (clientId, redirectUri) => consentRedirectOrigin({ ctx: ctxNow(undefined), input: { clientId, redirectUri } }),
        }),
      ],
    };
  },
};
