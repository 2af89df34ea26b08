import { lacksRequiredSecondFactor, type RoleLookup, type SecondFactorCheck } from './http/auth.js';
import { AppError } from './core/errors.js';
import { CredentialCache } from './infra/credential-cache.js';
import { startClickPipeline } from './modules/clicks/service.js';
import { startClaimedHosts } from './modules/domains/module.js';
import { linkDeps } from './modules/links/module.js';
import { mailWorker } from './modules/mail/module.js';
import { partnerApplicationsFor } from './modules/partner-applications/module.js';
import { partnerLinksFor } from './modules/partner-links/module.js';
import { hasAnySecondFactor } from './modules/passkeys/service.js';
import { redirectCaches, redirectDeps } from './modules/redirect/module.js';
import { signedInPerson } from './modules/sessions/module.js';
import { membershipFor } from './modules/users/service.js';
import { clickEventDeps, webhookWake } from './modules/webhooks/module.js';
import type { Infrastructure, Wiring } from './wiring.js';

/**
 * The shared dependencies of the modules, built once from the infrastructure: what more than one
 * module uses (the credential caches, the claimed hosts, the redirect caches, the click writer,
 * the mail outbox, the webhook worker's wake-up). Each module's registration takes its options
 * from here.
 */
export async function wire(infra: Infrastructure): Promise<Wiring> {
  const { config, database, bus, logger, tableStats } = infra;
  const { db } = database;
  const caches: Wiring['caches'] = {
    keys: new CredentialCache(bus),
    sessions: new CredentialCache(bus),
    memberships: new CredentialCache(bus),
    tokens: new CredentialCache(bus),
    oauthTokens: new CredentialCache(bus),
    secondFactors: new CredentialCache(bus),
  };
  const webhooks = webhookWake();
  const { hosts, domains } = await startClaimedHosts(infra);
  const redirectCache = redirectCaches(infra, hosts);
  const clicks = startClickPipeline({
    database,
    config,
    logger,
    bus,
    lookupCountry: infra.lookupCountry,
    lookupPlace: infra.cities?.lookup,
    clickEvents: clickEventDeps(database, webhooks.wake),
    onBatchWritten: () => tableStats.wrote(),
  });
  // Asked only in workspaces that require it, and cached like the credentials themselves.
  const secondFactorOf: SecondFactorCheck = async (userId, now) =>
    (await caches.secondFactors.lookup(userId, () => hasAnySecondFactor({ ctx: { db, now }, input: { userId } }), now.getTime())) === true;
  // Settings routes of a workspace (`workspaceRole`) refuse a member without a required second factor too.
  const roleOf: RoleLookup = async (userId, workspaceId) => {
    const now = infra.clock();
    const m = await membershipFor({ ctx: { db, now }, input: { userId, workspaceId } });
    if (m && (await lacksRequiredSecondFactor(m.workspace, userId, secondFactorOf, now))) throw new AppError('mfa_required');
    return m?.role;
  };
  const sessions = {
    db,
    baseUrl: config.baseUrl,
    limits: { idleMs: config.sessionIdleMs, maxMs: config.sessionMaxMs },
    sessions: caches.sessions,
    memberships: caches.memberships,
    touch: (id: string, at: Date) => infra.lastUsed.sessions.touch(id, at),
    pendingSeen: (id: string) => infra.lastUsed.sessions.pendingAt(id),
    hasSecondFactor: secondFactorOf,
  };
  const { lastUsed } = infra;
  const mail = mailWorker(infra);
  const links = linkDeps(infra, { onChanged: (linkIds) => redirectCache.cache.changed(linkIds), onEventsWritten: webhooks.wake });
  return {
    ...infra,
    caches,
    // Every credential cache listens to the same bus: one call empties them all, on every instance.
    authChanged: () => caches.keys.changed(),
    roleOf,
    secondFactorOf,
    sessions,
    signedIn: signedInPerson(sessions),
    flushLastUsed: async () => {
      await Promise.all([lastUsed.keys.flush(), lastUsed.sessions.flush(), lastUsed.tokens.flush()]);
    },
    links,
    partnerLinks: partnerLinksFor(infra, links),
    partnerApplications: partnerApplicationsFor(infra, mail),
    domains,
    hosts,
    redirect: redirectDeps(infra, { ...redirectCache, hosts, clicks: clicks.recorder }),
    conversions: {
      shortLinkBaseUrl: config.shortLinkBaseUrl,
      onEventsWritten: webhooks.wake,
      isClickPending: clicks.isClickPending,
      flushClicks: clicks.flush,
      requestClickFlush: clicks.requestFlush,
    },
    clicks,
    mail,
    webhooks,
    metrics: (reset) => {
      const { eventLoopDelay, ...rest } = infra.processMetrics(reset);
      return { eventLoopDelay, clicks: clicks.metrics(), ...rest };
    },
  };
}
