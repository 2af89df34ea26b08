import type { Infrastructure, ModuleRegistration } from '../../wiring.js';
import { plugin } from '../../wiring.js';
import type { Mailer } from '../mail/service.js';
import type { PartnersDecided } from '../partners/service.js';
import { partnerApplicationRoutes } from './routes.js';
import { onApplicationsDecided, sendDueDigests } from './service.js';

/** Built once in the wiring (shared.ts): what partner writes do when a pending applicant is approved or rejected. */
export function partnerApplicationsFor(infra: Infrastructure, mail: { mailer: Mailer } | undefined): { onDecided: PartnersDecided } {
  return { onDecided: onApplicationsDecided({ baseUrl: infra.config.baseUrl, mailer: mail?.mailer }) };
}

/**
 * Applications to a partner program (operations.md §18 "Applications"): the public page and its
 * API, the owners' list, and, with mail, the job (every 15 minutes) that sends the owners' digests
 * that fell due.
 */
export const partnerApplicationsModule: ModuleRegistration = {
  name: 'partner-applications',
  setUp: (w) => {
    const deps = { baseUrl: w.config.baseUrl, mailer: w.mail?.mailer };
    return {
      plugins: [
        plugin(partnerApplicationRoutes, {
          ...w.resource,
          ...deps,
          throttle: w.throttle,
          partners: { onApproved: w.partnerLinks.onApproved },
        }),
      ],
      // Without mail there is no digest to send nor repeat mail to forget.
      jobs: w.mail
        ? [
            {
              name: 'partner-applications.digests',
              periodMs: 15 * 60_000,
              run: (now) => sendDueDigests({ ctx: { db: w.database.db, now }, deps }),
            },
          ]
        : [],
    };
  },
};
