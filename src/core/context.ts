import type { Conn } from '../db/connect.js';
import type { AuditIntent } from './audit.js';
import type { Workspace } from './workspace.js';

/**
 * What every service operation gets: the database or open transaction, and the time (so expiry
 * is testable). Operations that act for a person or the operator, in no workspace, take this.
 */
export interface BaseCtx {
  db: Conn;
  now: Date;
  /**
   * The audit entry of the request served, when its route is audited (audit/hook.ts): the
   * service writes it with `audit(ctx, tx, …)` in the transaction of its change. Absent outside
   * an audited request (the CLI, a job): `audit` then writes nothing.
   */
  auditIntent?: AuditIntent;
}

/** What a service operation of a workspace resource gets: also the workspace it acts in. */
export interface Ctx extends BaseCtx {
  /**
   * Analytics reads only (they may lag `db` by the replica's delay): a read replica when
   * DATABASE_READ_URL is set, else the same database as `db`. Absent: `db`. Writes and reads
   * that must see them never use it.
   */
  analyticsDb?: Conn;
  workspace: Workspace;
}

/** The connection an analytics read uses: the replica when there is one, else the primary. */
export const analyticsConn = (ctx: Ctx): Conn => ctx.analyticsDb ?? ctx.db;

/** What a routes plugin of a workspace resource is given. */
export interface ResourceDeps {
  db: Conn;
  /**
   * Where analytics reads go now: the read replica (DATABASE_READ_URL) while it is at most 5 s
   * behind, else `db` (db/replica-lag.ts). Absent: `db`.
   */
  analyticsDb?: () => Conn;
  /**
   * Where the statements of expensive requests go (http/heavy-requests.ts): a smaller pool with a
   * shorter statement timeout, so they never take the connections every other request needs.
   * Absent (PGlite, a tiny DB_POOL_SIZE): `db`.
   */
  heavyDb?: Conn;
  clock: () => Date;
}

/** What a context takes of the request it serves (structurally, so the kernel knows no Fastify): the audit entry of a request that changes a workspace. */
export interface AuditedRequest {
  auditIntent?: AuditIntent;
  /** Set on an expensive request holding its slot: it reads through `heavyDb`. */
  heavy?: boolean;
}

/**
 * What a service needs to act for the caller of a scoped route: its workspace, the databases,
 * the time. Takes the request's principal, and its audit entry (which the service writes).
 */
export function serviceContext(deps: ResourceDeps, request: AuditedRequest & { principal?: { workspace: Workspace } }): Ctx {
  if (!request.principal) throw new Error('a scoped route ran without a principal');
  const db = (request.heavy && deps.heavyDb) || deps.db;
  // The replica when analytics reads go there now; otherwise the same pool as `db`.
  const analytics = deps.analyticsDb?.();
  const analyticsDb = analytics === undefined || analytics === deps.db ? db : analytics;
  return { db, analyticsDb, workspace: request.principal.workspace, now: deps.clock(), auditIntent: request.auditIntent };
}

/** What the routes of a person's or the operator's settings are given. */
export interface PeopleDeps {
  db: Conn;
  clock: () => Date;
  /** Every instance forgets cached credentials and memberships: a change holds on the next request everywhere. */
  authChanged: () => Promise<void>;
}

/** …and for routes whose lists show last uses: writes the batched ones first. */
export interface PeopleListDeps extends PeopleDeps {
  flushLastUsed: () => Promise<void>;
}

/**
 * A routes plugin's context maker: `ctx(request)` for a request at the time of the call,
 * `ctx(request, now)` when one time must serve several calls; `ctx(undefined)` outside a request.
 */
export const baseContext =
  (deps: { db: Conn; clock: () => Date }) =>
  (request: AuditedRequest | undefined, now = deps.clock()): BaseCtx => ({ db: deps.db, now, auditIntent: request?.auditIntent });
