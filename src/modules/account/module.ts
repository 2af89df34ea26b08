import { plugin, type ModuleRegistration } from '../../wiring.js';
import { userRoutes } from './routes.js';
import { workspaceRoutes } from './workspace-routes.js';

/** A person's account: /api/me and the members (registered where the users' routes were). */
export const accountModule: ModuleRegistration = {
  name: 'account',
  setUp: ({ database, clock, authChanged, throttle }) => ({ plugins: [plugin(userRoutes, { db: database.db, clock, authChanged, throttle })] }),
};

/** A person's /api/workspaces, registered after the sessions' and tokens' routes where they always were, so the OpenAPI document keeps its order. */
export const accountWorkspacesModule: ModuleRegistration = {
  name: 'account-workspaces',
  setUp: ({ database, clock, authChanged, config }) => ({
    plugins: [plugin(workspaceRoutes, { db: database.db, clock, authChanged, allowSignup: config.allowSignup })],
  }),
};
