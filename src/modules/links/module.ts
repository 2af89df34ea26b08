import type { Infrastructure, ModuleRegistration } from '../../wiring.js';
import { plugin } from '../../wiring.js';
import { frameChecker } from './frame-check.js';
import { linkCountRoutes } from './count-routes.js';
import { linkPlacementRoutes } from './placement-routes.js';
import { linkRoutes } from './routes.js';
import type { LinkDeps } from './service.js';

/** What link writes are given: the redirect caches to empty, the webhook worker to wake, the table statistics to refresh. */
export function linkDeps(infra: Infrastructure, o: { onChanged: LinkDeps['onChanged']; onEventsWritten: () => void }): LinkDeps {
  const { config } = infra;
  return {
    shortLinkBaseUrl: config.shortLinkBaseUrl,
    baseUrl: config.baseUrl,
    sealer: infra.sealer,
    checkFrame: frameChecker(config.shortLinkBaseUrl, { allowPrivate: config.allowPrivateDestinations }),
    onChanged: o.onChanged,
    onEventsWritten: o.onEventsWritten,
    onBulkWritten: () => infra.tableStats.wrote(),
  };
}

export const linksModule: ModuleRegistration = {
  name: 'links',
  setUp: (w) => ({
    plugins: [
      plugin(linkRoutes, { ...w.resource, links: w.links }),
      plugin(linkPlacementRoutes, { ...w.resource, shortLinkBaseUrl: w.links.shortLinkBaseUrl }),
      plugin(linkCountRoutes, w.resource),
    ],
  }),
};
