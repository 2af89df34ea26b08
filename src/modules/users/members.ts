import { audit } from '../../core/audit.js';
import type { BaseCtx } from '../../core/context.js';
import type { Conn } from '../../db/connect.js';
import { AppError, invalid, notFound } from '../../core/errors.js';
import { withTransaction } from '../../core/transaction.js';
import type { Workspace } from '../../core/workspace.js';
import { toWorkspace } from '../workspaces/service.js';
import type { Role } from './roles.js';
import * as store from './store.js';

export interface MemberView {
  userId: string;
  email: string;
  name: string;
  role: Role;
  createdAt: Date;
}

/** The user's role in a workspace, with the workspace, or undefined for a non-member: one indexed query. */
export async function membershipFor({
  ctx,
  input: { userId, workspaceId },
}: {
  ctx: BaseCtx;
  input: { userId: string; workspaceId: string };
}): Promise<{ role: Role; workspace: Workspace } | undefined> {
  const row = await store.membershipWithWorkspace(ctx.db, workspaceId, userId);
  return row && { role: row.role as Role, workspace: toWorkspace(row.workspace) };
}

/** A person's role in a workspace, or undefined for a non-member (http/auth.ts enforces routes' `workspaceRole` with it). */
export async function roleIn({ ctx, input }: { ctx: BaseCtx; input: { userId: string; workspaceId: string } }): Promise<Role | undefined> {
  return (await membershipFor({ ctx, input }))?.role;
}

export async function listMembers({ ctx, input: { workspaceId } }: { ctx: BaseCtx; input: { workspaceId: string } }): Promise<MemberView[]> {
  return (await store.membersOf(ctx.db, workspaceId)).map((m) => ({ ...m, role: m.role as Role }));
}

/** A role change that would leave no owner is a 400; the owners are locked while it is decided. */
export async function changeRole({
  ctx,
  input: { workspaceId, userId, role },
}: {
  ctx: BaseCtx;
  input: { workspaceId: string; userId: string; role: Role };
}): Promise<MemberView> {
  await withTransaction(ctx.db, async (tx) => {
    const owners = await store.lockOwners(tx, workspaceId);
    if (role !== 'owner' && owners.length === 1 && owners[0] === userId) throw invalid('role', 'last_owner');
    const changed = await store.setRole(tx, workspaceId, userId, role);
    if (!changed) throw notFound('member', userId);
    await audit(ctx, tx, { ids: [userId], changes: { role: { before: changed.before, after: role } } });
  });
  const member = (await listMembers({ ctx, input: { workspaceId } })).find((m) => m.userId === userId);
  return member!;
}

/** Removes a member (never the last owner); `onRemoved` ends what the membership granted (their tokens) in the same transaction. */
export async function removeMember({
  ctx,
  input: { workspaceId, userId, by },
  deps: { onRemoved },
}: {
  ctx: BaseCtx;
  input: {
    workspaceId: string;
    userId: string;
    /** Who removes: an owner removes anyone; anyone may remove themselves. */
    by: { userId: string; role: Role };
  };
  deps: { onRemoved: (tx: Conn) => Promise<unknown> };
}): Promise<void> {
  if (userId !== by.userId && by.role !== 'owner') throw new AppError('owner_required');
  await withTransaction(ctx.db, async (tx) => {
    const owners = await store.lockOwners(tx, workspaceId);
    if (owners.length === 1 && owners[0] === userId) throw invalid('userId', 'last_owner');
    const role = await store.deleteMembership(tx, workspaceId, userId);
    if (!role) throw notFound('member', userId);
    await onRemoved(tx);
    await audit(ctx, tx, { ids: [userId], changes: { role: { before: role, after: null } } });
  });
}
