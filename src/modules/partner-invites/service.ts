/**
 * Partner invitations (operations.md §18 "Invitations"): the owner invites a partner to the
 * portal; whoever holds the link signs in (or makes an account under the partner's e-mail) and
 * becomes that partner: their `userId` is set and an invited or pending partner is approved.
 */
import { audit, recordAudit } from '../../core/audit.js';
import type { BaseCtx, Ctx } from '../../core/context.js';
import { normalizeEmail } from '../../core/email.js';
import { AppError, invalid } from '../../core/errors.js';
import { secretFormat, sha256 } from '../../core/secret.js';
import { afterCommit, withTransaction } from '../../core/transaction.js';
import type { Tx } from '../../db/connect.js';
import { isUuid, newId } from '../../db/ids.js';
import { assertBulkSize, assertDistinct } from '../bulk/service.js';
import { queueMail, type Mailer } from '../mail/service.js';
import { claimPartner, partners, type Partner, type PartnerDeps } from '../partners/service.js';
import { findProgram } from '../program/service.js';
import { checkNewAccount, invitedAccount } from '../invites/service.js';
import type { User } from '../users/service.js';
import { requireWorkspace } from '../workspaces/service.js';
import { partnerInvitationMail } from './mail.js';
import * as store from './store.js';

/** As §7's invitations: valid 7 days, once. */
export const PARTNER_INVITE_TTL_MS = 7 * 24 * 3600_000;

/** 256 random bits in base64url; only its SHA-256 is stored. */
const format = secretFormat('');
const hashOf = (token: string): string => sha256(token).toString('hex');

/** A partner may be invited until rejected, banned or archived. */
const INVITABLE = new Set(['invited', 'pending', 'approved']);

export interface CreatedPartnerInvite {
  id: string;
  partnerId: string;
  email: string;
  url: string;
  expiresAt: Date;
}

export interface PartnerInviteDeps {
  baseUrl: string;
  /** With a mailer (SMTP_URL set) each invitation is also mailed, queued in its transaction. */
  mailer?: Mailer;
}

/**
 * Invitations for these partners, all or none (api.md rule 6: the failing index and field named):
 * each partner live, with an e-mail, not rejected, banned or archived, and not yet claimed
 * (409 `partner_claimed`). A partner's pending invitation is replaced by the new one.
 */
export async function createPartnerInvites({
  ctx,
  deps,
  input,
}: {
  ctx: Ctx;
  deps: PartnerInviteDeps;
  input: { items: { partnerId: string }[]; invitedBy: string | null };
}): Promise<CreatedPartnerInvite[]> {
  const { items } = input;
  assertBulkSize(ctx.workspace, items.length);
  const ids = items.map((i) => i.partnerId.toLowerCase());
  assertDistinct(ids, (i) => `[${i}].partnerId`);
  const found = new Map((await partners.byIds({ ctx, input: ids.filter(isUuid) })).map((p) => [p.id, p]));
  ids.forEach((id, i) => {
    const partner = found.get(id);
    if (!partner) throw invalid(`[${i}].partnerId`, 'not_found');
    if (!INVITABLE.has(partner.status)) throw invalid(`[${i}].partnerId`, 'partner_not_invitable');
    if (!partner.email || !normalizeEmail(partner.email)) throw invalid(`[${i}].partnerId`, 'partner_email_required');
    if (partner.userId) throw new AppError('partner_claimed');
  });
  const program = await findProgram({ ctx });
  if (!program) throw new AppError('program_required');
  return issuePartnerInvites({ ctx, deps, input: { partners: ids.map((id) => found.get(id)!), programName: program.name, invitedBy: input.invitedBy } });
}

/**
 * Invitations for these partners, already found invitable (each with an e-mail, nobody signing
 * in as them), mailed with a mailer: in `ctx.db`'s transaction when it is one (an application
 * approved by a partner write), else in one of its own. A partner's pending invitation is
 * replaced. What createPartnerInvites does once it has checked the request; another module's
 * service gives its own partners.
 */
