import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { Conn, Database } from './db/connect.js';
import type { CredentialCache } from './infra/credential-cache.js';
import type { LoginThrottle } from './http/login-throttle.js';
import type { RateLimiter } from './http/rate-limit.js';
import { createServer } from './http/server.js';
import type { App } from './http/types.js';
import { adminRoutes } from './modules/admin/routes.js';
import { analyticsRoutes } from './modules/analytics/routes.js';
import { auditRoutes } from './modules/audit/routes.js';
import { authRoutes } from './modules/auth/routes.js';
import { mfaRoutes } from './modules/mfa/routes.js';
import { passkeyRoutes } from './modules/passkeys/routes.js';
import { passwordResetAdminRoutes, passwordResetRoutes } from './modules/password-reset/routes.js';
import { collectionRoutes } from './modules/collections/routes.js';
import { conversionRoutes } from './modules/conversions/routes.js';
import type { ConversionDeps } from './modules/conversions/service.js';
import { customerRoutes } from './modules/customers/routes.js';
import { dashboardRoutes } from './modules/dashboard/routes.js';
import { eventRoutes } from './modules/events/routes.js';
import { exportAdminRoutes, exportRoutes } from './modules/export/routes.js';
import { importAdminRoutes, importRoutes } from './modules/imports/routes.js';
import { FileReads } from './modules/imports/service.js';
import { apiKeyCredential } from './modules/keys/credential.js';
import { keyRoutes } from './modules/keys/routes.js';
import { inviteRoutes } from './modules/invites/routes.js';
import type { LastUsedTracker } from './infra/last-used.js';
import type { KeyCache } from './modules/keys/service.js';
import { linkRoutes } from './modules/links/routes.js';
import type { LinkDeps } from './modules/links/service.js';
import { partnerRoutes } from './modules/partners/routes.js';
import { qrRoutes } from './modules/qr/routes.js';
import { fastRedirect } from './modules/redirect/fast-path.js';
import { claimedHostRewrite } from './modules/redirect/claimed-host-routes.js';
import { domainAdminRoutes, domainRoutes } from './modules/domains/routes.js';
import type { DomainDeps } from './modules/domains/service.js';
import { notFoundPage } from './modules/redirect/pages.js';
import { redirectRoutes, type RedirectDeps } from './modules/redirect/routes.js';
import { oauthAppsRoutes } from './modules/oauth-apps/routes.js';
import { oauthAccessCredential } from './modules/oauth/credential.js';
import { oauthConsentRoutes } from './modules/oauth/consent-routes.js';
import { oauthRoutes } from './modules/oauth/routes.js';
import { consentRedirectOrigin, type AccessFound } from './modules/oauth/service.js';
import { sessionCredential, signedInPerson } from './modules/sessions/credential.js';
import { sessionRoutes } from './modules/sessions/routes.js';
import type { SessionFound } from './modules/sessions/service.js';
import { ssoFetch } from './modules/sso/outbound.js';
import { ssoAdminRoutes, ssoRoutes } from './modules/sso/routes.js';
import { systemResolveTxt } from './modules/sso/txt.js';
import { stripeRoutes } from './modules/stripe/routes.js';
import { tagRoutes } from './modules/tags/routes.js';
import { humanTokenCredential } from './modules/tokens/credential.js';
import { tokenRoutes } from './modules/tokens/routes.js';
import type { TokenFound } from './modules/tokens/service.js';
import { membershipFor } from './modules/users/service.js';
import { hasAnySecondFactor } from './modules/passkeys/service.js';
import { lacksRequiredSecondFactor, type RoleLookup, type SecondFactorCheck } from './http/auth.js';
import { AppError } from './core/errors.js';
import type { Role } from './modules/users/roles.js';
import { userRoutes } from './modules/users/routes.js';
import { utmTemplateRoutes } from './modules/utm-templates/routes.js';
import { webhooksDocument } from './modules/webhooks/openapi.js';
import { webhookRoutes } from './modules/webhooks/routes.js';
import { workspaceRoutes } from './modules/workspaces/routes.js';
import { baseContext } from './core/context.js';
import type { Workspace } from './core/workspace.js';
import type { Sealer } from './core/sealed.js';
import type { Mailer } from './modules/mail/service.js';
import type { CitySource } from './infra/city.js';

