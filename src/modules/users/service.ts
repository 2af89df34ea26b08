import { audit } from '../../core/audit.js';
import type { BaseCtx } from '../../core/context.js';
import { isUniqueViolation, withTransaction } from '../../core/transaction.js';
import { newId } from '../../db/ids.js';
import { emailKey, normalizeEmail } from '../../core/email.js';
import { invalid, notFound } from '../../core/errors.js';
import { requireWorkspace, toWorkspace } from '../workspaces/service.js';
import { type Workspace } from '../../core/workspace.js';
import { checkNewPassword, hashPassword, verifyPassword } from './password.js';
import * as store from './store.js';

import type { Role } from './roles.js';

export { ROLE_SCOPES, ROLES, type Role } from './roles.js';
export { changeRole, listMembers, membershipFor, removeMember, roleIn, type MemberView } from './members.js';
export { checkNewPassword, decoyHash, verifyPassword } from './password.js';

/** A user as every answer shows one: never the password hash. */
export interface User {
  id: string;
  email: string;
  name: string;
  createdAt: Date;
}

export const toUser = (row: store.UserRow): User => ({ id: row.id, email: row.email, name: row.name, createdAt: row.createdAt });

export async function createUser({ ctx: { db }, input }: { ctx: BaseCtx; input: { email: string; name: string; password: string } }): Promise<User> {
  // Every way an account is made comes here: the address is stored in its one form (core/email.ts).
  const email = normalizeEmail(input.email);
  if (!email) throw invalid('email', 'format', { format: 'email' });
  checkNewPassword(input.password);
  if (await store.findUserByEmail(db, email)) throw invalid('email', 'email_taken');
  const passwordHash = await hashPassword(input.password);
  try {
    return toUser(await store.insertUser(db, { id: newId(), email, name: input.name, passwordHash }));
  } catch (err) {
    // Two sign-ups with one address at once: the unique index decides.
    if (isUniqueViolation(err)) throw invalid('email', 'email_taken');
    throw err;
  }
}

export async function listUsers({ ctx }: { ctx: BaseCtx }): Promise<User[]> {
  return (await store.listUsers(ctx.db)).map(toUser);
}

export const anyUser = ({ ctx }: { ctx: BaseCtx }): Promise<boolean> => store.anyUser(ctx.db);

export interface Member {
  workspaceId: string;
  userId: string;
  role: Role;
  createdAt: Date;
}

export async function addMember({
  ctx,
  input: { workspaceId, userId, role },
}: {
  ctx: BaseCtx;
  input: { workspaceId: string; userId: string; role: Role };
}): Promise<Member> {
  const { db } = ctx;
  await requireWorkspace({ ctx, input: { id: workspaceId } });
  if (!(await store.findUser(db, userId))) throw notFound('user', userId);
  if (await store.findMembership(db, workspaceId, userId)) throw invalid('userId', 'already_member');
  try {
    const row = await withTransaction(db, async (tx) => {
      const inserted = await store.insertMembership(tx, { workspaceId, userId, role });
      await audit(ctx, tx, { ids: [userId], changes: { role: { before: null, after: role } } });
      return inserted;
    });
    return { workspaceId: row.workspaceId, userId: row.userId, role: row.role as Role, createdAt: row.createdAt };
  } catch (err) {
    if (isUniqueViolation(err)) throw invalid('userId', 'already_member');
    throw err;
  }
}

export async function workspacesOf({ ctx, input: { userId } }: { ctx: BaseCtx; input: { userId: string } }): Promise<(Workspace & { role: Role })[]> {
  return (await store.workspacesOf(ctx.db, userId)).map((r) => ({ ...toWorkspace(r.workspace), role: r.role as Role }));
}

/** For sign-in only: the user and their password hash (never part of an answer). */
export async function findCredentials({
  ctx,
  input: { email },
}: {
  ctx: BaseCtx;
  input: { email: string };
}): Promise<{ user: User; passwordHash: string } | undefined> {
  const row = await store.findUserByEmail(ctx.db, emailKey(email));
  return row && { user: toUser(row), passwordHash: row.passwordHash };
}

/**
 * A person's own changes. Every change needs the current password (a stolen session alone
 * cannot take the account over); a new password ends the user's other sessions (`endOtherSessions`).
 */
export async function updateProfile({
  ctx: { db, now },
  input,
  deps: { endOtherSessions, throttle },
}: {
  ctx: BaseCtx;
  input: { userId: string; name?: string; password?: string; currentPassword: string };
  deps: {
    endOtherSessions: () => Promise<unknown>;
    /** Wrong current passwords count like failed sign-ins (a stolen session cannot guess its way to the account). */
    throttle?: { before(email: string): Promise<void>; failed(email: string): Promise<void> };
  };
}): Promise<User> {
  const { userId } = input;
  await verifyCurrentPassword({ ctx: { db, now }, input: { userId, password: input.currentPassword }, deps: { throttle } });
  const patch: { name?: string; passwordHash?: string; updatedAt: Date } = { updatedAt: now };
  if (input.name !== undefined) patch.name = input.name;
  if (input.password !== undefined) {
    checkNewPassword(input.password);
    patch.passwordHash = await hashPassword(input.password);
  }
  const updated = await store.updateUser(db, userId, patch);
  if (input.password !== undefined) await endOtherSessions();
  return toUser(updated!);
}

/** The user with this email (ignoring case), if any. */
export async function findUserByEmail({ ctx, input: { email } }: { ctx: BaseCtx; input: { email: string } }): Promise<User | undefined> {
  const row = await store.findUserByEmail(ctx.db, emailKey(email));
  return row && toUser(row);
}

/** Sets a new password without the current one: a reset link proved the mailbox (operations.md §15). */
export async function setPassword({
  ctx: { db, now },
  input: { userId, password },
}: {
  ctx: BaseCtx;
  input: { userId: string; password: string };
}): Promise<void> {
  checkNewPassword(password);
  await store.updateUser(db, userId, { passwordHash: await hashPassword(password), updatedAt: now });
}

/**
 * Checks a signed-in person's password before a change that needs it (`field` names it in the
 * 400); wrong ones count like failed sign-ins, so a stolen session cannot guess its way on.
 */
export async function verifyCurrentPassword({
  ctx,
  input: { userId, password, field = 'currentPassword' },
  deps: { throttle },
}: {
  ctx: BaseCtx;
  input: { userId: string; password: string; field?: string };
  deps: { throttle?: { before(email: string): Promise<void>; failed(email: string): Promise<void> } };
}): Promise<User> {
  const row = await store.findUser(ctx.db, userId);
  if (!row) throw notFound('user', userId);
  await throttle?.before(emailKey(row.email));
  if (!(await verifyPassword(row.passwordHash, password))) {
    await throttle?.failed(emailKey(row.email));
    throw invalid(field, 'wrong_password');
  }
  return toUser(row);
}

export async function findUser({ ctx, input: { id } }: { ctx: BaseCtx; input: { id: string } }): Promise<User> {
  const row = await store.findUser(ctx.db, id);
  if (!row) throw notFound('user', id);
  return toUser(row);
}
