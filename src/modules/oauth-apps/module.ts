import { plugin, type ModuleRegistration } from '../../wiring.js';
import { oauthAppsRoutes } from './routes.js';

export const oauthAppsModule: ModuleRegistration = {
  name: 'oauth-apps',
  setUp: ({ database, clock, authChanged }) => ({ plugins: [plugin(oauthAppsRoutes, { db: database.db, clock, authChanged })] }),
};
