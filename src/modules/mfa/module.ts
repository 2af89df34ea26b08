import { plugin, type ModuleRegistration } from '../../wiring.js';
import { mfaRoutes } from './routes.js';
import { forgetOldFailures } from './service.js';

export const mfaModule: ModuleRegistration = {
  name: 'mfa',
  setUp: ({ database, config, sealer, throttle, clock, authChanged }) => ({
    plugins: [plugin(mfaRoutes, { db: database.db, clock, baseUrl: config.baseUrl, sessionMaxMs: config.sessionMaxMs, sealer, throttle, authChanged })],
    jobs: [{ name: 'mfa.failures', run: (now) => forgetOldFailures({ ctx: { db: database.db, now } }) }],
  }),
};
