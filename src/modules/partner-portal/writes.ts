/**
 * What a partner changes in their portal (operations.md §18 "Partner portal"): a link under the
 * program's prefixes, and their payout details. Each write locks the partner's row and checks in
 * its transaction that this person still signs in as them, and writes its audit entry there (the
 * workspace is known only from the seat, so the service writes it, as an invitation's is).
 */
import { recordAudit } from '../../core/audit.js';
import type { Ctx } from '../../core/context.js';
import { AppError, invalid, notFound } from '../../core/errors.js';
import type { Sealer } from '../../core/sealed.js';
import { afterCommit, withTransaction } from '../../core/transaction.js';
import type { Tx } from '../../db/connect.js';
import { newId } from '../../db/ids.js';
import { createLinks, listLinksWithTotal, type LinkDeps } from '../links/service.js';
import { queueMail, type Mailer } from '../mail/service.js';
import { lockOwnPartner, ownPayoutDetailsOf, partners, setOwnPayoutDetails, type PayoutDetailsInput } from '../partners/service.js';
import { partnerInPendingPayout } from '../payouts/service.js';
import { programCollection } from '../program/service.js';
import { recentStrongSignIn } from '../sessions/service.js';
import { findUser, verifyCurrentPassword } from '../users/service.js';
import { underPrefix } from './link-prefix.js';
import { payoutDetailsChangedMail } from './mail.js';
import { seatProgram, type Seat } from './service.js';

/** Request facts an audit entry keeps. */
export interface Origin {
  ip?: string;
  userAgent?: string;
}

async function lockSeat(ctx: Ctx, seat: Seat) {
  const partner = await lockOwnPartner({ ctx, input: { partnerId: seat.partnerId, userId: seat.userId } });
  if (!partner) throw notFound('program', seat.programId);
  return partner;
}

const entry = (ctx: Ctx, seat: Seat, origin: Origin, action: string, ids: string[]) => ({
  id: newId(),
  workspaceId: ctx.workspace.id,
  actor: { kind: 'user' as const, id: seat.userId, userId: seat.userId },
  action,
  ids,
  at: ctx.now,
  ip: origin.ip,
  userAgent: origin.userAgent,
});

/**
 * POST /api/partner/links: one link of an approved partner to a URL under the program's
 * prefixes, in the program's collection, at most `maxPartnerLinks` besides their default link.
 */
export async function createPortalLink({
  ctx,
  deps,
  input,
}: {
  ctx: Ctx;
  deps: LinkDeps;
  input: { seat: Seat; origin: Origin; url: string; title?: string; utm?: Record<string, string> };
}) {
  const { seat } = input;
  const program = await seatProgram(ctx, seat);
  const url = underPrefix(input.url, program.linkPrefixes);
  if (!url) throw invalid('url', 'outside_link_prefixes', { prefixes: program.linkPrefixes.join(', ') });
  const id = await withTransaction(ctx.db, async (tx) => {
    const c: Ctx = { ...ctx, db: tx, auditIntent: undefined };
    const partner = await lockSeat(c, seat);
    if (partner.status !== 'approved') throw new AppError('partner_not_approved');
    const [{ total }, [record]] = await Promise.all([
      listLinksWithTotal({ ctx: c, deps, input: { partnerId: seat.partnerId, take: 1, skip: 0, sort: 'desc', scopes: new Set() } }),
      partners.byIds({ ctx: c, input: [seat.partnerId] }),
    ]);
    const made = (total ?? 0) - (record?.defaultLinkId ? 1 : 0);
    if (made >= program.maxPartnerLinks) throw new AppError('partner_link_limit', { limit: program.maxPartnerLinks }, { limit: program.maxPartnerLinks });
    const collectionId = await programCollection({ ctx: c, input: program });
    const [link] = await createLinks({
      ctx: c,
      // Webhook deliveries are woken once this transaction commits, not before.
      deps: { ...deps, onEventsWritten: () => afterCommit(tx, () => deps.onEventsWritten?.()) },
      input: [{ url, title: input.title, utm: input.utm, partnerId: seat.partnerId, collectionId }],
    });
    await recordAudit(tx, entry(ctx, seat, input.origin, 'partner_link.created', [link!.id]));
    return link!.id;
  });
  return id;
}