export interface AppDeps {
  config: Config;
  /** Seals and opens reversible secrets under SECRET (and SECRET_PREVIOUS): core/sealed.ts. */
  sealer: Sealer;
  database: Database;
  /** The connection analytics reads use now: the read replica while it keeps up (DATABASE_READ_URL); absent: `database`. */
  analyticsDb?: () => Conn;
  /** Where expensive requests' statements go (http/heavy-requests.ts); absent: `database`. */
  heavyDb?: Conn;
  /** The operator's city database (GEOIP_CITY_DB), to credit as its licence asks; absent: none. */
  citySource?: CitySource;
  limiter: RateLimiter;
  lastUsed: LastUsedTracker;
  clock: () => Date;
  logger: FastifyBaseLogger;
  links: LinkDeps;
  redirect: RedirectDeps;
  conversions: ConversionDeps;
  /** Claimed hosts (operations.md §13): reserved hosts, the TXT resolvers, the change announcement. */
  domains: DomainDeps;
  /** Imports (operations.md §13): pokes this instance's import worker. */
  imports: { wakeWorker: () => void };
  /** Outgoing mail (operations.md §15); absent without SMTP_URL. */
  mailer?: Mailer;
  keyCache: KeyCache;
  /** Whether the shared credential epoch moved (see AuthChangeBus.observeAuthEpoch); absent in process. */
  authEpochMoved?: (epoch: string) => boolean;
  /** People: cached sessions and memberships, batched last-seen writes, login throttling. */
  people: {
    sessions: CredentialCache<SessionFound>;
    memberships: CredentialCache<{ role: Role; workspace: Workspace }>;
    sessionSeen: LastUsedTracker;
    tokens: CredentialCache<TokenFound>;
    oauthTokens: CredentialCache<AccessFound>;
    /** Whether a person has a second factor, by user id (for workspaces that require one). */
    secondFactors: CredentialCache<boolean>;
    tokenUsed: LastUsedTracker;
    throttle: LoginThrottle;
  };
  requestTimeoutMs?: number;
  /** What the process is doing now, for `GET /admin/metrics`; `reset` starts a new measuring window. */
  metrics?: (reset: boolean) => Record<string, unknown>;
}

