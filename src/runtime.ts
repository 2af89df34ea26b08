import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { destination, pino, type Logger } from 'pino';
import type { Config } from './config.js';
import { openPglite, openPostgres, type Database } from './db/connect.js';
import { ReplicaRouter } from './db/replica-lag.js';
import { migrate } from './db/migrate.js';
import { buildApp } from './app.js';
import { CredentialCache } from './infra/credential-cache.js';
import type { App } from './http/types.js';
import { MemoryRateLimiter, RedisRateLimiter, type RateLimiter } from './http/rate-limit.js';
import { LastUsedTracker } from './infra/last-used.js';
import { recordKeyUses } from './modules/keys/service.js';
import { recordSessionsSeen } from './modules/sessions/service.js';
import { recordTokenUses } from './modules/tokens/service.js';
import { MemoryFailureCounter, RedisFailureCounter } from './http/failure-counter.js';
import { LoginThrottle } from './http/login-throttle.js';
import { issueSetupCode } from './modules/auth/service.js';
import { frameChecker } from './modules/links/frame-check.js';
import { findLinkByAlias, findLinkForRedirect, type LinkDeps } from './modules/links/service.js';
import { ActiveHosts, loadActiveHosts, type DomainDeps } from './modules/domains/service.js';
import { ImportWorker } from './modules/imports/service.js';
import { MailWorker, smtpTransport, type Mailer } from './modules/mail/service.js';
import { AliasCache } from './modules/redirect/alias-cache.js';
import { startClickPipeline } from './modules/clicks/service.js';
import { forgetOldResets } from './modules/password-reset/service.js';
import { forgetOldAudit } from './modules/audit/service.js';
import { clickOutboxCtes, workspacesWanting } from './modules/webhooks/outbox.js';
import { LocalBus, RedisBus, type AuthChangeBus, type ClickFlushBus, type DomainChangeBus, type InvalidationBus } from './infra/bus.js';
import { LinkCache } from './modules/redirect/link-cache.js';
import { PasswordGate } from './modules/redirect/password-gate.js';
import { openCountryLookup } from './infra/country.js';
import { openPlaceLookup } from './infra/city.js';
import { Sealer } from './core/sealed.js';
import { WebhookDelivery } from './modules/webhooks/delivery.js';
import { mailOwnersOfDisabledEndpoint } from './modules/webhooks/disabled-mail.js';
import { TableStatsKeeper } from './infra/table-stats.js';

export interface Runtime {
  app: App;
  database: Database;
  logger: Logger;
  /** The one-time setup URL while nobody has an account (main.ts prints it for a person too). */
  setupUrl?: string;
  /**
   * Pokes this instance's webhook delivery worker (operations.md §11): an emitter calls it after
   * committing events, so they leave at once instead of at the next poll (within 1 s). A no-op
   * when WEBHOOK_DELIVERY=false.
   */
  wakeWebhooks(): void;
  /** Runs the periodic maintenance now (clicks partitions, visitor salts, the audit log's retention, stale tables' statistics), as its timer does. */
  maintain(): Promise<void>;
  /** Stops accepting, finishes in-flight requests, flushes pending writes, closes pools. */
  close(): Promise<void>;
}

export interface RuntimeOptions {
  clock?: () => Date;
  /** Share an already-open database (tests run several instances on one). */
  database?: Database;
  logger?: Logger;
  requestTimeoutMs?: number;
  /**
   * Where sign-in failures are counted in Redis (default `lt:lf:`). Test apps each count under
   * their own, since every injected request comes from 127.0.0.1 and one app's failed sign-ins
   * would otherwise throttle another's on the shared test Redis.
   */
  failureKeyPrefix?: string;
  /**
   * Whether the periodic maintenance runs by itself, at start and on its timer (default true).
   * Test apps turn it off: on the shared test database, one file's run (with its own clock) would
   * cut, forget and delete what other files are reading; they call maintain() when they mean it.
   */
  scheduledMaintenance?: boolean;
}

/** Paths never written to logs: credentials, cookies, and secrets handed to a logger call. */
export const LOG_REDACT = ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie', 'key', 'secret', 'password'];

/**
 * JSON logs on stdout, written asynchronously in 4 KB chunks (one write per line would be a
 * system call per request); flushed on shutdown.
 */
export function createLogger(config: Config): Logger {
  return pino({ level: config.logLevel, redact: LOG_REDACT }, destination({ dest: 1, sync: false, minLength: 4096 }));
}

export function openDatabase(config: Config): Promise<Database> {
  return config.databaseUrl ? openPostgres(config.databaseUrl, config.dbPoolSize - heavyPoolSize(config.dbPoolSize)) : openPglite(config.dataDir);
}

