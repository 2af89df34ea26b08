import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { ResourceDeps } from './core/context.js';
import type { Sealer } from './core/sealed.js';
import type { Database } from './db/connect.js';
import type { CredentialKind, RoleLookup, SecondFactorCheck } from './http/auth.js';
import type { LoginThrottle } from './http/login-throttle.js';
import type { RateLimiter } from './http/rate-limit.js';
import type { ServerOptions } from './http/server.js';
import type { App } from './http/types.js';
import type { AuthChangeBus, ClickFlushBus, DomainChangeBus, InvalidationBus } from './infra/bus.js';
import type { CitySource, PlaceLookup } from './infra/city.js';
import type { CountryLookup } from './infra/country.js';
import type { CredentialCache } from './infra/credential-cache.js';
import type { LastUsedTracker } from './infra/last-used.js';
import type { MaintenanceJob } from './infra/maintenance.js';
import type { TableStatsKeeper } from './infra/table-stats.js';
import type { VisitorMarks } from './infra/visitor-marks.js';
import type { ClickGate } from './infra/click-gate.js';
import type { ClickPipeline } from './modules/clicks/service.js';
import type { ConversionDeps } from './modules/conversions/service.js';
import type { ActiveHosts, DomainDeps } from './modules/domains/service.js';
import type { KeyCache } from './modules/keys/service.js';
import type { LinkDeps } from './modules/links/service.js';
import type { PartnerLinks } from './modules/partner-links/service.js';
import type { PartnersDecided } from './modules/partners/service.js';
import type { Mailer, MailWorker } from './modules/mail/service.js';
import type { AccessFound } from './modules/oauth/service.js';
import type { RedirectDeps } from './modules/redirect/service.js';
import type { SessionCredentialDeps, SessionFound } from './modules/sessions/service.js';
import type { TokenFound } from './modules/tokens/service.js';
import type { Role } from './modules/users/service.js';
import type { Workspace } from './core/workspace.js';

export type Bus = InvalidationBus & ClickFlushBus & AuthChangeBus & DomainChangeBus;

/** The infrastructure runtime.ts chooses once from the configuration. */
export interface Infrastructure {
  config: Config;
  clock: () => Date;
  logger: Logger;
  database: Database;
  /** What workspace resources' routes read and write with: the database, the analytics reads' (the replica while it keeps up), the heavy requests' pool, the clock. */
  resource: ResourceDeps;
  sealer: Sealer;
  bus: Bus;
  limiter: RateLimiter;
  /** Marks of visitors already seen (browser tracking's one click per visitor, link and hour): Redis or in process. */
  visitorMarks: VisitorMarks;
  /** A browser click's windows and visitor mark in one step (one round trip to Redis). */
  clickGate: ClickGate;
  lookupCountry: CountryLookup;
  /** The operator's city database (GEOIP_CITY_DB); absent: none. */
  cities?: { lookup: PlaceLookup; source: CitySource };
  tableStats: TableStatsKeeper;
  /** Batched last-use writes of keys, tokens and sessions, and the login throttle. */
  lastUsed: { keys: LastUsedTracker; tokens: LastUsedTracker; sessions: LastUsedTracker };
  throttle: LoginThrottle;
  /** What the process is doing now, for `GET /admin/metrics`; `reset` starts a new measuring window. */
  processMetrics: (reset: boolean) => Record<string, unknown>;
}

/** The shared, typed set of dependencies every module's registration takes its options from (shared.ts builds it). */
export interface Wiring extends Infrastructure {
  caches: {
    keys: KeyCache;
    sessions: CredentialCache<SessionFound>;
    memberships: CredentialCache<{ role: Role; workspace: Workspace }>;
    tokens: CredentialCache<TokenFound>;
    oauthTokens: CredentialCache<AccessFound>;
    /** Whether a person has a second factor, by user id (for workspaces that require one). */
    secondFactors: CredentialCache<boolean>;
  };
  /** Empties every credential cache, on every instance (a key, session or membership changed). */
  authChanged: () => Promise<void>;
  roleOf: RoleLookup;
  secondFactorOf: SecondFactorCheck;
  /** What the session credential and the signed-in person's lookups need. */
  sessions: SessionCredentialDeps;
  /** Who is signed in on a top-level page navigation (the OAuth consent page). */
  signedIn: (request: FastifyRequest, now: Date) => Promise<{ userId: string; sessionId: string } | undefined>;
  /** Writes the batched last uses now (before a list shows them). */
  flushLastUsed: () => Promise<void>;
  links: LinkDeps;
  /** Partners' default links (operations.md §18): the hooks the partner and program writes run, the job that makes them. */
  partnerLinks: PartnerLinks;
  /** Applications to a partner program (operations.md §18): what a partner write does when it approves or rejects a pending applicant. */
  partnerApplications: { onDecided: PartnersDecided };
  /** Claimed hosts (operations.md §13): reserved hosts, the TXT resolvers, the change announcement. */
  domains: DomainDeps;
  hosts: ActiveHosts;
  redirect: RedirectDeps;
  conversions: ConversionDeps;
  clicks: ClickPipeline;
  /** Outgoing mail (operations.md §15); absent without SMTP_URL. */
  mail?: { worker: MailWorker; mailer: Mailer };
  /** Pokes this instance's webhook delivery worker, once the webhooks module handed it one. */
  webhooks: { wake(): void; deliverWith(worker: { wake(): void }): void };
  metrics: (reset: boolean) => Record<string, unknown>;
}

/** A Fastify plugin with its options, checked against each other where they are paired. */
export interface Plugin {
  register(app: App): Promise<unknown>;
}

export function plugin<O extends object>(routes: (instance: FastifyInstance, options: O) => unknown, options: O & { prefix?: string }): Plugin {
  return { register: async (app) => app.register(routes as FastifyPluginAsync<O>, options) };
}

/** A background worker of a module, started once the app is built. */
export interface Worker {
  start?(): void;
  /**
   * Workers close by stage, after the app: 1 imports, 2 mail, 3 claimed hosts, 4 webhook
   * deliveries and the click writer (side by side); those of one stage close together.
   */
  closeStage: 1 | 2 | 3 | 4;
  close(): Promise<void>;
}

/** What a module contributes, given the shared dependencies. */
export interface ModuleParts {
  /** Its routes, registered in the list's order. */
  plugins?: Plugin[];
  /** Its operator routes under /admin, registered after every module's routes when ADMIN_TOKEN is set. */
  admin?: (operator: { prefix: '/admin'; adminToken: string }) => Plugin[];
  /** Its ways of proving identity (http/auth.ts). */
  credentials?: CredentialKind[];
  /** What it answers before or around the routes (the redirect's fast path, the OpenAPI webhooks). */
  server?: Partial<Pick<ServerOptions, 'fastPath' | 'rewriteUrl' | 'notFoundPage' | 'openApiWebhooks'>>;
  workers?: Worker[];
  /** Its periodic maintenance, run once per period across instances (infra/maintenance.ts). */
  jobs?: MaintenanceJob[];
}

/** A capability's registration (src/modules/<name>/module.ts), listed once in src/modules.ts. */
export interface ModuleRegistration {
  name: string;
  /** Called once per runtime, before the app is built; what it builds lives as long as the runtime. */
  setUp(w: Wiring): ModuleParts;
}