/** The composition root: the server's machinery, the credential kinds, and every capability as a plugin. */
export async function buildApp(deps: AppDeps): Promise<App> {
  const { config, clock } = deps;
  const { db } = deps.database;
  const ctxNow = baseContext({ db, clock });
  const sessionLimits = { idleMs: config.sessionIdleMs, maxMs: config.sessionMaxMs };
  // Every credential cache listens to the same bus: one call empties them all, on every instance.
  const authChanged = () => deps.keyCache.changed();
  // Asked only in workspaces that require it, and cached like the credentials themselves.
  const secondFactorOf: SecondFactorCheck = async (userId, now) =>
    (await deps.people.secondFactors.lookup(userId, () => hasAnySecondFactor({ ctx: { db, now }, input: { userId } }), now.getTime())) === true;
  // Settings routes of a workspace (`workspaceRole`) refuse a member without a required second factor too.
  const roleOf: RoleLookup = async (userId, workspaceId) => {
    const now = clock();
    const m = await membershipFor({ ctx: { db, now }, input: { userId, workspaceId } });
    if (m && (await lacksRequiredSecondFactor(m.workspace, userId, secondFactorOf, now))) throw new AppError('mfa_required');
    return m?.role;
  };
  const sessionDeps = {
    db,
    baseUrl: config.baseUrl,
    limits: sessionLimits,
    sessions: deps.people.sessions,
    memberships: deps.people.memberships,
    touch: (id: string, at: Date) => deps.people.sessionSeen.touch(id, at),
    pendingSeen: (id: string) => deps.people.sessionSeen.pendingAt(id),
    hasSecondFactor: secondFactorOf,
  };
  const app = await createServer({
    baseUrl: config.baseUrl,
    trustProxy: config.trustProxy,
    logger: deps.logger,
    requestTimeoutMs: deps.requestTimeoutMs,
    fastPath: fastRedirect(deps.redirect),
    rewriteUrl: claimedHostRewrite(deps.redirect),
    notFoundPage,
    ping: () => deps.database.ping(),
    openApiWebhooks: webhooksDocument,
    roleOf,
    auth: {
      kinds: [
        apiKeyCredential(db, deps.keyCache),
        sessionCredential(sessionDeps),
        humanTokenCredential(db, deps.people.tokens, secondFactorOf),
        oauthAccessCredential(db, deps.people.oauthTokens, secondFactorOf),
      ],
      limiter: deps.limiter,
      clock,
      authEpochMoved: deps.authEpochMoved,
      onAuthenticated: ({ actor }, now) => {
        if (actor.type === 'key') deps.lastUsed.touch(actor.keyId, now);
        else if (actor.type === 'user' && actor.tokenId) deps.people.tokenUsed.touch(actor.tokenId, now);
      },
    },
  });
  const resource = { db, analyticsDb: deps.analyticsDb, heavyDb: deps.heavyDb, clock };
  // First: its hooks write the audit entry of every route registered after it (operations.md §15).
  await app.register(auditRoutes, { db, clock, roleOf });
  await app.register(qrRoutes, resource);
  await app.register(collectionRoutes, resource);
  await app.register(tagRoutes, resource);
  await app.register(utmTemplateRoutes, resource);
  await app.register(partnerRoutes, resource);
  await app.register(linkRoutes, { ...resource, links: deps.links });
  await app.register(customerRoutes, resource);
  await app.register(conversionRoutes, { ...resource, conversions: deps.conversions });
  await app.register(analyticsRoutes, {
    ...resource,
    shortLinkBaseUrl: config.shortLinkBaseUrl,
    places: { cityDatabase: deps.citySource ?? null, regionHeader: config.regionHeader !== undefined, cityHeader: config.cityHeader !== undefined },
  });
  await app.register(eventRoutes, { ...resource, shortLinkBaseUrl: config.shortLinkBaseUrl });
  await app.register(exportRoutes, { ...resource, shortLinkBaseUrl: config.shortLinkBaseUrl, links: deps.links });
  await app.register(webhookRoutes, {
    ...resource,
    sealer: deps.sealer,
    destinations: { allowedCidrs: config.webhookAllowedCidrs, allowPrivate: config.allowPrivateDestinations },
  });
  await app.register(stripeRoutes, {
    ...resource,
    baseUrl: config.baseUrl,
    sealer: deps.sealer,
    clickIdParam: config.clickIdParam,
    conversions: deps.conversions,
    roleOf,
  });
  // The files this app reads on requests, by workspace: the API's and the operator's imports share them.
  const importReads = new FileReads();
  await app.register(importRoutes, { ...resource, wakeWorker: deps.imports.wakeWorker, reads: importReads });
  await app.register(domainRoutes, {
    ...resource,
    domains: deps.domains,
    roleOf,
    isActiveHost: (host) => deps.redirect.hosts.get(host) !== undefined,
  });
  await app.register(authRoutes, {
    db,
    baseUrl: config.baseUrl,
    sessionMaxMs: config.sessionMaxMs,
    allowSignup: config.allowSignup,
    throttle: deps.people.throttle,
    clock,
    authChanged,
  });
  await app.register(mfaRoutes, { db, clock, baseUrl: config.baseUrl, sessionMaxMs: config.sessionMaxMs, sealer: deps.sealer, throttle: deps.people.throttle, authChanged });
  await app.register(passkeyRoutes, { db, clock, baseUrl: config.baseUrl, sessionMaxMs: config.sessionMaxMs, throttle: deps.people.throttle, authChanged });
  const sso = {
    sealer: deps.sealer,
    baseUrl: config.baseUrl,
    fetch: ssoFetch({ allowedCidrs: config.ssoAllowedCidrs, allowPrivate: config.allowPrivateDestinations }),
    resolveTxt: systemResolveTxt(config.dnsServers),
  };
  await app.register(ssoRoutes, { db, clock, sessionMaxMs: config.sessionMaxMs, roleOf, sso });
  await app.register(passwordResetRoutes, { db, clock, baseUrl: config.baseUrl, mailer: deps.mailer, authChanged });
  const flushLastUsed = async () => {
    await Promise.all([deps.lastUsed.flush(), deps.people.sessionSeen.flush(), deps.people.tokenUsed.flush()]);
  };
  await app.register(userRoutes, { db, clock, authChanged, throttle: deps.people.throttle });
  await app.register(sessionRoutes, { db, clock, authChanged, flushLastUsed });
  await app.register(tokenRoutes, { db, clock, authChanged, flushLastUsed });
  await app.register(workspaceRoutes, { db, clock, authChanged });
  await app.register(inviteRoutes, { db, baseUrl: config.baseUrl, sessionMaxMs: config.sessionMaxMs, clock, authChanged, mailer: deps.mailer });
  await app.register(keyRoutes, { db, clock, authChanged, flushLastUsed });
  await app.register(oauthAppsRoutes, { db, clock, authChanged });
  await app.register(oauthRoutes, { db, baseUrl: config.baseUrl, clock, authChanged, signedIn: signedInPerson(sessionDeps) });
  await app.register(oauthConsentRoutes, { db, clock });
  await app.register(dashboardRoutes, {
    baseUrl: config.baseUrl,
    shortLinkBaseUrl: config.shortLinkBaseUrl,
    consentFormTarget: (clientId, redirectUri) => consentRedirectOrigin({ ctx: ctxNow(undefined), input: { clientId, redirectUri } }),
  });
  await app.register(redirectRoutes, deps.redirect);
  if (config.adminToken) {
    await app.register(adminRoutes, {
      prefix: '/admin',
      db,
      adminToken: config.adminToken,
      clock,
      authChanged,
      flushLastUsed,
      metrics: deps.metrics,
      reseal: { sealer: deps.sealer, changed: (table, ids) => (table === 'links' ? deps.links.onChanged?.(ids) : undefined) },
    });
    await app.register(domainAdminRoutes, { prefix: '/admin', db, clock, adminToken: config.adminToken, domains: deps.domains });
    await app.register(importAdminRoutes, { prefix: '/admin', db, clock, adminToken: config.adminToken, wakeWorker: deps.imports.wakeWorker, reads: importReads });
    await app.register(exportAdminRoutes, { prefix: '/admin', ...resource, adminToken: config.adminToken, shortLinkBaseUrl: config.shortLinkBaseUrl, links: deps.links });
    await app.register(ssoAdminRoutes, { prefix: '/admin', db, clock, adminToken: config.adminToken, sso });
    await app.register(passwordResetAdminRoutes, { prefix: '/admin', db, clock, baseUrl: config.baseUrl, authChanged, adminToken: config.adminToken });
  }
  return app;
}
