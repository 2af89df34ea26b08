import { plugin, type ModuleRegistration } from '../../wiring.js';
import { sessionCredential } from './credential.js';
import { sessionRoutes } from './routes.js';
import { forgetSignInVisitors } from './service.js';

export { signedInPerson } from './credential.js';

export const sessionsModule: ModuleRegistration = {
  name: 'sessions',
  setUp: ({ database, clock, authChanged, flushLastUsed, sessions, logger }) => ({
    plugins: [plugin(sessionRoutes, { db: database.db, clock, authChanged, flushLastUsed })],
    credentials: [sessionCredential(sessions)],
    jobs: [
      {
        // The visitor hashes sign-ins were made from (fraud rule sameVisitor), kept for today and yesterday.
        name: 'sessions.sign-in-visitors',
        run: async (now) => {
          const deleted = await forgetSignInVisitors({ ctx: { db: database.db, now } });
          if (deleted > 0) logger.info({ deleted }, 'deleted the sign-in visitor hashes of days before yesterday');
        },
      },
    ],
  }),
};
