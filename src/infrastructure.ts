import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { destination, pino, type Logger } from 'pino';
import type { Config } from './config.js';
import { Sealer } from './core/sealed.js';
import { openPglite, openPostgres, useNamedStatements, type Database } from './db/connect.js';
import { migrate } from './db/migrate.js';
import { ReplicaRouter } from './db/replica-lag.js';
import { MemoryFailureCounter, RedisFailureCounter } from './http/failure-counter.js';
import { LoginThrottle } from './http/login-throttle.js';
import { MemoryRateLimiter, RedisRateLimiter, type RateLimiter } from './http/rate-limit.js';
import { LocalBus, RedisBus } from './infra/bus.js';
import { openPlaceLookup } from './infra/city.js';
import { openCountryLookup } from './infra/country.js';
import { LastUsedTracker } from './infra/last-used.js';
import { TableStatsKeeper } from './infra/table-stats.js';
import { MemoryVisitorMarks, RedisVisitorMarks, type VisitorMarks } from './infra/visitor-marks.js';
import { RedisClickGate, SeparateClickGate, type ClickGate } from './infra/click-gate.js';
import { recordKeyUses } from './modules/keys/service.js';
import { recordSessionsSeen } from './modules/sessions/service.js';
import { recordTokenUses } from './modules/tokens/service.js';
import type { Bus, Infrastructure } from './wiring.js';

/** What createRuntime's caller may choose of the infrastructure (RuntimeOptions). */
export interface InfrastructureOptions {
  clock?: () => Date;
  /** Share an already-open database (tests run several instances on one). */
  database?: Database;
  logger?: Logger;
  /**
   * Where sign-in failures are counted in Redis (default `lt:lf:`). Test apps each count under
   * their own, since every injected request comes from 127.0.0.1 and one app's failed sign-ins
   * would otherwise throttle another's on the shared test Redis.
   */
  failureKeyPrefix?: string;
  /** The wait before a throttled sign-in attempt (default a timer): a test of the throttle's answers records the waits instead. */
  loginWait?: (ms: number) => Promise<void>;
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
  useNamedStatements(config.dbPreparedStatements);
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

/**
 * The infrastructure, chosen once from the configuration: the databases (migrated), the read
 * replica's router, Redis and what uses it (rate limits, sign-in failures, the bus), the batched
 * last-use writes, the sealer, the IP lookups, the table statistics, the process metrics; and
 * how to close it all, in the reverse order.
 */
export async function openInfrastructure(config: Config, options: InfrastructureOptions): Promise<Infrastructure & { close(): Promise<void> }> {
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
  const replicaRouter =
    analyticsDatabase &&
    new ReplicaRouter({
      primary: database,
      replica: analyticsDatabase,
      onChange: ({ usingReplica, lagMs }) =>
        usingReplica
          ? logger.info({ lagMs }, 'analytics reads back on the read replica')
          : logger.warn({ lagMs }, 'read replica more than 5 s behind or unreachable: analytics reads go to the primary'),
    });
  replicaRouter?.start();
  const redis = config.redisUrl ? connectRedis(config.redisUrl, logger) : undefined;
  // Serving before Redis is connected would limit the first requests in process only (a new
  // worker could let a request past the shared limit): wait for it, bounded.
  if (redis && !(await ready(redis, 5000))) logger.warn('redis not connected after 5 s; starting with in-process limits until it is');
  const limiter: RateLimiter = redis ? new RedisRateLimiter(redis, logger) : new MemoryRateLimiter();
  const visitorMarks: VisitorMarks = redis ? new RedisVisitorMarks(redis, logger) : new MemoryVisitorMarks();
  const clickGate: ClickGate = redis ? new RedisClickGate(redis, limiter, visitorMarks) : new SeparateClickGate(limiter, visitorMarks);
  const lastUsed = {
    keys: new LastUsedTracker(
      (batch) => recordKeyUses({ ctx: database, input: batch }),
      (err) => logger.warn({ err }, 'could not record key use'),
    ),
    tokens: new LastUsedTracker(
      (batch) => recordTokenUses({ ctx: database, input: batch }),
      (err) => logger.warn({ err }, 'could not record token use'),
    ),
    sessions: new LastUsedTracker(
      (batch) => recordSessionsSeen({ ctx: database, input: batch }),
      (err) => logger.warn({ err }, 'could not record session use'),
    ),
  };
  const loginFailures = redis ? new RedisFailureCounter(redis, logger, options.failureKeyPrefix) : new MemoryFailureCounter();
  const bus: Bus = redis ? new RedisBus(redis, connectRedis(config.redisUrl!, logger, { subscriber: true }), logger) : new LocalBus();
  const lookupCountry = await countryLookup;
  // The operator's city database (GEOIP_CITY_DB): a path that cannot be read stops the start, as a bad setting does.
  const cities = config.geoipCityDb ? await openPlaceLookup(config.geoipCityDb) : undefined;
  // Neither PGlite nor a PostgreSQL without autovacuum analyzes what we write (issue 41 H1).
  const tableStats = new TableStatsKeeper(
    database.db,
    (err) => logger.warn({ err }, 'could not analyze stale tables'),
    (tables) => logger.info({ tables }, 'analyzed tables whose statistics were stale'),
  );
  // Event-loop delay, for the operator's metrics (and the hostile-body bench): a native
  // histogram sampled every 10 ms, nothing on the request path.
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const clock = options.clock ?? (() => new Date());
  return {
    config,
    clock,
    logger,
    database,
    resource: { db: database.db, analyticsDb: replicaRouter?.current, heavyDb: heavyDatabase?.db, clock },
    // One sealer for every reversible secret (link passwords, webhook and Stripe secrets…).
    sealer: new Sealer(config.secret, config.secretPrevious),
    bus,
    limiter,
    visitorMarks,
    clickGate,
    lookupCountry,
    cities,
    tableStats,
    lastUsed,
    throttle: new LoginThrottle(loginFailures, {}, options.loginWait),
    processMetrics: (reset) => {
      const ms = (ns: number) => Math.round(ns / 1e4) / 100;
      const memory = process.memoryUsage();
      const answer = {
        eventLoopDelay: { maxMs: ms(loopDelay.max), p99Ms: ms(loopDelay.percentile(99)), meanMs: ms(loopDelay.mean) },
        memory: { rssBytes: memory.rss, heapUsedBytes: memory.heapUsed },
        ...(replicaRouter && { replica: { lagSeconds: (replicaRouter.lastLagMs() ?? NaN) / 1000, analyticsReadsOnReplica: replicaRouter.usingReplica() } }),
      };
      if (reset) loopDelay.reset();
      return answer;
    },
    async close() {
      await tableStats.close();
      loopDelay.disable();
      await lastUsed.keys.close();
      await lastUsed.sessions.close();
      await lastUsed.tokens.close();
      await loginFailures.close();
      await bus.close();
      await limiter.close();
      await visitorMarks.close();
      redis?.disconnect();
      replicaRouter?.close();
      await analyticsDatabase?.close();
      await heavyDatabase?.close();
      if (!options.database) await database.close();
      logger.flush();
    },
  };
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
