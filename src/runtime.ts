import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Database } from './db/connect.js';
import { buildApp } from './app.js';
import type { App } from './http/types.js';
import { openInfrastructure, type InfrastructureOptions } from './infrastructure.js';
import { MaintenanceScheduler } from './infra/maintenance.js';
import { databaseClaims } from './infra/maintenance-claims.js';
import { issueSetupCode } from './modules/auth/service.js';
import { MODULES } from './modules.js';
import { wire } from './shared.js';
import type { ModuleRegistration } from './wiring.js';

export { LOG_REDACT, openDatabase } from './infrastructure.js';

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
  /**
   * Runs every periodic maintenance job now (clicks partitions, visitor salts, the audit log's
   * retention, stale tables' statistics…), whichever instance ran it this period.
   */
  maintain(): Promise<void>;
  /** Stops accepting, finishes in-flight requests, flushes pending writes, closes pools. */
  close(): Promise<void>;
}

export interface RuntimeOptions extends InfrastructureOptions {
  requestTimeoutMs?: number;
  /**
   * Whether the periodic maintenance runs by itself, at start and on its timer, each job once per
   * period across the instances sharing the database (default true).
   * Test apps turn it off: on the shared test database, one file's run (with its own clock) would
   * cut, forget and delete what other files are reading; they call maintain() when they mean it.
   */
  scheduledMaintenance?: boolean;
  /** The modules, in order (default MODULES): test apps give the audit module's option theirs (test/helpers/app.ts). */
  modules?: readonly ModuleRegistration[];
}

/** Chooses the infrastructure once, from the configuration, sets every module up, and starts their workers and the maintenance. */
export async function createRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const infra = await openInfrastructure(config, options);
  const { database, logger, clock } = infra;
  const w = await wire(infra);
  const parts = (options.modules ?? MODULES).map((m) => m.setUp(w));
  const app = await buildApp(w, parts, { requestTimeoutMs: options.requestTimeoutMs });
  // operations.md §7: while nobody has an account, the way in is a one-time setup URL.
  const setupCode = await issueSetupCode({ ctx: { db: database.db, now: clock() } });
  const setupUrl = setupCode && `${config.baseUrl}/app/setup?code=${setupCode}`;
  if (setupUrl) {
    // At warn, so LOG_LEVEL=warn still shows it; flushed at once (the log is buffered), since
    // the operator needs it now.
    logger.warn({ setupUrl }, 'no user yet: open the setup URL to create the first account');
    logger.flush();
  }
  const workers = parts.flatMap((p) => p.workers ?? []);
  for (const worker of workers) worker.start?.();
  // Neither PGlite nor a PostgreSQL without autovacuum analyzes what we write (issue 41 H1): last, after the deletions.
  const jobs = [...parts.flatMap((p) => p.jobs ?? []), { name: 'table-statistics', run: () => infra.tableStats.run() }];
  const maintenance = new MaintenanceScheduler({ jobs, claims: databaseClaims(database.db), clock, log: logger });
  if (options.scheduledMaintenance ?? true) maintenance.start();
  return {
    app,
    database,
    logger,
    setupUrl,
    wakeWebhooks: w.webhooks.wake,
    maintain: () => maintenance.runAll(),
    async close() {
      await app.close();
      // By stage: imports, mail, claimed hosts, then the webhook deliveries and the click writer side by side (wiring.ts).
      for (const stage of [1, 2, 3, 4]) await Promise.all(workers.filter((x) => x.closeStage === stage).map((x) => x.close()));
      // A run under way finishes (it uses the database about to close).
      await maintenance.close();
      await infra.close();
    },
  };
}
