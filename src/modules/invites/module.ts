import { plugin, type ModuleRegistration } from '../../wiring.js';
import { inviteRoutes } from './routes.js';

export const invitesModule: ModuleRegistration = {
  name: 'invites',
  setUp: ({ database, config, clock, authChanged, mail }) => ({
    plugins: [plugin(inviteRoutes, { db: database.db, baseUrl: config.baseUrl, sessionMaxMs: config.sessionMaxMs, clock, authChanged, mailer: mail?.mailer })],
  }),
};
