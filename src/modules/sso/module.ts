import { plugin, type ModuleRegistration } from '../../wiring.js';
import { ssoFetch } from './outbound.js';
import { ssoAdminRoutes, ssoRoutes } from './routes.js';
import { systemResolveTxt } from './txt.js';

export const ssoModule: ModuleRegistration = {
  name: 'sso',
  setUp: ({ database, config, sealer, clock, roleOf }) => {
    const sso = {
      sealer,
      baseUrl: config.baseUrl,
      fetch: ssoFetch({ allowedCidrs: config.ssoAllowedCidrs, allowPrivate: config.allowPrivateDestinations }),
      resolveTxt: systemResolveTxt(config.dnsServers),
    };
    return {
      plugins: [plugin(ssoRoutes, { db: database.db, clock, sessionMaxMs: config.sessionMaxMs, roleOf, sso })],
      admin: (operator) => [plugin(ssoAdminRoutes, { ...operator, db: database.db, clock, sso })],
    };
  },
};
