import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { loadConfig, type Config } from '../../src/config.js';
import type { Database } from '../../src/db/connect.js';
import { SCOPES, type Scope } from '../../src/core/scopes.js';
import type { Plan } from '../../src/core/plans.js';
import { MODULES } from '../../src/modules.js';
import { auditModule, auditModuleWith } from '../../src/modules/audit/module.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';
import { migratedPglite } from './migrated-pglite.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';
export const SECRET = 'test-secret-0123456789-0123456789-0123456789';

/** The engines of this run: PGlite in memory unless DATABASE_URL / REDIS_URL are set. */
export const onPostgres = Boolean(process.env.DATABASE_URL);
export const onRedis = Boolean(process.env.REDIS_URL);

export function testConfig(env: Record<string, string | undefined> = {}): Config {
  return loadConfig({
    DATA_DIR: 'memory://',
    ADMIN_TOKEN,
    SECRET,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATABASE_URL: process.env.DATABASE_URL,
    REDIS_URL: process.env.REDIS_URL,
    BASE_URL: 'https://lt.test',
    // The webhook delivery worker claims due deliveries of the whole database: off in tests,
    // so apps sharing the PostgreSQL test database do not send each other's events (the
    // delivery tests turn it on, on a database of their own).
    WEBHOOK_DELIVERY: 'false',
    ...env,
  });
}

export interface WorkspaceFixture {
  id: string;
  plan: Plan;
  /** A key with every scope. */
  key: string;
  /** Creates another key of this workspace. */
  newKey(scopes?: readonly Scope[], extra?: { expiresAt?: string; name?: string }): Promise<{ id: string; key: string }>;
}

export interface TestApp {
  runtime: Runtime;
  database: Database;
  inject: Runtime['app']['inject'];
  admin(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown): Promise<LightMyRequestResponse>;
  /** A fresh workspace (enterprise by default, so plan limits stay out of the way) with an all-scope key. */
  workspace(opts?: { plan?: Plan; rateLimitPerMinute?: number; maxBulkItems?: number }): Promise<WorkspaceFixture>;
  close(): Promise<void>;
}

/** Every module, the audit module failing an audited success without its entry. */
const TEST_MODULES = MODULES.map((m) => (m === auditModule ? auditModuleWith({ missing: 'fail' }) : m));

/**
 * What every runtime a test starts on the shared test database gets (spread into createRuntime's
 * options):
 * - sign-in failures counted under a key prefix of its own: every injected request comes from
 *   127.0.0.1, so on the shared test Redis one file's failed sign-ins would throttle another's;
 * - no scheduled maintenance: a run at start (with the file's own clock, years ahead in some)
 *   would cut, forget and delete what other files are reading. Tests call maintain() themselves;
 * - an audited success without its entry answers 500 (the audit module's `missing: 'fail'`), so a
 *   test of any path of any audited route fails on it.
 */
export const testRuntimeOptions = () => ({ failureKeyPrefix: `lt:lf:test-${randomUUID()}:`, scheduledMaintenance: false, modules: TEST_MODULES });

export async function startTestApp(
  options: {
    env?: Record<string, string | undefined>;
    clock?: () => Date;
    database?: Database;
    scheduledMaintenance?: boolean;
    loginWait?: (ms: number) => Promise<void>;
  } = {},
): Promise<TestApp> {
  const config = testConfig(options.env);
  // On the embedded engine, a database of the app's own, empty and migrated (test/helpers/migrated-pglite.ts); closed (given back) with the app.
  const own = !options.database && !config.databaseUrl && config.dataDir.startsWith('memory://') ? await migratedPglite() : undefined;
  const runtime = await createRuntime(config, {
    clock: options.clock,
    database: options.database ?? own,
    ...testRuntimeOptions(),
    scheduledMaintenance: options.scheduledMaintenance ?? false,
    loginWait: options.loginWait,
  }).catch(async (err: unknown) => {
    await own?.close();
    throw err;
  });
  await runtime.app.ready();
  const inject = runtime.app.inject.bind(runtime.app);
  const admin: TestApp['admin'] = (method, url, payload) =>
    inject({ method, url: `/admin${url}`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload: payload as object });

  async function workspace(opts: { plan?: Plan; rateLimitPerMinute?: number; maxBulkItems?: number } = {}): Promise<WorkspaceFixture> {
    const plan = opts.plan ?? 'enterprise';
    const created = await admin('POST', '/workspaces', { name: `ws-${Math.random().toString(36).slice(2)}`, plan });
    if (created.statusCode !== 201) throw new Error(`workspace create failed: ${created.body}`);
    const id = created.json<{ id: string }>().id;
    if (opts.rateLimitPerMinute !== undefined || opts.maxBulkItems !== undefined) {
      const patched = await admin('PATCH', `/workspaces/${id}`, {
        rateLimitPerMinute: opts.rateLimitPerMinute,
        maxBulkItems: opts.maxBulkItems,
      });
      if (patched.statusCode !== 200) throw new Error(`workspace patch failed: ${patched.body}`);
    }
    const newKey: WorkspaceFixture['newKey'] = async (scopes = SCOPES, extra = {}) => {
      const res = await admin('POST', `/workspaces/${id}/keys`, { name: extra.name ?? 'test key', scopes, expiresAt: extra.expiresAt });
      if (res.statusCode !== 201) throw new Error(`key create failed: ${res.body}`);
      return res.json<{ id: string; key: string }>();
    };
    const { key } = await newKey();
    return { id, plan, key, newKey };
  }

  const close = async () => {
    await runtime.close();
    await own?.close();
  };
  return { runtime, database: runtime.database, inject, admin, workspace, close };
}

/** Headers that authenticate as `key`. */
export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
