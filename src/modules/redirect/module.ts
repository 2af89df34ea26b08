import type { ClickRecorder } from '../clicks/service.js';
import type { ActiveHosts } from '../domains/service.js';
import { findLinkByAlias, findLinkByKey, findLinkForRedirect } from '../links/service.js';
import { plugin, type Infrastructure, type ModuleRegistration } from '../../wiring.js';
import { AliasCache } from './alias-cache.js';
import { claimedHostRewrite } from './claimed-host-routes.js';
import { fastRedirect } from './fast-path.js';
import { KeyedLinkCache } from './keyed-link-cache.js';
import { LinkCache } from './link-cache.js';
import { notFoundPage } from './pages.js';
import { PasswordGate } from './password-gate.js';
import { redirectRoutes, type RedirectDeps } from './routes.js';
import { splitKey } from './split.js';

export type { RedirectDeps } from './routes.js';

/**
 * The redirect's caches: links by short id; by chosen key on the short-link host (its own
 * bounded maps, so a scan of unknown paths never evicts a short id); claimed hosts' aliases and
 * keys (emptied when the active hosts change). Every instance's emptied through the bus.
 */
export function redirectCaches({ database, bus }: Infrastructure, hosts: ActiveHosts): { cache: LinkCache; keys: KeyedLinkCache; aliases: AliasCache } {
  const cache = new LinkCache(async (shortId) => (await findLinkForRedirect(database.db, shortId)) ?? null, bus);
  const keys = new KeyedLinkCache(async (key) => (await findLinkByKey(database.db, key)) ?? null, bus, {
    ttlMs: 60_000,
    shortTtlMs: 1_000,
    maxHits: 50_000,
    maxMisses: 10_000,
  });
  const aliases = new AliasCache(async (host, path) => (await findLinkByAlias(database.db, host, path)) ?? null, bus);
  hosts.onChange(() => aliases.clear());
  return { cache, keys, aliases };
}

/** What answering a short link takes: the caches, the claimed hosts, the click recorder, the rate limiter, the country lookup. */
export function redirectDeps(infra: Infrastructure, o: ReturnType<typeof redirectCaches> & { hosts: ActiveHosts; clicks: ClickRecorder }): RedirectDeps {
  const { config, sealer, limiter, clock } = infra;
  return {
    shortLinkBaseUrl: config.shortLinkBaseUrl,
    log: infra.logger,
    trustProxy: config.trustProxy,
    clickIdParam: config.clickIdParam,
    countryHeader: config.countryHeader,
    regionHeader: config.regionHeader,
    cityHeader: config.cityHeader,
    cache: o.cache,
    keys: o.keys,
    hosts: o.hosts,
    aliases: o.aliases,
    clicks: o.clicks,
    gate: new PasswordGate(config.secret, sealer),
    splitKey: splitKey(config.secret),
    lookupCountry: infra.lookupCountry,
    limiter,
    clock,
  };
}

/** The short links: a fast path before Fastify, claimed hosts' paths, and the framework route for the rest. */
export const redirectModule: ModuleRegistration = {
  name: 'redirect',
  setUp: ({ redirect }) => ({
    plugins: [plugin(redirectRoutes, redirect)],
    server: { fastPath: fastRedirect(redirect), rewriteUrl: claimedHostRewrite(redirect), notFoundPage },
  }),
};
