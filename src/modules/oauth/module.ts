import { plugin, type ModuleRegistration } from '../../wiring.js';
import { oauthConsentRoutes } from './consent-routes.js';
import { oauthAccessCredential } from './credential.js';
import { oauthRoutes } from './routes.js';

export const oauthModule: ModuleRegistration = {
  name: 'oauth',
  setUp: ({ database, config, clock, authChanged, signedIn, caches, secondFactorOf }) => ({
    plugins: [
      plugin(oauthRoutes, { db: database.db, baseUrl: config.baseUrl, clock, authChanged, signedIn }),
      plugin(oauthConsentRoutes, { db: database.db, clock }),
    ],
    credentials: [oauthAccessCredential(database.db, caches.oauthTokens, secondFactorOf)],
  }),
};
