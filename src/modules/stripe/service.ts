import { randomUUID } from 'node:crypto';
import { auditedChange } from '../../core/audit.js';
import type { BaseCtx, Ctx } from '../../core/context.js';
import { AppError, notFound } from '../../core/errors.js';
import type { ListParams } from '../../core/list-params.js';
import type { Sealer } from '../../core/sealed.js';
import { withTransaction } from '../../core/transaction.js';
import { isUuid, newId } from '../../db/ids.js';
import { applyRefund, findStripeSale, isWorkspaceClick, queueSaleWebhook, recordStripeSale, type ConversionDeps } from '../conversions/service.js';
import { requireWorkspace } from '../workspaces/service.js';
import { meaningOf, readEvent, STRIPE_EVENT_TYPES, type Meaning, type StripeEvent } from './mapping.js';
import { disputeEvent } from './disputes.js';
import { invoiceCustomer } from './invoice-customer.js';
import { checkSignature } from './signature.js';
import * as store from './store.js';

export interface StripeDeps {
  /** BASE_URL: where Stripe posts (`BASE_URL/webhooks/stripe/{id}`). */
  baseUrl: string;
  sealer: Sealer;
}

export interface ReceiveDeps extends StripeDeps {
  /** CLICK_ID_PARAM: the metadata key a checkout may carry the click id in. */
  clickIdParam: string;
  conversions: ConversionDeps;
}

export interface ConnectionView {
  id: string;
  webhookUrl: string;
  status: 'pending' | 'connected';
  connectedAt: string | null;
  events: (typeof STRIPE_EVENT_TYPES)[number][];
  testMode: boolean;
  apiVersion: string;
  createdAt: string;
}

const view = (deps: StripeDeps, c: store.ConnectionRow): ConnectionView => ({
  id: c.id,
  webhookUrl: `${deps.baseUrl.replace(/\/+$/, '')}/webhooks/stripe/${c.id}`,
  status: c.status,
  connectedAt: c.connectedAt,
  events: [...STRIPE_EVENT_TYPES],
  testMode: c.testMode,
  apiVersion: c.apiVersion,
  createdAt: c.createdAt,
});

/** Step one: the webhook URL to add in Stripe, under a new random id. One connection per workspace. */
export async function createConnection({ ctx, deps }: { ctx: Ctx; deps: StripeDeps }): Promise<ConnectionView> {
  const created = await auditedChange(
    ctx,
    (tx) => store.insertConnection(tx, { id: randomUUID(), workspaceId: ctx.workspace.id }),
    (c) => ({ ids: [c.id] }),
  );
  if (!created) throw new AppError('stripe_connection_exists');
  return view(deps, created);
}

/** Step two: the endpoint's signing secret, sealed; the connection accepts events from now on. Again later: a new secret. */
export async function connectStripe({
  ctx,
  deps,
  input,
}: {
  ctx: Ctx;
  deps: StripeDeps;
  input: { signingSecret: string; testMode?: boolean };
}): Promise<ConnectionView> {
  const change = {
    workspaceId: ctx.workspace.id,
    secretSealed: deps.sealer.seal('stripe-secret', input.signingSecret),
    testMode: input.testMode ?? false,
    now: ctx.now,
  };
  const connected = await auditedChange(
    ctx,
    (tx) => store.connect(tx, change),
    (c) => ({ ids: [c.id] }),
  );
  if (!connected) throw new AppError('stripe_no_connection');
  return view(deps, connected);
}

export async function getConnection({ ctx, deps }: { ctx: Ctx; deps: StripeDeps }): Promise<ConnectionView> {
  const found = await store.connectionOf(ctx.db, ctx.workspace.id);
  if (!found) throw new AppError('stripe_no_connection');
  return view(deps, found);
}

export async function deleteConnection({ ctx }: { ctx: Ctx }): Promise<{ deletedIds: string[] }> {
  const id = await auditedChange(
    ctx,
    (tx) => store.deleteConnection(tx, ctx.workspace.id, ctx.now),
    (deleted) => ({ ids: [deleted] }),
  );
  if (!id) throw new AppError('stripe_no_connection');
  return { deletedIds: [id] };
}

/**
 * Remembers that a Stripe customer id is this customer (POST /api/track/lead and /sale with
 * `stripeCustomerId`, for subscriptions made outside Checkout): a later invoice.paid of that
 * Stripe customer is theirs. On `ctx.db`, the caller's transaction when it has one; a click
 * remembered before is kept.
 */
export async function rememberStripeCustomer({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { stripeCustomerId: string; customerExternalId: string; clickId: string | null };
}): Promise<void> {
  await store.rememberCustomer(ctx.db, { workspaceId: ctx.workspace.id, ...input });
}

