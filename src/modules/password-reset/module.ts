import { plugin, type ModuleRegistration } from '../../wiring.js';
import { passwordResetAdminRoutes, passwordResetRoutes } from './routes.js';
import { forgetOldResets } from './service.js';

export const passwordResetModule: ModuleRegistration = {
  name: 'password-reset',
  setUp: ({ database, config, clock, mail, authChanged }) => ({
    plugins: [plugin(passwordResetRoutes, { db: database.db, clock, baseUrl: config.baseUrl, mailer: mail?.mailer, authChanged })],
    admin: (operator) => [plugin(passwordResetAdminRoutes, { ...operator, db: database.db, clock, baseUrl: config.baseUrl, authChanged })],
    jobs: [{ name: 'password-reset.forget', run: (now) => forgetOldResets({ ctx: { db: database.db, now } }) }],
  }),
};
