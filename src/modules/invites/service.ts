import { audit, auditedChange, recordAudit } from '../../core/audit.js';
import { emailKey, normalizeEmail } from '../../core/email.js';
import type { BaseCtx } from '../../core/context.js';
import type { Conn } from '../../db/connect.js';
import { isUuid, newId } from '../../db/ids.js';
import { AppError, invalid, notFound } from '../../core/errors.js';
import { secretFormat, sha256 } from '../../core/secret.js';
import { withTransaction } from '../../core/transaction.js';
import { queueMail, type Mailer } from '../mail/service.js';
import { checkNewPassword, createUser, findUser, toUser, ROLES, type Member, type Role, type User } from '../users/service.js';
import { requireWorkspace } from '../workspaces/service.js';
import { invitationMail } from './mail.js';
import * as store from './store.js';

/** operations.md §7: an invitation link is valid 7 days, once. */
export const INVITE_TTL_MS = 7 * 24 * 3600_000;
export const NAME_MAX = 100;

/** 256 random bits in base64url; only its SHA-256 is stored. */
const format = secretFormat('');
const newInviteToken = (): string => format.generate().value;
const hashInviteToken = sha256;

/** An invite as lists show it: never the token or its hash. */
export interface Invite {
  id: string;
  email: string;
  role: Role;
  expiresAt: Date;
  createdAt: Date;
  invitedBy: string | null;
}

const toInvite = (row: store.InviteRow): Invite => ({
  id: row.id,
  email: row.email,
  role: row.role as Role,
  expiresAt: row.expiresAt,
  createdAt: row.createdAt,
  invitedBy: row.invitedBy,
});

export async function createInvite({
  ctx,
  input: { workspaceId, email: typed, role, invitedBy },
  deps: { baseUrl, mailer },
}: {
  ctx: BaseCtx;
  input: { workspaceId: string; email: string; role: Role; invitedBy: string | null };
  /** With a mailer (SMTP_URL set) the invitation is also mailed, after the answer. */
  deps: { baseUrl: string; mailer?: Mailer };
}): Promise<{ id: string; email: string; role: Role; url: string; mailed: boolean; expiresAt: Date; createdAt: Date }> {
  const { db, now } = ctx;
  if (!ROLES.includes(role)) throw invalid('role', 'enum', { values: ROLES.join(', ') });
  // The form the account will have (core/email.ts): the invitation, its lock and its checks use it.
  const email = normalizeEmail(typed);
  if (!email) throw invalid('email', 'format', { format: 'email' });
  const workspace = await requireWorkspace({ ctx, input: { id: workspaceId } });
  if (await store.isMemberByEmail(db, workspaceId, email)) throw invalid('email', 'already_member');
  const token = newInviteToken();
  const url = `${baseUrl.replace(/\/+$/, '')}/app/invite?token=${token}`;
  const inviterName = invitedBy ? (await findUser({ ctx, input: { id: invitedBy } })).name : 'Linktrail';
  const row = await withTransaction(db, async (tx) => {
    await store.lockInviteEmail(tx, workspaceId, email);
    // One pending invite per address and workspace: a new one replaces (revokes) the older,
    // so only the latest link works and the list shows the address once.
    await store.revokePendingFor(tx, workspaceId, email, now);
    const invite = await store.insertInvite(tx, {
      id: newId(),
      workspaceId,
      email,
      role,
      tokenHash: hashInviteToken(token),
      invitedBy,
      expiresAt: new Date(now.getTime() + INVITE_TTL_MS),
      createdAt: now,
    });
    // In the invitation's transaction: no invitation without its mail, no mail without it.
    if (mailer)
      await queueMail(
        tx,
        mailer,
        'invitation',
        invitationMail({ to: email, workspaceName: workspace.name, inviterName, role, url, expiresAt: invite.expiresAt }),
      );
    await audit(ctx, tx, { ids: [invite.id] });
    return invite;
  });
  mailer?.wake();
  return { id: row.id, email: row.email, role: row.role as Role, url, mailed: mailer !== undefined, expiresAt: row.expiresAt, createdAt: row.createdAt };
}

/** What the accept page shows of a pending invite (operations.md §15): who invites, to what, as what. */
export async function describeInvite({ ctx, input: { token } }: { ctx: BaseCtx; input: { token: string } }) {
  if (!format.isWellFormed(token)) throw invalid('token', 'invite_invalid');
  const row = await store.findPendingWithNames(ctx.db, hashInviteToken(token), ctx.now);
  if (!row) throw invalid('token', 'invite_invalid');
  return { email: row.email, role: row.role as Role, workspaceName: row.workspaceName, inviterName: row.inviterName, expiresAt: row.expiresAt };
}

