/**
 * Embedded referrals (operations.md §18): the workspace's product shows one partner their
 * referral page inside its own pages. A token, issued by the workspace's credential for one
 * partner and at most 2 hours, opens that page and its one API; it is no credential anywhere
 * else (no credential kind knows it). Every read is of the token's workspace and partner only,
 * through the partner portal's reads.
 */
import { audit, type AuditActor, type AuditIntent } from '../../core/audit.js';
import type { BaseCtx, Ctx } from '../../core/context.js';
import { AppError, invalid } from '../../core/errors.js';
import { secretFormat, sha256 } from '../../core/secret.js';
import { withTransaction } from '../../core/transaction.js';
import type { Conn } from '../../db/connect.js';
import { isUuid, newId } from '../../db/ids.js';
import type { LinkDeps } from '../links/service.js';
import type { Mailer } from '../mail/service.js';
import { createPartnerInvites } from '../partner-invites/service.js';
import { portalCommissions, portalLinks, portalSummary } from '../partner-portal/service.js';
import { createPartners, maskEmail, partnerHoldingTenant, partners, type Partner, type PartnerDeps } from '../partners/service.js';
import { findProgram, type ProgramRow } from '../program/service.js';
import { requireWorkspace } from '../workspaces/service.js';
import * as store from './store.js';
import type { EmbedTokenRow } from './store.js';

/** At most 2 hours (§18): long enough for a visit, short enough that a leaked page URL soon stops working. */
export const EMBED_TOKEN_TTL_MS = 2 * 3600_000;
/** One payouts invitation mailed from the page per partner in this window (a new one replaces the last anyway). */
export const PAYOUTS_INVITE_WINDOW_MS = 15 * 60_000;
/** Requests of one token to its API per minute: a page makes two or three. */
export const EMBED_REQUESTS_PER_MINUTE = 60;
/** Commissions the page lists, newest first. */
const COMMISSIONS_SHOWN = 50;
/** Links summed into the totals (a partner makes at most the program's maxPartnerLinks; owners may add a few). */
const LINKS_SUMMED = 1000;

/** `lte_` then 256 random bits in base64url; only its SHA-256 is stored. No credential kind recognises the prefix. */
export const EMBED_TOKEN = secretFormat('lte_');

export interface EmbedTokenInput {
  partnerId?: string;
  tenantId?: string;
  name?: string;
  email?: string;
}

export interface EmbedDeps {
  baseUrl: string;
  partners: PartnerDeps;
}

export interface CreatedEmbedToken {
  token: string;
  url: string;
  expiresAt: Date;
  partnerId: string;
}

const pageUrl = (baseUrl: string, token: string) => `${baseUrl.replace(/\/+$/, '')}/embed/referrals?token=${token}`;

/**
 * A token for one approved partner: named by `partnerId`, or by `tenantId` — that partner found,
 * or created approved in the default group with `name` and `email`. Creating races on the
 * partners' unique tenant id: the loser reads the winner's partner, so one tenant is one partner.
 */
export async function createEmbedToken({
  ctx,
  deps,
  input,
}: {
  ctx: Ctx;
  deps: EmbedDeps;
  input: EmbedTokenInput & { issuedBy: AuditActor };
}): Promise<CreatedEmbedToken> {
  const byPartner = input.partnerId !== undefined;
  if (byPartner === (input.tenantId !== undefined)) throw invalid(byPartner ? 'partnerId' : 'tenantId', byPartner ? 'embed_partner_or_tenant' : 'required');
  if (byPartner && (input.name !== undefined || input.email !== undefined))
    throw invalid(input.name !== undefined ? 'name' : 'email', 'embed_partner_or_tenant');
  const program = await findProgram({ ctx });
  if (!program) throw new AppError('program_required');
  const partner = byPartner ? await namedPartner(ctx, input.partnerId!) : await tenantPartner(ctx, deps.partners, input);
  if (partner.status !== 'approved') throw invalid(byPartner ? 'partnerId' : 'tenantId', 'partner_not_embeddable', { status: partner.status });
  const secret = EMBED_TOKEN.generate();
  const expiresAt = new Date(ctx.now.getTime() + EMBED_TOKEN_TTL_MS);
  const row = await withTransaction(ctx.db, async (tx) => {
    const made = await store.insertToken(tx, {
      id: newId(),
      workspaceId: ctx.workspace.id,
      partnerId: partner.id,
      tokenHash: secret.hash,
      issuedBy: input.issuedBy,
      expiresAt,
      createdAt: ctx.now,
    });
    await audit(ctx, tx, { ids: [made.id, partner.id] });
    return made;
  });
  return { token: secret.value, url: pageUrl(deps.baseUrl, secret.value), expiresAt: row.expiresAt, partnerId: partner.id };
}