/** Stripe customer ids remembered for many customers at once (an affiliate-tool import's referrals), in one statement. */
export async function rememberStripeCustomers({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { stripeCustomerId: string; customerExternalId: string; clickId: string | null }[];
}): Promise<void> {
  await store.rememberCustomers(ctx.db, ctx.workspace.id, input);
}

export async function listStripeEvents({ ctx, input }: { ctx: Ctx; input: ListParams }): Promise<store.EventRow[]> {
  return store.listEvents(ctx.db, ctx.workspace.id, input);
}

/**
 * POST /webhooks/stripe/{id}: the signature is checked over the raw bytes before the body is
 * parsed; then, in one transaction holding the connection (its events are handled one at a
 * time, on any instance), the event id is claimed, the event mapped, and what it made listed.
 */
export async function receiveStripeEvent({
  ctx,
  deps,
  input,
}: {
  ctx: BaseCtx;
  deps: ReceiveDeps;
  input: { connectionId: string; signature: string | undefined; body: Buffer };
}): Promise<{ received: true }> {
  const found = isUuid(input.connectionId) ? await store.connectionById(ctx.db, input.connectionId) : undefined;
  if (!found) throw notFound('Stripe connection', input.connectionId.slice(0, 100));
  if (found.status !== 'connected' || !found.secretSealed) throw new AppError('stripe_not_connected');
  const secret = deps.sealer.open('stripe-secret', found.secretSealed);
  const problem = checkSignature({ header: input.signature, body: input.body, secret, nowSeconds: Math.floor(ctx.now.getTime() / 1000) });
  if (problem) throw new AppError('stripe_signature', { problem });
  const event = readEvent(parseJson(input.body));
  if (!event) throw new AppError('stripe_event_invalid');
  const workspace = await requireWorkspace({ ctx, input: { id: found.workspaceId } });
  const meaning = meaningOf(event, deps.clickIdParam);
  // A click handed out a moment ago may still be queued: it is waited for before the transaction
  // (the wait flushes the click queues, which need the database themselves); unknown, it is no click.
  if (
    meaning.kind === 'checkout' &&
    meaning.clickId &&
    !(await isWorkspaceClick({ ctx: { ...ctx, workspace }, deps: deps.conversions, input: { clickId: meaning.clickId } }))
  ) {
    meaning.clickId = undefined;
  }
  let queued = 0;
  await withTransaction(ctx.db, async (tx) => {
    const connection = await store.connectionById(tx, input.connectionId, { lock: true });
    // Disconnected, or given a new secret, while this request ran: answer as the new state would.
    if (!connection) throw notFound('Stripe connection', input.connectionId);
    // (A reseal may have sealed the same secret anew meanwhile: the secrets are compared, not their sealed forms.)
    const sameSecret =
      connection.secretSealed === found.secretSealed ||
      (connection.secretSealed !== null && deps.sealer.open('stripe-secret', connection.secretSealed) === secret);
    if (!sameSecret) throw new AppError('stripe_signature', { problem: 'mismatch' });
    const wctx: Ctx = { db: tx, analyticsDb: tx, workspace, now: ctx.now };
    const fresh = await store.claimEventId(tx, connection.id, event.id);
    const result: Result = !fresh
      ? { outcome: 'duplicate', saleId: null }
      : !event.livemode && !connection.testMode
        ? { outcome: 'test_mode', saleId: null }
        : await handle(wctx, meaning);
    await store.insertEvent(tx, { id: newId(), workspaceId: workspace.id, connectionId: connection.id, ...eventFields(event), ...result });
    // A sale made here is a sale like any other: its sale.created webhook, in the same transaction.
    if (result.saleId && result.outcome !== 'refund' && result.outcome !== 'dispute')
      queued = await queueSaleWebhook({ ctx: wctx, deps: deps.conversions, input: { saleId: result.saleId } });
  });
  if (queued > 0) deps.conversions.onEventsWritten?.();
  return { received: true };
}

const eventFields = (e: StripeEvent) => ({ stripeId: e.id, type: e.type, livemode: e.livemode });

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new AppError('malformed_json');
  }
}

type Result = store.Result;

function handle(ctx: Ctx, meaning: Meaning): Promise<Result> {
  switch (meaning.kind) {
    case 'checkout':
      return checkoutCompleted(ctx, meaning);
    case 'invoice':
      return invoicePaid(ctx, meaning);
    case 'refund':
      return chargeRefunded(ctx, meaning);
    case 'dispute':
      return disputeEvent(ctx, meaning);
    default:
      return Promise.resolve({ outcome: 'ignored', saleId: null });
  }
}

/** A refund that came before its sale, taken by the sale now made (and forgotten then). */
async function waitingRefund(ctx: Ctx, paymentIntentId: string | undefined): Promise<number> {
  return paymentIntentId ? store.pendingRefund(ctx.db, ctx.workspace.id, paymentIntentId) : 0;
}

