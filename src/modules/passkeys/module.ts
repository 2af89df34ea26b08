import { plugin, type ModuleRegistration } from '../../wiring.js';
import { passkeyRoutes } from './routes.js';

export const passkeysModule: ModuleRegistration = {
  name: 'passkeys',
  setUp: ({ database, config, throttle, clock, authChanged }) => ({
    plugins: [plugin(passkeyRoutes, { db: database.db, clock, baseUrl: config.baseUrl, sessionMaxMs: config.sessionMaxMs, throttle, authChanged })],
  }),
};