async function namedPartner(ctx: Ctx, partnerId: string): Promise<Partner> {
  const id = partnerId.toLowerCase();
  const [found] = isUuid(id) ? await partners.byIds({ ctx, input: [id] }) : [];
  if (!found) throw invalid('partnerId', 'not_found');
  return found;
}

async function tenantPartner(ctx: Ctx, deps: PartnerDeps, input: EmbedTokenInput): Promise<Partner> {
  const tenantId = input.tenantId!;
  for (let attempt = 1; ; attempt++) {
    const existing = await heldBy(ctx, tenantId);
    if (existing) return existing;
    if (input.name === undefined) throw invalid('name', 'required');
    try {
      // The audit entry of this request gets the new partner too (one entry, several transactions).
      const [made] = await createPartners({ ctx, deps, input: [{ name: input.name, email: input.email, tenantId, status: 'approved' }] });
      return made!;
    } catch (err) {
      // A concurrent request won a unique value: the tenant id (its partner is then ours, read
      // again above), or the referral key made from the same name (a new try takes the next one).
      const lost = err instanceof AppError && UNIQUE_LOST.has(String(err.params.reasonCode));
      if (!lost || attempt === CREATE_ATTEMPTS) throw err;
    }
  }
}

const UNIQUE_LOST: ReadonlySet<string> = new Set(['already_exists', 'taken_in_workspace']);
const CREATE_ATTEMPTS = 4;

/** The live partner holding the tenant id, or undefined when none does (400 when a deleted one keeps it). */
async function heldBy(ctx: Ctx, tenantId: string): Promise<Partner | undefined> {
  const holder = await partnerHoldingTenant({ ctx, input: tenantId });
  if (!holder) return undefined;
  if (!holder.live) throw invalid('tenantId', 'tenant_of_deleted_partner');
  const [partner] = await partners.byIds({ ctx, input: [holder.id] });
  if (!partner) throw invalid('tenantId', 'tenant_of_deleted_partner');
  return partner;
}

/** A token opened: whose page, in which workspace and program, and the context its reads use. */
export interface OpenedEmbed {
  token: EmbedTokenRow;
  ctx: Ctx;
  program: ProgramRow;
  partner: Partner;
}

/**
 * The live token `presented` names, its workspace, program and partner (still approved); 401
 * `embed_token_invalid` otherwise — malformed, unknown, expired, or its partner gone.
 */
export async function openEmbedToken({
  ctx,
  input,
}: {
  ctx: BaseCtx & { analyticsDb?: () => Conn };
  input: { token: string | undefined };
}): Promise<OpenedEmbed> {
  const presented = input.token?.trim() ?? '';
  if (!EMBED_TOKEN.isWellFormed(presented)) throw new AppError('embed_token_invalid');
  const token = await store.liveToken(ctx.db, sha256(presented), ctx.now);
  if (!token) throw new AppError('embed_token_invalid');
  const workspace = await requireWorkspace({ ctx, input: { id: token.workspaceId } });
  const wsCtx: Ctx = { db: ctx.db, analyticsDb: ctx.analyticsDb?.() ?? ctx.db, workspace, now: ctx.now };
  const [program, [partner]] = await Promise.all([findProgram({ ctx: wsCtx }), partners.byIds({ ctx: wsCtx, input: [token.partnerId] })]);
  if (!program || !partner || partner.status !== 'approved') throw new AppError('embed_token_invalid');
  return { token, ctx: wsCtx, program, partner };
}

