import { plugin, type ModuleRegistration } from '../../wiring.js';
import { humanTokenCredential } from './credential.js';
import { tokenRoutes } from './routes.js';

export const tokensModule: ModuleRegistration = {
  name: 'tokens',
  setUp: ({ database, clock, authChanged, flushLastUsed, caches, secondFactorOf }) => ({
    plugins: [plugin(tokenRoutes, { db: database.db, clock, authChanged, flushLastUsed })],
    credentials: [humanTokenCredential(database.db, caches.tokens, secondFactorOf)],
  }),
};