/** Pending invites of the workspace, oldest first. */
export async function listInvites({ ctx, input: { workspaceId } }: { ctx: BaseCtx; input: { workspaceId: string } }): Promise<Invite[]> {
  return (await store.listPending(ctx.db, workspaceId, ctx.now)).map(toInvite);
}

export async function revokeInvite({ ctx, input: { workspaceId, id } }: { ctx: BaseCtx; input: { workspaceId: string; id: string } }): Promise<void> {
  if (
    !isUuid(id) ||
    !(await auditedChange(
      ctx,
      (tx) => store.revokeInvite(tx, workspaceId, id, ctx.now),
      () => ({ ids: [id] }),
    ))
  )
    throw notFound('invite', id);
}

export interface AcceptedInvite {
  member: Member;
  user: User;
  /** True when the invite made a new account. */
  created: boolean;
}

/**
 * Accepts an invite as the signed-in `userId`, or with `newAccount` as a new account under the
 * invited address. The claim, the account and the membership share one transaction: any
 * refusal rolls the claim back and leaves the invite usable.
 */
export async function acceptInvite({
  ctx: { db, now },
  input: { token, userId, newAccount, ip, userAgent },
}: {
  ctx: BaseCtx;
  input: { token: string; userId?: string; newAccount?: { name: string; password: string }; ip?: string; userAgent?: string };
}): Promise<AcceptedInvite> {
  if ((userId === undefined) === (newAccount === undefined)) throw new Error('acceptInvite needs exactly one of userId and newAccount');
  if (newAccount) checkNewAccount(newAccount);
  // The hash is looked up in SQL (an index probe), so no comparison of secrets happens here.
  if (!format.isWellFormed(token)) throw invalid('token', 'invite_invalid');
  const tokenHash = hashInviteToken(token);

  return withTransaction(db, async (tx) => {
    const invite = await store.claimInvite(tx, tokenHash, now);
    if (!invite) throw invalid('token', 'invite_invalid');
    const { user, created } = await invitedAccount({ db: tx, now }, { userId, newAccount }, invite.email);
    const row = await store.insertMembershipOnce(tx, { workspaceId: invite.workspaceId, userId: user.id, role: invite.role, createdAt: now });
    if (!row) throw invalid('token', 'already_member');
    // operations.md §15: joining is a change of the workspace's members, in its audit log, in this transaction.
    const actor = { kind: 'user' as const, id: user.id, userId: user.id };
    await recordAudit(tx, { id: newId(), workspaceId: invite.workspaceId, actor, action: 'member.joined', ids: [user.id, invite.id], at: now, ip, userAgent });
    return { member: { workspaceId: row.workspaceId, userId: row.userId, role: row.role as Role, createdAt: row.createdAt }, user, created };
  });
}

/**
 * The account accepting an invitation to `email` (a workspace's or a partner program's), in the
 * caller's transaction: the signed-in `userId`, whose e-mail must be the invited one, or a new
 * account under that e-mail (an existing one must sign in instead).
 */
export async function invitedAccount(
  txCtx: BaseCtx,
  who: { userId?: string; newAccount?: { name: string; password: string } },
  email: string,
): Promise<{ user: User; created: boolean }> {
  return who.userId !== undefined ? invitedUser(txCtx.db, who.userId, email) : newInvitedUser(txCtx, who.newAccount!, email);
}

export function checkNewAccount({ name, password }: { name: string; password: string }): void {
  const length = [...name].length;
  if (length < 1 || name.trim() === '') throw invalid('name', 'min_length', { limit: 1 });
  if (length > NAME_MAX) throw invalid('name', 'max_length', { limit: NAME_MAX });
  checkNewPassword(password, 'password');
}

async function invitedUser(tx: Conn, userId: string, email: string): Promise<{ user: User; created: false }> {
  const row = isUuid(userId) ? await store.findUser(tx, userId) : undefined;
  if (!row) throw notFound('user', userId);
  if (emailKey(row.email) !== emailKey(email)) throw invalid('token', 'invite_other_email');
  return { user: toUser(row), created: false };
}

async function newInvitedUser(txCtx: BaseCtx, account: { name: string; password: string }, email: string): Promise<{ user: User; created: true }> {
  // Someone who already has an account proves it by signing in, not by choosing a password.
  if (await store.findUserByEmail(txCtx.db, emailKey(email))) throw invalid('token', 'sign_in_to_accept');
  try {
    return { user: await createUser({ ctx: txCtx, input: { email, name: account.name, password: account.password } }), created: true };
  } catch (err) {
    // An account made with this address since the check above.
    if (err instanceof AppError && err.params.reasonCode === 'email_taken') throw invalid('token', 'sign_in_to_accept');
    throw err;
  }
}