/** What the page may offer for payouts: mail an invitation, point to the partner portal (they have an account), or nothing (no e-mail known, or a server that sends no mail). */
export type PayoutsOffer = 'invite' | 'portal' | 'none';

/** GET /api/embed/referrals: the partner's link, figures of all time and latest commissions. */
export async function embedReferrals({ deps, input: opened }: { deps: { links: LinkDeps; baseUrl: string; mails: boolean }; input: OpenedEmbed }) {
  const { ctx, program, partner } = opened;
  const seat = { partnerId: partner.id, programId: program.id };
  const [summary, { links }, commissions] = await Promise.all([
    portalSummary({ ctx, input: seat }),
    portalLinks({ ctx, deps: deps.links, input: { ...seat, take: LINKS_SUMMED, skip: 0, sort: 'asc' } }),
    portalCommissions({ ctx, input: { ...seat, take: COMMISSIONS_SHOWN, skip: 0, sort: 'desc' } }),
  ]);
  const link = links.find((l) => l.default) ?? links[0];
  const sum = (k: 'clicks' | 'leads' | 'sales') => links.reduce((n, l) => n + l.stats[k], 0);
  const offer: PayoutsOffer = partner.userId ? 'portal' : partner.email && deps.mails ? 'invite' : 'none';
  return {
    partner: { name: partner.name },
    program: { name: program.name, currency: program.currency },
    link: link ? { shortUrl: link.shortUrl, url: link.url } : null,
    totals: { clicks: sum('clicks'), leads: sum('leads'), sales: sum('sales'), earnings: summary.earnings },
    commissions,
    payouts: {
      offer,
      email: offer === 'invite' && partner.email ? maskEmail(partner.email) : null,
      portalUrl: offer === 'portal' ? `${deps.baseUrl.replace(/\/+$/, '')}/app/partner` : null,
    },
  };
}

/**
 * "Set up payouts": mails the partner an invitation to their portal (where payout details are
 * given), at most one a partner per 15 minutes from these pages (429 `embed_invite_recent`).
 * Its audit entry is the issuer's of the token (who let the page act), action `partner_invite.requested`.
 */
export async function requestPayoutsInvite({
  deps,
  input: { opened, ip, userAgent },
}: {
  deps: { baseUrl: string; mailer?: Mailer };
  input: { opened: OpenedEmbed; ip?: string; userAgent?: string };
}): Promise<{ email: string; expiresAt: Date }> {
  const { ctx, token, partner } = opened;
  if (partner.userId) throw new AppError('partner_claimed');
  if (!partner.email) throw new AppError('embed_email_required');
  if (!deps.mailer) throw new AppError('embed_mail_unavailable');
  const intent: AuditIntent = {
    id: newId(),
    workspaceId: ctx.workspace.id,
    actor: { kind: token.issuedByKind as AuditActor['kind'], id: token.issuedById, ...(token.issuedByUserId ? { userId: token.issuedByUserId } : {}) },
    action: 'partner_invite.requested',
    ip,
    userAgent: userAgent?.slice(0, 500),
    at: ctx.now,
    written: false,
  };
  const [made] = await withTransaction(ctx.db, async (tx) => {
    if (!(await store.claimPayoutsInvite(tx, token, ctx.now, PAYOUTS_INVITE_WINDOW_MS)))
      throw new AppError('embed_invite_recent', { minutes: PAYOUTS_INVITE_WINDOW_MS / 60_000 });
    return createPartnerInvites({
      ctx: { ...ctx, db: tx, auditIntent: intent },
      deps: { baseUrl: deps.baseUrl, mailer: deps.mailer },
      input: { items: [{ partnerId: partner.id }], invitedBy: null },
    });
  });
  // Queued in the transaction just committed: the worker may have looked before it did.
  deps.mailer?.wake();
  return { email: maskEmail(made!.email), expiresAt: made!.expiresAt };
}