export async function issuePartnerInvites({
  ctx,
  deps,
  input,
}: {
  ctx: Ctx;
  deps: PartnerInviteDeps;
  input: { partners: Partner[]; programName: string; invitedBy: string | null };
}): Promise<CreatedPartnerInvite[]> {
  const base = deps.baseUrl.replace(/\/+$/, '');
  const found = new Map(input.partners.map((p) => [p.id, p]));
  const ids = [...found.keys()];
  const made = ids.map((partnerId) => {
    const token = format.generate().value;
    return { token, id: newId(), partnerId, email: normalizeEmail(found.get(partnerId)!.email!)!, tokenHash: hashOf(token) };
  });
  const expiresAt = new Date(ctx.now.getTime() + PARTNER_INVITE_TTL_MS);
  const rows = await withTransaction(ctx.db, async (tx) => {
    await store.revokePendingOf(tx, ctx.workspace.id, ids, ctx.now);
    const inserted = await store.insertInvites(
      tx,
      ctx.workspace.id,
      made.map(({ id, partnerId, email, tokenHash }) => ({ id, partnerId, email, tokenHash, invitedBy: input.invitedBy, expiresAt, createdAt: ctx.now })),
    );
    if (deps.mailer) await mailAll(tx, deps.mailer, made, { base, programName: input.programName, found, expiresAt });
    await audit(ctx, tx, { ids: inserted.map((r) => r.id), counts: { invited: inserted.length } });
    // The worker is woken once the mail is committed (the caller's transaction may go on after this).
    const mailer = deps.mailer;
    if (mailer) afterCommit(tx, () => mailer.wake());
    return inserted;
  });
  return rows.map((row, i) => ({ id: row.id, partnerId: row.partnerId, email: row.email, url: inviteUrl(base, made[i]!.token), expiresAt: row.expiresAt }));
}

/** Whether a partner may be sent an invitation: live in the program, with an e-mail, nobody signing in as them yet. */
export const mayBeInvited = (partner: Pick<Partner, 'status' | 'email' | 'userId'>): boolean =>
  INVITABLE.has(partner.status) && !!partner.email && !!normalizeEmail(partner.email) && !partner.userId;

const inviteUrl = (base: string, token: string) => `${base}/app/partner/invite?token=${token}`;

async function mailAll(
  tx: Tx,
  mailer: Mailer,
  made: { token: string; partnerId: string; email: string }[],
  f: { base: string; programName: string; found: Map<string, Partner>; expiresAt: Date },
): Promise<void> {
  for (const m of made)
    await queueMail(
      tx,
      mailer,
      'partner-invitation',
      partnerInvitationMail({
        to: m.email,
        partnerName: f.found.get(m.partnerId)?.name ?? '',
        programName: f.programName,
        url: inviteUrl(f.base, m.token),
        expiresAt: f.expiresAt,
      }),
    );
}

/** What the accept page shows of a pending invitation: the program, the partner's name, the invited address (400 `invite_invalid` otherwise). */
export async function describePartnerInvite({ ctx, input: { token } }: { ctx: BaseCtx; input: { token: string } }) {
  if (!format.isWellFormed(token)) throw invalid('token', 'invite_invalid');
  const found = await store.describePending(ctx.db, hashOf(token), ctx.now);
  if (!found) throw invalid('token', 'invite_invalid');
  return found;
}

export interface AcceptedPartnerInvite {
  partner: Partner;
  user: User;
  /** True when the invitation made a new account. */
  created: boolean;
}

/**
 * Accepts a partner invitation as the signed-in `userId` (whose e-mail must be the invited one),
 * or with `newAccount` as a new account under the invited address. The claim of the invitation,
 * the account and the partner's claim share one transaction: a refusal leaves the invitation
 * usable.
 */
export async function acceptPartnerInvite({
  ctx,
  deps,
  input: { token, userId, newAccount, ip, userAgent },
}: {
  ctx: BaseCtx;
  deps: PartnerDeps;
  input: { token: string; userId?: string; newAccount?: { name: string; password: string }; ip?: string; userAgent?: string };
}): Promise<AcceptedPartnerInvite> {
  if ((userId === undefined) === (newAccount === undefined)) throw new Error('acceptPartnerInvite needs exactly one of userId and newAccount');
  if (newAccount) checkNewAccount(newAccount);
  // The hash is looked up in SQL (an index probe): no comparison of secrets happens here.
  if (!format.isWellFormed(token)) throw invalid('token', 'invite_invalid');
  return withTransaction(ctx.db, async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const invite = await store.claimInvite(tx, hashOf(token), ctx.now);
    if (!invite) throw invalid('token', 'invite_invalid');
    const { user, created } = await invitedAccount(txCtx, { userId, newAccount }, invite.email);
    const workspace = await requireWorkspace({ ctx: txCtx, input: { id: invite.workspaceId } });
    const partner = await claimPartner({ ctx: { ...txCtx, workspace }, deps, input: { partnerId: invite.partnerId, userId: user.id } });
    if (!partner || !INVITABLE.has(partner.status)) throw invalid('token', 'invite_invalid');
    // operations.md §15: the partner joining is a change of the workspace, in its audit log, in this transaction.
    const actor = { kind: 'user' as const, id: user.id, userId: user.id };
    await recordAudit(tx, {
      id: newId(),
      workspaceId: workspace.id,
      actor,
      action: 'partner.joined',
      ids: [partner.id, invite.id],
      at: ctx.now,
      ip,
      userAgent,
    });
    return { partner, user, created };
  });
}
