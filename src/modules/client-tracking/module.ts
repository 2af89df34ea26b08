import { anyWorkspaceAllows, siteByKey, type KeySite } from '../tracking/service.js';
import { plugin, type ModuleRegistration } from '../../wiring.js';
import { Memo } from './memo.js';
import { clientTrackingRoutes } from './routes.js';
import { fastTrackClick } from './fast-path.js';
import type { ViaPartner } from './service.js';

/** What the routes cache, a few seconds each: keys, preflight hostnames, partners by referral key, links by short id. */
const CACHE_MS = 10_000;

/** Attribution from the browser (operations.md §19): the publishable key's three routes. */
export const clientTrackingModule: ModuleRegistration = {
  name: 'client-tracking',
  setUp: (w) => {
    const sites = new Memo<KeySite | null>(CACHE_MS);
    const hostnames = new Memo<boolean>(CACHE_MS);
    const partners = new Memo<ViaPartner | null>(CACHE_MS);
    const links = new Memo<{ id: string; workspaceId: string; partnerId: string | null } | null>(CACHE_MS);
    // A key rotated or hostnames changed on any instance (the credential epoch); a link changed.
    w.bus.onAuthChanged(() => {
      sites.clear();
      hostnames.clear();
    });
    w.bus.subscribe(() => links.clear());
    const base = { db: w.database.db, clock: w.clock };
    const guard = {
      gate: w.clickGate,
      clock: w.clock,
      trustProxy: w.config.trustProxy,
      perMinute: w.config.clientTrackingPerMinute,
      sites,
      loadSite: (key: string) => siteByKey({ ctx: { db: base.db, now: base.clock() }, input: { key } }),
    };
    const click = {
      clicks: w.clicks.recorder,
      marks: w.visitorMarks,
      countryHeader: w.config.countryHeader,
      regionHeader: w.config.regionHeader,
      cityHeader: w.config.cityHeader,
      partners,
      links,
    };
    return {
      server: { fastPath: fastTrackClick({ db: base.db, guard, click, log: w.logger }) },
      plugins: [
        plugin(clientTrackingRoutes, {
          ...w.resource,
          trustProxy: w.config.trustProxy,
          conversions: w.conversions,
          guard,
          allows: (hostname) =>
            hostnames.get(hostname, w.clock().getTime(), () => anyWorkspaceAllows({ ctx: { db: base.db, now: base.clock() }, input: { hostname } })),
          click,
        }),
      ],
    };
  },
};
