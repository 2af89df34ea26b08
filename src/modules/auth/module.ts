import { plugin, type ModuleRegistration } from '../../wiring.js';
import { authRoutes } from './routes.js';

export const authModule: ModuleRegistration = {
  name: 'auth',
  setUp: ({ database, config, throttle, clock, authChanged }) => ({
    plugins: [
      plugin(authRoutes, {
        db: database.db,
        baseUrl: config.baseUrl,
        sessionMaxMs: config.sessionMaxMs,
        allowSignup: config.allowSignup,
        throttle,
        clock,
        authChanged,
      }),
    ],
  }),
};
