import type { Infrastructure, ModuleRegistration } from '../../wiring.js';
import type { LinkDeps } from '../links/service.js';
import { partnerLinks, type PartnerLinks } from './service.js';

/** Built once in the wiring (shared.ts): the partner and program writes take its hooks, this module runs its job. */
export function partnerLinksFor(infra: Infrastructure, links: LinkDeps): PartnerLinks {
  return partnerLinks({ db: infra.database.db, clock: infra.clock, links, log: infra.logger });
}

/**
 * Partners' default links (operations.md §18): made in the partner write that first approves a
 * partner, and by a job (every minute across instances, and at once after the program's first
 * PUT) for the partners that PUT approved; they follow the program's landing URL.
 */
export const partnerLinksModule: ModuleRegistration = {
  name: 'partner-links',
  setUp: ({ partnerLinks }) => ({
    jobs: [partnerLinks.job],
    workers: [{ closeStage: 1, close: () => partnerLinks.idle() }],
  }),
};
