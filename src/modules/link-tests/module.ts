import { plugin, type ModuleRegistration } from '../../wiring.js';
import { linkTestRoutes } from './routes.js';
import { testCompletionJob } from './service.js';

/**
 * A/B tests of links' destinations (operations.md §20): their figures and early end, and the job
 * completing them at their end. The test itself is a field of the link (links/), the split the
 * redirect's (redirect/split.ts).
 */
export const linkTestsModule: ModuleRegistration = {
  name: 'link-tests',
  setUp: (w) => ({
    plugins: [plugin(linkTestRoutes, { ...w.resource, links: w.links })],
    jobs: [testCompletionJob({ db: w.database.db, links: w.links, log: w.logger })],
  }),
};
