import { plugin, type ModuleRegistration } from '../../wiring.js';
import { apiKeyCredential } from './credential.js';
import { keyRoutes } from './routes.js';

export const keysModule: ModuleRegistration = {
  name: 'keys',
  setUp: ({ database, clock, authChanged, flushLastUsed, caches }) => ({
    plugins: [plugin(keyRoutes, { db: database.db, clock, authChanged, flushLastUsed })],
    credentials: [apiKeyCredential(database.db, caches.keys)],
  }),
};
