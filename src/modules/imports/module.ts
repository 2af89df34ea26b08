import { plugin, type ModuleRegistration } from '../../wiring.js';
import { importAdminRoutes, importRoutes } from './routes.js';
import { FileReads, ImportWorker } from './service.js';

/** Imports (operations.md §13) run on every instance; one started by a request is taken at once. */
export const importsModule: ModuleRegistration = {
  name: 'imports',
  setUp: (w) => {
    const importer = new ImportWorker({
      db: w.database.db,
      clock: w.clock,
      logger: w.logger,
      links: w.links,
      domains: w.domains,
      partners: { onApproved: w.partnerLinks.onApproved },
      leaseMs: w.config.importLeaseMs,
    });
    const wakeWorker = () => importer.wake();
    // The files this app reads on requests, by workspace: the API's and the operator's imports share them.
    const reads = new FileReads();
    return {
      plugins: [plugin(importRoutes, { ...w.resource, wakeWorker, reads })],
      admin: (operator) => [plugin(importAdminRoutes, { ...operator, db: w.database.db, clock: w.clock, wakeWorker, reads })],
      workers: [{ closeStage: 1, start: () => importer.start(), close: () => importer.close() }],
    };
  },
};
