import { sql } from 'drizzle-orm';
import { arrayParam, type Conn } from '../db/connect.js';

/** Who made a change: a session's person, an API key, a human token, an OAuth app's token, or the operator (ADMIN_TOKEN). */
export interface AuditActor {
  kind: 'user' | 'key' | 'token' | 'app' | 'operator';
  id: string;
  /** The person behind a session, a human token or an app's token. */
  userId?: string;
}

/** The operator's API (operations.md §2) names nobody: its entries' actor is this one. */
export const OPERATOR_ACTOR: AuditActor = { kind: 'operator', id: 'operator' };

/** A setting's value before and after a change (null: it had none, or has none now — a member added or removed). */
export interface AuditChange {
  before: AuditValue;
  after: AuditValue;
}
export type AuditValue = string | number | boolean | null;

/** At most this many target ids are kept on one entry (a bulk request's maximum). */
export const MAX_AUDIT_IDS = 10_000;

/**
 * The audit entry a request that changes a workspace is making (operations.md §15). The audit
 * module opens one per mutating workspace route; `withTransaction` writes it inside every
 * transaction the request commits, so a change and its entry commit together or not at all.
 * `id` is the entry's: a request of several transactions adds to one row.
 */
export interface AuditIntent {
  id: string;
  /**
   * Undefined only for an operator's request on a record whose workspace the change itself tells
   * (DELETE /admin/keys/:id): the first result naming a `workspaceId` places it (absorbResult).
   * An entry with no workspace is not written.
   */
  workspaceId: string | undefined;
  actor: AuditActor;
  action: string;
  ip: string | undefined;
  userAgent: string | undefined;
  at: Date;
  ids: Set<string>;
  counts: Record<string, number>;
  /** Settings the request changed, by name: a member's `role`, a workspace's `plan`… */
  changes: Record<string, AuditChange>;
  /** Whether a committed transaction holds the entry (else the route's answer writes it). */
  written: boolean;
  /** Cleared when the answer is sent: a timer the request started must not add to its entry. */
  open: boolean;
}

/*
 * The intent rides on the request's connection, not on an AsyncLocalStorage: in Node 20 one
 * AsyncLocalStorage in use turns on async hooks for every promise of the process, the
 * redirect's included (6–10 % of its throughput, BENCHMARKS.md).
 */
const INTENT = Symbol('the audit entry of the request this connection serves');

/** `conn` for the request making `intent`: the same connection to every query; the transactions it opens write the entry. */
export function auditedConn<C extends Conn>(conn: C, intent: AuditIntent | undefined): C {
  if (!intent || 'rollback' in conn) return conn;
  return Object.create(conn, { [INTENT]: { value: intent } }) as C;
}

/** The entry the request a connection serves is making, while that request is open. */
export function auditOf(conn: Conn): AuditIntent | undefined {
  const intent = (conn as { [INTENT]?: AuditIntent })[INTENT];
  return intent?.open ? intent : undefined;
}

/**
 * Records on the entry of the request `conn` serves what a setting was and became, and whose it
 * is (`targetId`: the member whose role changed). Called with the request's connection (ctx.db),
 * before the transaction that makes the change returns; nothing without an open entry.
 */
export function auditChange(conn: Conn, change: { targetId?: string; field: string; before: AuditValue; after: AuditValue }): void {
  const intent = auditOf(conn);
  if (!intent) return;
  if (change.targetId) absorbResult(intent, change.targetId);
  intent.changes[change.field] = { before: change.before, after: change.after };
}

/** The ids a service's result names: an id string, records with an `id`, arrays of either, `deletedIds`, one level deep; and an unplaced entry's workspace. */
export function absorbResult(intent: AuditIntent, result: unknown): void {
  if (intent.workspaceId === undefined) intent.workspaceId = workspaceNamed(result);
  const add = (v: unknown) => {
    if (intent.ids.size >= MAX_AUDIT_IDS) return;
    if (typeof v === 'string' && UUID.test(v)) intent.ids.add(v.toLowerCase());
    else if (v && typeof v === 'object' && typeof (v as { id?: unknown }).id === 'string' && UUID.test((v as { id: string }).id)) intent.ids.add((v as { id: string }).id.toLowerCase());
  };
  if (Array.isArray(result)) result.forEach(add);
  else if (typeof result === 'string') add(result); // a path's id (audit/hook.ts) or a transaction's
  else if (result && typeof result === 'object') {
    add(result);
    for (const v of Object.values(result)) if (Array.isArray(v)) v.forEach(add);
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The `workspaceId` of a record (a revoked key, a deleted domain), lower-cased. */
function workspaceNamed(result: unknown): string | undefined {
  const named = result && typeof result === 'object' && !Array.isArray(result) ? (result as { workspaceId?: unknown }).workspaceId : undefined;
  return typeof named === 'string' && UUID.test(named) ? named.toLowerCase() : undefined;
}

/**
 * One entry written by a service itself, in its transaction, for a change the route hook cannot
 * place (the workspace is known only inside it: an invitation accepted).
 */
export async function recordAudit(
  conn: Conn,
  entry: { id: string; workspaceId: string; actor: AuditActor; action: string; ids: string[]; at: Date; ip?: string; userAgent?: string; changes?: Record<string, AuditChange> },
): Promise<void> {
  const intent: AuditIntent = {
    ...entry,
    ip: entry.ip,
    userAgent: entry.userAgent?.slice(0, 500),
    ids: new Set(entry.ids),
    counts: {},
    changes: entry.changes ?? {},
    written: false,
    open: false,
  };
  await writeAudit(conn, intent);
}

/** Writes the request's entry, or adds this transaction's ids, counts and changes to it; nothing while it has no workspace. */
export async function writeAudit(conn: Conn, intent: AuditIntent): Promise<void> {
  if (intent.workspaceId === undefined) return;
  const ids = [...intent.ids].slice(0, MAX_AUDIT_IDS);
  // One parameter, not one per id (10,000 bind parameters cost more than the JSON).
  const idArray = arrayParam(ids, 'text');
  await conn.execute(sql`
    INSERT INTO audit_entries (id, workspace_id, at, actor_kind, actor_id, actor_user_id, action, target_ids, counts, changes, ip, user_agent)
    VALUES (${intent.id}::uuid, ${intent.workspaceId}::uuid, ${intent.at.toISOString()}::timestamptz, ${intent.actor.kind}, ${intent.actor.id},
            ${intent.actor.userId ?? null}::uuid, ${intent.action}, ${idArray}, ${JSON.stringify(intent.counts)}::jsonb,
            ${JSON.stringify(intent.changes)}::jsonb, ${intent.ip ?? null}, ${intent.userAgent ?? null})
    ON CONFLICT (id) DO UPDATE SET target_ids = EXCLUDED.target_ids, counts = EXCLUDED.counts, changes = EXCLUDED.changes`);
  intent.written = true;
}