async function checkoutCompleted(ctx: Ctx, m: Extract<Meaning, { kind: 'checkout' }>): Promise<Result> {
  // Paid or not (a trial, a delayed payment): later invoices of this Stripe customer are this customer's.
  if (m.stripeCustomerId) {
    await store.rememberCustomer(ctx.db, {
      workspaceId: ctx.workspace.id,
      stripeCustomerId: m.stripeCustomerId,
      customerExternalId: m.buyer.externalId,
      clickId: m.clickId ?? null,
    });
  }
  if (!m.paid || m.amount === undefined || m.currency === undefined) return { outcome: 'ignored', saleId: null };
  // The first invoice of a subscription checkout is the same payment: counted once, whichever event came first.
  const already = m.invoiceId ? await findStripeSale({ ctx, input: { invoiceId: m.invoiceId } }) : undefined;
  if (already) return { outcome: 'duplicate', saleId: already.id };
  return madeSale(ctx, 'sale', m.paymentIntentId, {
    amount: m.amount,
    currency: m.currency,
    eventName: 'Purchase',
    clickId: m.clickId,
    customer: m.buyer,
    metadata: { stripeCheckoutSessionId: m.sessionId },
    invoiceId: m.invoiceId,
    couponCode: m.promotionCode,
  });
}

async function invoicePaid(ctx: Ctx, m: Extract<Meaning, { kind: 'invoice' }>): Promise<Result> {
  const already = await findStripeSale({ ctx, input: { invoiceId: m.invoiceId } });
  if (already) return { outcome: 'duplicate', saleId: already.id };
  // A trial's first invoice is paid with nothing: no revenue, no sale.
  if (m.amount === undefined || m.amount === 0 || m.currency === undefined) return { outcome: 'ignored', saleId: null };
  const known = await invoiceCustomer(ctx, m);
  // A customer met for the first time may still come by a partner's promotion code (then the Stripe customer is theirs).
  const externalId = known?.customerExternalId ?? (m.promotionCode ? m.stripeCustomerId : undefined);
  if (!externalId) return { outcome: 'unattributed', saleId: null, reason: 'no_customer' };
  return madeSale(ctx, 'renewal', m.paymentIntentId, {
    amount: m.amount,
    currency: m.currency,
    eventName: 'Subscription',
    fallbackClickId: known?.clickId,
    customer: { externalId, name: m.name ?? m.email ?? 'Stripe customer', ...(m.email ? { email: m.email } : {}) },
    metadata: { stripeInvoiceId: m.invoiceId },
    invoiceId: m.invoiceId,
    couponCode: m.promotionCode,
  });
}

async function madeSale(
  ctx: Ctx,
  outcome: 'sale' | 'renewal',
  paymentIntentId: string | undefined,
  s: {
    amount: number;
    currency: string;
    eventName: string;
    clickId?: string;
    fallbackClickId?: string | null;
    customer: { externalId: string; name: string; email?: string };
    metadata: Record<string, unknown>;
    invoiceId: string | undefined;
    /** A promotion code id the payment used: a partner holding it earns when no click id attributes the sale. */
    couponCode?: string;
  },
): Promise<Result> {
  const refundedAmount = await waitingRefund(ctx, paymentIntentId);
  const sale = await recordStripeSale({
    ctx,
    input: { ...s, stripe: { invoiceId: s.invoiceId ?? null, paymentIntentId: paymentIntentId ?? null, refundedAmount } },
  });
  if (!sale) return { outcome: 'unattributed', saleId: null, reason: 'no_lead' };
  if (paymentIntentId && refundedAmount > 0) await store.dropPendingRefund(ctx.db, ctx.workspace.id, paymentIntentId);
  return { outcome, saleId: sale.id };
}

async function chargeRefunded(ctx: Ctx, m: Extract<Meaning, { kind: 'refund' }>): Promise<Result> {
  if (!m.paymentIntentId || m.amountRefunded === undefined) return { outcome: 'unattributed', saleId: null, reason: 'no_sale' };
  const sale = await findStripeSale({ ctx, input: { paymentIntentId: m.paymentIntentId } });
  if (!sale) {
    await store.keepPendingRefund(ctx.db, { workspaceId: ctx.workspace.id, paymentIntentId: m.paymentIntentId, amountRefunded: m.amountRefunded });
    return { outcome: 'refund', saleId: null };
  }
  // amount_refunded is the charge's total so far: a late, smaller total never undoes a larger one.
  if (m.amountRefunded > sale.refundedAmount) await applyRefund({ ctx, input: { saleId: sale.id, refundedAmount: m.amountRefunded } });
  return { outcome: 'refund', saleId: sale.id };
}
