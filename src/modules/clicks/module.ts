import type { ModuleRegistration } from '../../wiring.js';
import { clickMaintenanceJobs } from './maintenance.js';

/** The click writer (built with the shared dependencies, since the redirect and conversions use it): closed beside the webhook deliveries; its periodic maintenance. */
export const clicksModule: ModuleRegistration = {
  name: 'clicks',
  setUp: ({ clicks, database, config, logger }) => ({
    workers: [{ closeStage: 4, close: () => clicks.close() }],
    jobs: clickMaintenanceJobs({ database, retentionMonths: config.clickRetentionMonths, log: logger }),
  }),
};