export interface PayoutDetailsDeps {
  sealer: Sealer;
  mailer?: Mailer;
  throttle?: { before(email: string): Promise<void>; failed(email: string): Promise<void> };
}

/** A stronger sign-in than the session's own stands in for the password for this long. */
const RECENT_SIGN_IN_MS = 5 * 60_000;

function checkDetails(d: PayoutDetailsInput): void {
  if ((d.method === 'paypal' || d.method === 'wise') && !d.email) throw invalid('email', 'required');
  if (d.method === 'bank' && !d.holderName) throw invalid('holderName', 'required');
  if (d.method === 'bank' && !d.details) throw invalid('details', 'required');
}

/** The account's password, or a passkey or SSO sign-in of this session in the last 5 minutes (else 403 reauthentication_required). */
async function confirmIdentity(ctx: Ctx, deps: PayoutDetailsDeps, seat: Seat, password: string | undefined): Promise<void> {
  if (password !== undefined) {
    await verifyCurrentPassword({ ctx, input: { userId: seat.userId, password, field: 'password' }, deps: { throttle: deps.throttle } });
    return;
  }
  const recent = seat.sessionId ? await recentStrongSignIn({ ctx, input: { sessionId: seat.sessionId, withinMs: RECENT_SIGN_IN_MS } }) : false;
  if (!recent) throw new AppError('reauthentication_required');
}

/**
 * PUT /api/partner/payout-details: by the partner's own session only, after confirming it is
 * them; 409 payout_in_progress while a pending payout holds an item of theirs. The account and
 * the old and new payout addresses are told (queued in the change's transaction).
 */
export async function putPayoutDetails({
  ctx,
  deps,
  input,
}: {
  ctx: Ctx;
  deps: PayoutDetailsDeps;
  input: { seat: Seat; origin: Origin; details: PayoutDetailsInput; password?: string };
}) {
  const { seat, details } = input;
  checkDetails(details);
  await confirmIdentity(ctx, deps, seat, input.password);
  const program = await seatProgram(ctx, seat);
  const account = await findUser({ ctx, input: { id: seat.userId } });
  const result = await withTransaction(ctx.db, async (tx) => {
    const c: Ctx = { ...ctx, db: tx, auditIntent: undefined };
    await lockSeat(c, seat);
    if (await partnerInPendingPayout({ ctx: c, input: { partnerId: seat.partnerId } })) throw new AppError('payout_in_progress');
    const before = await ownPayoutDetailsOf({ ctx: c, sealer: deps.sealer, input: { partnerId: seat.partnerId } });
    await setOwnPayoutDetails({ ctx: c, sealer: deps.sealer, input: { partnerId: seat.partnerId, details } });
    const after = await ownPayoutDetailsOf({ ctx: c, sealer: deps.sealer, input: { partnerId: seat.partnerId } });
    await recordAudit(tx, {
      ...entry(ctx, seat, input.origin, 'partner.payout_details_changed', [seat.partnerId]),
      changes: { payoutMethod: { before: before.method, after: after.method } },
    });
    if (deps.mailer) await tell(tx, deps.mailer, [account.email, before.email, after.email], { programName: program.name, after, at: ctx.now });
    return after;
  });
  deps.mailer?.wake();
  return { method: result.method, destination: result.destination, holderName: result.holderName, changedAt: result.changedAt };
}

async function tell(
  tx: Tx,
  mailer: Mailer,
  addresses: (string | null)[],
  f: { programName: string; after: { method: string | null; destination: string | null }; at: Date },
): Promise<void> {
  const to = [...new Set(addresses.flatMap((a) => (a ? [a.toLowerCase()] : [])))];
  for (const address of to)
    await queueMail(
      tx,
      mailer,
      'payout-details-changed',
      payoutDetailsChangedMail({ to: address, programName: f.programName, method: f.after.method ?? '', destination: f.after.destination ?? '', at: f.at }),
    );
}
