import { plugin, type ModuleRegistration } from '../../wiring.js';
import { adminRoutes } from './routes.js';

/** The operator API (operations.md §2), under /admin when ADMIN_TOKEN is set. */
export const adminModule: ModuleRegistration = {
  name: 'admin',
  setUp: ({ database, clock, authChanged, flushLastUsed, metrics, sealer, links }) => ({
    admin: (operator) => [
      plugin(adminRoutes, {
        ...operator,
        db: database.db,
        clock,
        authChanged,
        flushLastUsed,
        metrics,
        reseal: { sealer, changed: (table, ids) => (table === 'links' ? links.onChanged?.(ids) : undefined) },
      }),
    ],
  }),
};
