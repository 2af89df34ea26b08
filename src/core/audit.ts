import { sql } from 'drizzle-orm';
import { arrayParam, type Conn, type Tx } from '../db/connect.js';
import { afterCommit, withTransaction } from './transaction.js';

/**
 * Who made a change: a session's person, an API key, a human token, an OAuth app's token, the
 * operator (ADMIN_TOKEN), or someone applying to the partner program (id: the partner it made).
 */
export interface AuditActor {
  kind: 'user' | 'key' | 'token' | 'app' | 'operator' | 'applicant';
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
 * The audit entry a request that changes a workspace makes (operations.md §15): who, where,
 * when and which action, known before the route runs. The audit module's hook opens one per
 * audited route and the route puts it on the context it builds (`ctx.auditIntent`,
 * core/context.ts); the service writes it with `audit(ctx, tx, …)` in the transaction of its
 * change. `id` is the entry's: a request of several transactions adds to one row. On the context,
 * not in an AsyncLocalStorage: in Node 20 one in use turns on async hooks for every promise of
 * the process, the redirect's included (BENCHMARKS.md).
 */
export interface AuditIntent {
  id: string;
  /**
   * Undefined only for an operator's request on a record whose workspace the change itself tells
   * (DELETE /admin/keys/:id): the service names it (`AuditNote.workspaceId`).
   */
  workspaceId: string | undefined;
  actor: AuditActor;
  action: string;
  ip: string | undefined;
  userAgent: string | undefined;
  at: Date;
  /** Whether a transaction of the request wrote the entry and committed: an audited success without one is a bug (audit/hook.ts). */
  written: boolean;
}

/** What a service did, as its entry tells it. */
export interface AuditNote {
  /** The records changed (ids; at most MAX_AUDIT_IDS are kept). */
  ids?: readonly string[];
  /** A bulk request's numbers: `created`, `updated`, `deleted`. Added up over the request's transactions. */
  counts?: Record<string, number>;
  /** Settings changed, by name (a member's `role`, a workspace's `plan`…): the first `before`, the last `after`. */
  changes?: Record<string, AuditChange>;
  /** The workspace changed, when the request names none (an operator's route on a record: DELETE /admin/keys/:id). */
  workspaceId?: string;
}

/** What `audit` reads of a service's context: the entry of the request it serves, if that request is audited. */
export interface AuditedCtx {
  auditIntent?: AuditIntent;
}

/**
 * Writes what the service did to the entry of the request `ctx` serves, in `tx`, the transaction
 * of the change: the change and its entry commit together, and an entry that cannot be written
 * fails the change. Nothing outside an audited request (the CLI, a job, a route not audited).
 * Each call adds to the request's one entry (ids, counts and changes merge in the row itself,
 * so a transaction rolled back takes its part with it).
 */
export async function audit(ctx: AuditedCtx, tx: Tx, note: AuditNote = {}): Promise<void> {
  const intent = ctx.auditIntent;
  if (!intent) return;
  // A connection, not a transaction: the entry could commit without the change, or the change without it.
  if (!('rollback' in tx)) throw new Error(`audit(${intent.action}) outside a transaction`);
  const workspaceId = note.workspaceId?.toLowerCase() ?? intent.workspaceId;
  if (!workspaceId) throw new Error(`audit(${intent.action}) without a workspace`);
  await writeEntry(tx, { ...intent, workspaceId, ids: note.ids ?? [], counts: note.counts ?? {}, changes: note.changes ?? {} });
  // Written once committed: a transaction rolled back after this (the route answering a success all the same) leaves none.
  afterCommit(tx, () => (intent.written = true));
}

/**
 * One entry written by a service itself, in its transaction, for a change no audited route
 * makes (an invitation accepted: the workspace is known only inside it).
 */
export async function recordAudit(
  tx: Tx,
  entry: {
    id: string;
    workspaceId: string;
    actor: AuditActor;
    action: string;
    ids: string[];
    at: Date;
    ip?: string;
    userAgent?: string;
    changes?: Record<string, AuditChange>;
  },
): Promise<void> {
  await writeEntry(tx, { ...entry, ip: entry.ip, userAgent: entry.userAgent?.slice(0, 500), counts: {}, changes: entry.changes ?? {} });
}

interface EntryWrite {
  id: string;
  workspaceId: string;
  actor: AuditActor;
  action: string;
  ip: string | undefined;
  userAgent: string | undefined;
  at: Date;
  ids: readonly string[];
  counts: Record<string, number>;
  changes: Record<string, AuditChange>;
}

/**
 * Inserts the entry, or adds to the row a previous transaction of the same request wrote: ids
 * appended (each once, up to MAX_AUDIT_IDS), counts added up, changes merged (a setting's first
 * `before`, its last `after`).
 */
async function writeEntry(tx: Tx, e: EntryWrite): Promise<void> {
  const ids = [...new Set(e.ids.map((id) => id.toLowerCase()))].slice(0, MAX_AUDIT_IDS);
  // One parameter, not one per id (10,000 bind parameters cost more than the JSON).
  const idArray = arrayParam(ids, 'text');
  await tx.execute(sql`
    INSERT INTO audit_entries AS e (id, workspace_id, at, actor_kind, actor_id, actor_user_id, action, target_ids, counts, changes, ip, user_agent)
    VALUES (${e.id}::uuid, ${e.workspaceId}::uuid, ${e.at.toISOString()}::timestamptz, ${e.actor.kind}, ${e.actor.id},
            ${e.actor.userId ?? null}::uuid, ${e.action}, ${idArray}, ${JSON.stringify(e.counts)}::jsonb,
            ${JSON.stringify(e.changes)}::jsonb, ${e.ip ?? null}, ${e.userAgent ?? null})
    ON CONFLICT (id) DO UPDATE SET
      target_ids = ARRAY(SELECT t.id FROM unnest(e.target_ids || EXCLUDED.target_ids) WITH ORDINALITY AS t(id, n)
                         GROUP BY t.id ORDER BY min(t.n) LIMIT ${MAX_AUDIT_IDS}),
      counts = (SELECT coalesce(jsonb_object_agg(c.key, c.total), '{}'::jsonb)
                FROM (SELECT key, sum(value::bigint) AS total
                      FROM (SELECT * FROM jsonb_each_text(e.counts) UNION ALL SELECT * FROM jsonb_each_text(EXCLUDED.counts)) AS both_counts
                      GROUP BY key) AS c),
      changes = (SELECT coalesce(jsonb_object_agg(key, jsonb_build_object('before', coalesce(o.v, n.v) -> 'before', 'after', coalesce(n.v, o.v) -> 'after')), '{}'::jsonb)
                 FROM jsonb_each(e.changes) AS o(key, v) FULL JOIN jsonb_each(EXCLUDED.changes) AS n(key, v) USING (key))`);
}

/**
 * The entry of an audited act that changes no row (a domain's verification checked while it is
 * already active, a test event sent): written alone, in a transaction of its own.
 */
export async function auditAct(ctx: AuditedCtx & { db: Conn }, note: AuditNote = {}): Promise<void> {
  if (ctx.auditIntent) await withTransaction(ctx.db, (tx) => audit(ctx, tx, note));
}

/**
 * `change` in a transaction that also writes the request's entry, with what `note` tells of the
 * record changed. A change that found nothing to change (undefined, null or false: the service
 * answers 404) writes none.
 */
export function auditedChange<T>(
  ctx: AuditedCtx & { db: Conn },
  change: (tx: Tx) => Promise<T>,
  note: (changed: Exclude<T, undefined | null | false>) => AuditNote,
): Promise<T> {
  return withTransaction(ctx.db, async (tx) => {
    const changed = await change(tx);
    if (changed !== undefined && changed !== null && changed !== false) await audit(ctx, tx, note(changed as Exclude<T, undefined | null | false>));
    return changed;
  });
}
