import { plugin, type ModuleRegistration } from '../../wiring.js';
import { sessionCredential } from './credential.js';
import { sessionRoutes } from './routes.js';

export { signedInPerson } from './credential.js';

export const sessionsModule: ModuleRegistration = {
  name: 'sessions',
  setUp: ({ database, clock, authChanged, flushLastUsed, sessions }) => ({
    plugins: [plugin(sessionRoutes, { db: database.db, clock, authChanged, flushLastUsed })],
    credentials: [sessionCredential(sessions)],
  }),
};
