import type { Readable } from 'node:stream';
import type { BaseCtx } from '../../core/context.js';
import { csvStream } from '../../core/csv.js';
import { periodOf } from '../analytics/service.js';
import { signInAction, type SignInMethod, type SignInOutcome } from './actions.js';
import * as store from './store.js';

export { signInAction, type SignInMethod, type SignInOutcome } from './actions.js';

export interface AuditQuery {
  workspaceId: string;
  take: number;
  skip: number;
  sort: 'asc' | 'desc';
  actor?: string;
  action?: string;
  startDate?: string;
  endDate?: string;
}

export interface AuditEntry {
  id: string;
  at: Date;
  actor: { kind: store.EntryRow['actorKind']; id: string; userId: string | null; name: string | null };
  action: string;
  targetIds: string[];
  counts: Record<string, number>;
  changes: store.EntryRow['changes'];
  ip: string | null;
  userAgent: string | null;
}

const view = (r: store.EntryRow): AuditEntry => ({
  id: r.id,
  at: r.at,
  actor: { kind: r.actorKind, id: r.actorId, userId: r.actorUserId, name: r.actorName },
  action: r.action,
  targetIds: r.targetIds,
  counts: r.counts,
  changes: r.changes,
  ip: r.ip,
  userAgent: r.userAgent,
});

/** The filter of a query, or 'empty' when its period leaves nothing (dates read as GET /api/analytics reads them). */
function filterOf(q: AuditQuery): store.EntryFilter | 'empty' {
  const period = periodOf(q);
  if (period === 'empty') return 'empty';
  return { workspaceId: q.workspaceId, actor: q.actor, action: q.action, start: period.start, end: period.end, endExclusive: period.endExclusive };
}

export async function listAuditLog({ ctx, input }: { ctx: BaseCtx; input: AuditQuery }): Promise<AuditEntry[]> {
  const f = filterOf(input);
  if (f === 'empty') return [];
  return (await store.listEntries(ctx.db, f, input)).map(view);
}

/** The most actors the filter's list offers (the most recent first). */
export const MAX_ACTORS = 500;

/** Who appears in the workspace's log, each with the id the actor filter takes and a name to show. */
export function auditActors({ ctx, input }: { ctx: BaseCtx; input: { workspaceId: string } }) {
  return store.listActors(ctx.db, input.workspaceId, MAX_ACTORS);
}

export const AUDIT_CSV_COLUMNS = [
  'at',
  'actorKind',
  'actorId',
  'actorUserId',
  'actorName',
  'action',
  'targetIds',
  'counts',
  'changes',
  'ip',
  'userAgent',
] as const;
type CsvRow = Record<(typeof AUDIT_CSV_COLUMNS)[number], unknown>;

/** The entries as CSV (core/csv.ts), a page at a time: `take` rows when given, else every entry past `skip`. */
export function auditCsv({ ctx, input }: { ctx: BaseCtx; input: { query: AuditQuery; window: { take?: number; skip: number } } }): Readable {
  const f = filterOf(input.query);
  const PAGE = 1000;
  async function* pages(): AsyncGenerator<CsvRow[]> {
    if (f === 'empty') return;
    let skip = input.window.skip;
    let left = input.window.take ?? Number.POSITIVE_INFINITY;
    while (left > 0) {
      const take = Math.min(PAGE, left);
      const found = await store.listEntries(ctx.db, f, { take, skip, sort: input.query.sort });
      yield found.map((r) => ({
        at: r.at instanceof Date ? r.at.toISOString() : new Date(r.at).toISOString(),
        actorKind: r.actorKind,
        actorId: r.actorId,
        actorUserId: r.actorUserId,
        actorName: r.actorName,
        action: r.action,
        targetIds: r.targetIds.join(' '),
        counts: r.counts,
        changes: r.changes,
        ip: r.ip,
        userAgent: r.userAgent,
      }));
      if (found.length < take) return;
      skip += take;
      left -= take;
    }
  }
  return csvStream<CsvRow>(AUDIT_CSV_COLUMNS, pages());
}

/**
 * Records a sign-in attempt of a known person: in their own security log and in the audit log
 * of each workspace they belong to. For the sign-in methods of other modules (password, second
 * factor, passkey, SSO). An attempt for an unknown e-mail names nobody and is not recorded.
 */
export async function recordSignIn({
  ctx,
  input,
}: {
  ctx: BaseCtx;
  input: { userId: string; method: SignInMethod; outcome: SignInOutcome; ip?: string; userAgent?: string };
}): Promise<void> {
  await store.insertSignIn(ctx.db, { ...input, userAgent: input.userAgent?.slice(0, 500), at: ctx.now, action: signInAction(input.method, input.outcome) });
}

export async function securityLog({ ctx, input }: { ctx: BaseCtx; input: { userId: string; take: number; skip: number } }) {
  return store.listSignIns(ctx.db, input.userId, input);
}

/** Deletes entries and sign-ins older than `days` (AUDIT_RETENTION_DAYS) by the database's clock: a step of the periodic maintenance. */
export async function forgetOldAudit({ ctx, input }: { ctx: BaseCtx; input: { days: number } }) {
  return store.deleteOlderThan(ctx.db, input.days);
}
