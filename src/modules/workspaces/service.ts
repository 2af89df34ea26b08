import { audit, type AuditChange } from '../../core/audit.js';
import type { BaseCtx } from '../../core/context.js';
import { newId } from '../../db/ids.js';
import { invalid, notFound } from '../../core/errors.js';
import { withTransaction } from '../../core/transaction.js';
import { PLAN_LIMITS, type Plan } from '../../core/plans.js';
import type { Workspace } from '../../core/workspace.js';
import * as store from './store.js';

// The workspace a request acts in (http/auth.ts) is this whole record.
declare module '../../http/auth.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging widens http's view
  interface ActingWorkspace extends Workspace {}
}

/** The limits in force: the workspace's override if set, else its plan's value. */
export function toWorkspace(row: store.WorkspaceRow): Workspace {
  const plan = row.plan as Plan;
  return {
    id: row.id,
    name: row.name,
    plan,
    rateLimitPerMinute: row.rateLimitOverride ?? PLAN_LIMITS[plan].requestsPerMinute,
    maxBulkItems: row.maxBulkItemsOverride ?? PLAN_LIMITS[plan].maxBulkItems,
    requireMfa: row.requireMfa,
    createdAt: row.createdAt,
  };
}

export async function createWorkspace({ ctx, input }: { ctx: BaseCtx; input: { name: string; plan?: Plan } }): Promise<Workspace> {
  return toWorkspace(await store.insertWorkspace(ctx.db, { id: newId(), name: input.name, plan: input.plan ?? 'free' }));
}

export async function listWorkspaces({ ctx }: { ctx: BaseCtx }): Promise<Workspace[]> {
  return (await store.listWorkspaces(ctx.db)).map(toWorkspace);
}

export interface WorkspacePatch {
  name?: string;
  plan?: Plan;
  rateLimitPerMinute?: number | null;
  maxBulkItems?: number | null;
}

export async function updateWorkspace({ ctx, input }: { ctx: BaseCtx; input: WorkspacePatch & { id: string } }): Promise<Workspace> {
  const { id } = input;
  const patch: Parameters<typeof store.updateWorkspace>[2] = {};
  if (input.name !== undefined) patch.name = input.name;
  if (input.plan !== undefined) patch.plan = input.plan;
  if (input.rateLimitPerMinute !== undefined) patch.rateLimitOverride = input.rateLimitPerMinute;
  if (input.maxBulkItems !== undefined) patch.maxBulkItemsOverride = input.maxBulkItems;
  return applyPatch(ctx, id, patch);
}

const AUDITED_FIELDS = ['name', 'plan', 'rateLimitPerMinute', 'maxBulkItems', 'requireMfa'] as const;

/** Changes a workspace, and tells the request's audit entry each value in force it changed (a plan change moves its limits too), in the same transaction. */
async function applyPatch(ctx: BaseCtx, id: string, patch: Parameters<typeof store.updateWorkspace>[2]): Promise<Workspace> {
  const row = await withTransaction(ctx.db, async (tx) => {
    const before = await store.findWorkspace(tx, id, { lock: true });
    const after = before && (await store.updateWorkspace(tx, id, patch));
    if (!before || !after) return undefined;
    const [was, is] = [toWorkspace(before), toWorkspace(after)];
    const changes: Record<string, AuditChange> = {};
    for (const field of AUDITED_FIELDS) if (was[field] !== is[field]) changes[field] = { before: was[field], after: is[field] };
    await audit(ctx, tx, { ids: [id], changes });
    return after;
  });
  if (!row) throw notFound('workspace', id);
  return toWorkspace(row);
}

export async function requireWorkspace({ ctx, input: { id } }: { ctx: BaseCtx; input: { id: string } }): Promise<Workspace> {
  const row = await store.findWorkspace(ctx.db, id);
  if (!row) throw notFound('workspace', id);
  return toWorkspace(row);
}

/** A workspace on the free plan with `userId` as its owner, in one transaction. */
export async function createOwnedWorkspace({ ctx, input: { userId, name } }: { ctx: BaseCtx; input: { userId: string; name: string } }): Promise<Workspace> {
  return withTransaction(ctx.db, async (tx) => {
    const workspace = toWorkspace(await store.insertWorkspace(tx, { id: newId(), name, plan: 'free' }));
    await store.insertOwner(tx, workspace.id, userId);
    return workspace;
  });
}

/**
 * An owner's settings: the name, and whether members need a second factor. An owner without
 * one cannot require it (they would be the first refused).
 */
export async function changeSettings({
  ctx,
  input: { id, name, requireMfa },
  deps,
}: {
  ctx: BaseCtx;
  input: { id: string; name?: string; requireMfa?: boolean };
  deps: { callerHasSecondFactor: () => Promise<boolean> };
}): Promise<Workspace> {
  if (name === undefined && requireMfa === undefined) throw invalid('name', 'required');
  if (requireMfa === true && !(await deps.callerHasSecondFactor())) throw invalid('requireMfa', 'mfa_enrol_first');
  const patch: Parameters<typeof store.updateWorkspace>[2] = {};
  if (name !== undefined) patch.name = name;
  if (requireMfa !== undefined) patch.requireMfa = requireMfa;
  return applyPatch(ctx, id, patch);
}