/**
 * The connections of DB_POOL_SIZE set apart for expensive requests (http/heavy-requests.ts): 3
 * of 10. The rest serve everything else, so one workspace's heavy lists never make another's
 * requests, or the redirect's cache misses, wait. None below 3: they share the one pool.
 */
export const heavyPoolSize = (poolSize: number): number => (poolSize >= 3 ? Math.max(1, Math.floor(poolSize * 0.3)) : 0);

/**
 * The heavy requests' pool, on the same database as `database` (which may not be DATABASE_URL's:
 * a test's own); PostgreSQL only: PGlite answers one statement at a time anyway.
 */
function openHeavyDatabase(config: Config, database: Database): Promise<Database> | undefined {
  const size = heavyPoolSize(config.dbPoolSize);
  if (!database.url || size === 0) return undefined;
  // They wait for one of their few connections longer than other requests would (the per-workspace bound keeps the queue short).
  return openPostgres(database.url, size, { statementTimeoutMs: config.heavyStatementTimeoutMs, connectionTimeoutMs: 10_000 });
}

export function connectRedis(url: string, logger: Logger, o: { subscriber?: boolean } = {}): Redis {
  const redis = new Redis(url, {
    // Fail fast instead of queueing: the callers fall back while Redis is away.
    // (A subscriber connection keeps its queue so it can resubscribe after a reconnect.)
    enableOfflineQueue: o.subscriber ?? false,
    maxRetriesPerRequest: o.subscriber ? null : 0,
    commandTimeout: o.subscriber ? undefined : 500,
    // Commands issued in the same tick share one write (the rate limiter runs per request).
    enableAutoPipelining: !o.subscriber,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  let lastLog = 0;
  redis.on('error', (err) => {
    if (Date.now() - lastLog > 10_000) {
      lastLog = Date.now();
      logger.warn({ err: err.message }, 'redis connection error');
    }
  });
  return redis;
}

/** Chooses the infrastructure once, from the configuration, and wires the app. */
export async function createRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const logger = options.logger ?? createLogger(config);
  // The country database (8 MB) loads while the database opens and migrates.
  const countryLookup = openCountryLookup();
  countryLookup.catch(() => undefined); // awaited below; this only keeps an early failure from going unhandled
  const database = options.database ?? (await openDatabase(config));
  await migrate(database);
  // The replica is read only and replays the primary's migrations. A replica that is down does
  // not hold up the start: its lag is probed in the background.
  const analyticsDatabase = config.databaseReadUrl ? await openPostgres(config.databaseReadUrl, config.dbPoolSize) : undefined;
  const heavyDatabase = await openHeavyDatabase(config, database);
  // …and only while it is at most 5 s behind; past that, or unreachable, the primary answers them (§17).
  const replicaRouter = analyticsDatabase && new ReplicaRouter({
    primary: database,
    replica: analyticsDatabase,
    onChange: ({ usingReplica, lagMs }) =>
      usingReplica ? logger.info({ lagMs }, 'analytics reads back on the read replica') : logger.warn({ lagMs }, 'read replica more than 5 s behind or unreachable: analytics reads go to the primary'),
  });
  replicaRouter?.start();
  const redis = config.redisUrl ? connectRedis(config.redisUrl, logger) : undefined;
  // Serving before Redis is connected would limit the first requests in process only (a new
  // worker could let a request past the shared limit): wait for it, bounded.
  if (redis && !(await ready(redis, 5000))) logger.warn('redis not connected after 5 s; starting with in-process limits until it is');
  const limiter: RateLimiter = redis ? new RedisRateLimiter(redis, logger) : new MemoryRateLimiter();
  const lastUsed = new LastUsedTracker((batch) => recordKeyUses({ ctx: database, input: batch }), (err) => logger.warn({ err }, 'could not record key use'));
  const clock = options.clock ?? (() => new Date());
  const tokenUsed = new LastUsedTracker((batch) => recordTokenUses({ ctx: database, input: batch }), (err) => logger.warn({ err }, 'could not record token use'));
  const loginFailures = redis ? new RedisFailureCounter(redis, logger, options.failureKeyPrefix) : new MemoryFailureCounter();
  const sessionSeen = new LastUsedTracker((batch) => recordSessionsSeen({ ctx: database, input: batch }), (err) => logger.warn({ err }, 'could not record session use'));
  // One sealer for every reversible secret (link passwords, webhook and Stripe secrets…).
  const sealer = new Sealer(config.secret, config.secretPrevious);
  const bus: InvalidationBus & ClickFlushBus & AuthChangeBus & DomainChangeBus = redis ? new RedisBus(redis, connectRedis(config.redisUrl!, logger, { subscriber: true }), logger) : new LocalBus();
  const cache = new LinkCache(async (shortId) => (await findLinkForRedirect(database.db, shortId)) ?? null, bus);
  // Claimed hosts (operations.md §13): the active ones in memory, their aliases in a cache of their own.
  const hosts = new ActiveHosts(() => loadActiveHosts(database.db), bus, logger);
  await hosts.start();
  const aliases = new AliasCache(async (host, path) => (await findLinkByAlias(database.db, host, path)) ?? null, bus);
  hosts.onChange(() => aliases.clear());
  const lookupCountry = await countryLookup;
  // The operator's city database (GEOIP_CITY_DB): a path that cannot be read stops the start, as a bad setting does.
  const cities = config.geoipCityDb ? await openPlaceLookup(config.geoipCityDb) : undefined;
  // Started once the app is built; emitters given wakeWebhooks before that poke nothing yet.
  let webhooks: WebhookDelivery | undefined;
  const wakeWebhooks = () => webhooks?.wake();
  // Neither PGlite nor a PostgreSQL without autovacuum analyzes what we write (issue 41 H1).
  const tableStats = new TableStatsKeeper(
    database.db,
    (err) => logger.warn({ err }, 'could not analyze stale tables'),
    (tables) => logger.info({ tables }, 'analyzed tables whose statistics were stale'),
  );
  const clicks = startClickPipeline({
    database,
    config,
    clock,
    logger,
    bus,
    lookupCountry,
    lookupPlace: cities?.lookup,
    clickEvents: { subscribedWorkspaces: () => workspacesWanting(database.db, 'link.clicked'), outboxCtes: clickOutboxCtes, onEventsWritten: wakeWebhooks },
    scheduledMaintenance: options.scheduledMaintenance ?? true,
    onBatchWritten: () => tableStats.wrote(),
    maintenance: [
      () => tableStats.run(),
      async (now) => {
        const gone = await forgetOldAudit({ ctx: { db: database.db, now }, input: { days: config.auditRetentionDays } });
        if (gone.entries + gone.signIns > 0) logger.info(gone, 'deleted audit entries and sign-ins past AUDIT_RETENTION_DAYS');
      },
      (now) => forgetOldResets({ ctx: { db: database.db, now } }),
    ],
  });
  // Event-loop delay, for the operator's metrics (and the hostile-body bench): a native
  // histogram sampled every 10 ms, nothing on the request path.
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const metrics = (reset: boolean) => {
    const ms = (ns: number) => Math.round(ns / 1e4) / 100;
    const memory = process.memoryUsage();
    const answer = {
      eventLoopDelay: { maxMs: ms(loopDelay.max), p99Ms: ms(loopDelay.percentile(99)), meanMs: ms(loopDelay.mean) },
      clicks: clicks.metrics(),
      memory: { rssBytes: memory.rss, heapUsedBytes: memory.heapUsed },
      ...(replicaRouter && { replica: { lagSeconds: (replicaRouter.lastLagMs() ?? NaN) / 1000, analyticsReadsOnReplica: replicaRouter.usingReplica() } }),
    };
    if (reset) loopDelay.reset();
    return answer;
  };
  const linkDeps: LinkDeps = {
    shortLinkBaseUrl: config.shortLinkBaseUrl,
    baseUrl: config.baseUrl,
    sealer,
    checkFrame: frameChecker(config.shortLinkBaseUrl, { allowPrivate: config.allowPrivateDestinations }),
    onChanged: (linkIds) => cache.changed(linkIds),
    onEventsWritten: wakeWebhooks,
    onBulkWritten: () => tableStats.wrote(),
  };
  const domainDeps: DomainDeps = {
    reservedHosts: new Set(config.reservedHosts),
    dnsServers: config.dnsServers,
    // This instance's table is fresh when the change's answer goes out; others follow by the bus.
    onChanged: async () => {
      await bus.publishDomainsChanged();
      await hosts.refresh();
    },
  };
  // Imports (operations.md §13) run on every instance (started once the app is built); one started here is taken at once.
  // Mail (operations.md §15) is sent by a worker on every instance from the shared outbox.
  const mailWorker = config.mail && new MailWorker({ db: database.db, sealer, transport: smtpTransport(config.mail.url, config.mail.from), retryDelaysMs: config.mail.retryDelaysMs, logger });
  const mailer = mailWorker && { sealer, wake: () => mailWorker.wake() };
  const importer = new ImportWorker({ db: database.db, clock, logger, links: linkDeps, domains: domainDeps, leaseMs: config.importLeaseMs });
  const app = await buildApp({
    metrics,
    config,
    sealer,
    database,
    analyticsDb: replicaRouter?.current,
    heavyDb: heavyDatabase?.db,
    citySource: cities?.source,
    limiter,
    lastUsed,
    clock,
    logger,
    links: linkDeps,
    imports: { wakeWorker: () => importer.wake() },
    mailer,
    redirect: {
      shortLinkBaseUrl: config.shortLinkBaseUrl,
      log: logger,
      trustProxy: config.trustProxy,
      clickIdParam: config.clickIdParam,
      countryHeader: config.countryHeader,
      regionHeader: config.regionHeader,
      cityHeader: config.cityHeader,
      cache,
      hosts,
      aliases,
      clicks: clicks.recorder,
      gate: new PasswordGate(config.secret, sealer),
      lookupCountry,
      limiter,
      clock,
    },
    domains: domainDeps,
    keyCache: new CredentialCache(bus),
    authEpochMoved: (epoch) => bus.observeAuthEpoch?.(epoch) ?? false,
    people: {
      sessions: new CredentialCache(bus),
      memberships: new CredentialCache(bus),
      sessionSeen,
      tokens: new CredentialCache(bus),
      oauthTokens: new CredentialCache(bus),
      secondFactors: new CredentialCache(bus),
      tokenUsed,
      throttle: new LoginThrottle(loginFailures),
    },
    requestTimeoutMs: options.requestTimeoutMs,
    conversions: {
      shortLinkBaseUrl: config.shortLinkBaseUrl,
      onEventsWritten: wakeWebhooks,
      isClickPending: clicks.isClickPending,
      flushClicks: clicks.flush,
      requestClickFlush: clicks.requestFlush,
    },
  });
  // operations.md §7: while nobody has an account, the way in is a one-time setup URL.
  const setupCode = await issueSetupCode({ ctx: { db: database.db, now: clock() } });
  const setupUrl = setupCode && `${config.baseUrl}/app/setup?code=${setupCode}`;
  if (setupUrl) {
    // At warn, so LOG_LEVEL=warn still shows it; flushed at once (the log is buffered), since
    // the operator needs it now.
    logger.warn({ setupUrl }, 'no user yet: open the setup URL to create the first account');
    logger.flush();
  }
  if (config.webhookDelivery) webhooks = startWebhookDelivery(config, { database, sealer, logger, clock, mailer });
  importer.start();
  mailWorker?.start();
  return {
    app,
    database,
    logger,
    setupUrl,
    wakeWebhooks,
    maintain: () => clicks.maintain(),
    async close() {
      await app.close();
      await importer.close();
      await mailWorker?.close();
      // No request or import reads the claimed hosts any more.
      await hosts.close();
      // Side by side, so the attempts' grace does not delay the click flush; the events that
      // flush writes stay queued for any instance (this one no longer claims).
      await Promise.all([webhooks?.close(), clicks.close()]);
      await tableStats.close();
      loopDelay.disable();
      await lastUsed.close();
      await sessionSeen.close();
      await tokenUsed.close();
      await loginFailures.close();
      await bus.close();
      await limiter.close();
      redis?.disconnect();
      replicaRouter?.close();
      await analyticsDatabase?.close();
      await heavyDatabase?.close();
      if (!options.database) await database.close();
      logger.flush();
    },
  };
}

/** The webhook delivery worker of this instance; an endpoint it disables is logged, and its owners mailed when mail is configured (§11, §15). */
function startWebhookDelivery(config: Config, o: { database: Database; sealer: Sealer; logger: Logger; clock: () => Date; mailer: Mailer | undefined }): WebhookDelivery {
  const { mailer } = o;
  const worker = new WebhookDelivery({
    database: o.database,
    sealer: o.sealer,
    log: o.logger,
    clock: o.clock,
    concurrency: config.webhookConcurrency,
    retryDelaysMs: config.webhookRetryDelaysMs,
    destinations: { allowPrivate: config.allowPrivateDestinations, allowedCidrs: config.webhookAllowedCidrs },
    onEndpointDisabled: {
      record: mailer && ((tx, endpoint) => mailOwnersOfDisabledEndpoint(tx, { mailer, baseUrl: config.baseUrl, now: o.clock() }, endpoint)),
      committed: (endpoint) => {
        o.logger.warn({ endpointId: endpoint.id, workspaceId: endpoint.workspaceId, reason: endpoint.reason }, 'webhook endpoint disabled');
        mailer?.wake();
      },
    },
  });
  worker.start();
  return worker;
}

/** Resolves true once the client is connected, false after `ms`. */
function ready(redis: Redis, ms: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      resolve(ok);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), ms);
    redis.once('ready', onReady);
  });
}
