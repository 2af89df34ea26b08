import type { SQL } from 'drizzle-orm';
import { newId, isUuid } from '../../db/ids.js';
import { withTransaction } from '../../core/transaction.js';
import { invalid } from '../../core/errors.js';
import type { Ctx } from '../../core/context.js';
import { assertHttps } from '../bulk/service.js';
import { CURRENCIES } from '../../core/currencies.js';
import { MAX_SALE_AMOUNT } from './schemas.js';
import { earnForConversion, followSaleRefund, type EarnFacts, type StoredConversion } from '../commissions/service.js';
import { findProgram } from '../program/service.js';
import { couponSource, withCouponClick, type CouponSource } from './coupons.js';
import { conversionWriter, queueConversionEvent, type ConversionByClick, type ConversionEventDeps } from './webhook-events.js';
import type { IdHolder } from '../../db/resource-table.js';
import type { Conn } from '../../db/connect.js';
import {
  earliestPartnerLeadSql,
  eventHolders,
  saleRefunds,
  insertImportedLeads as insertLeads,
  insertImportedSales as insertSales,
  type ImportedLeadRow,
  type ImportedSaleRow,
} from './store-imports.js';
import {
  customerExists,
  findClick,
  latestLead,
  recordLead,
  recordSale,
  setRefundedAmount,
  saleRecord,
  saleToRefund,
  stripeSale,
  type ClickRef,
  type StripeSaleRef,
  type CustomerInput,
  type EventOrigin,
  type WritePlan,
  RECORDING_CUSTOMER,
  RECORDING_PARTNER,
  type EventRow,
  type EventSource,
  type SaleRow,
  firstLeadCountries,
} from './store.js';

export type { EventSource } from './store.js';

/** The click queue's hooks, and what the lead.created / sale.created webhooks need (webhook-events.ts). */
export interface ConversionDeps extends ConversionEventDeps {
  /** Whether this workspace's click is still queued on this instance. */
  isClickPending(clickId: string, workspaceId: string): boolean;
  flushClicks(): Promise<void>;
  /** Asks every instance to write its queued clicks (a click may wait in another one). */
  requestClickFlush(): Promise<void>;
  sleep?: (ms: number) => Promise<void>;
}

/** What commissions read of a lead or sale just stored. */
function asConversion(kind: 'lead' | 'sale', row: EventRow & Partial<SaleRow>, named: boolean): StoredConversion {
  return {
    kind,
    id: row.id,
    eventName: row.eventName,
    createdAt: row.createdAt,
    linkId: row.linkId,
    clickId: row.clickId,
    partnerId: row.partnerId,
    clickAt: row.clickAt,
    country: row.country,
    metadata: row.metadata,
    customer: { id: row.customer.id, email: row.customer.email, partnerId: row.customer.partnerId },
    amount: row.amount,
    currency: row.currency,
    named,
    invoiceRepeat: row.invoiceRepeat,
    referredAtSql: (workspaceId, partnerId) => importedReferralAtSql(workspaceId, row.customer.id, partnerId),
    clickPartnerFacts: row.clickPartnerFacts as EarnFacts | null | undefined,
    source: row.source,
  };
}

/** Days a browser's click id stays good for a lead or sale: the program's attributionDays, else 90. */
const CLIENT_ATTRIBUTION_DAYS = 90;
const DAY_MS = 86_400_000;

/**
 * What a browser's event (operations.md §19) must name: a click of this workspace, at most
 * attributionDays old (waited for while it is still queued). Whether its customer exists already:
 * then the event changes nothing of them and earns nothing.
 */
async function clientEventCheck(ctx: Ctx, deps: ConversionDeps, clickId: string, customerExternalId: string): Promise<{ existing: boolean }> {
  const click = await clickOf(ctx, deps, clickId);
  if (!click) throw invalid('clickId', 'unknown_click');
  const days = (await findProgram({ ctx }))?.attributionDays ?? CLIENT_ATTRIBUTION_DAYS;
  if (ctx.now.getTime() - Date.parse(click.createdAt) > days * DAY_MS) throw invalid('clickId', 'click_too_old', { days });
  return { existing: await customerExists(ctx.db, ctx.workspace.id, customerExternalId) };
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The click behind a click id, if it belongs to this workspace. A click id is valid as soon as
 * the visitor has it: if its click is still queued (here or on another instance), the queues
 * are flushed and the lookup repeated, for at most about a second. Every lookup is scoped to
 * the workspace, so another workspace's click takes this same wait and gives the same answer
 * as an unknown id: neither the answer nor its time tells that the id exists elsewhere.
 */
async function clickOf(ctx: Ctx, deps: ConversionDeps, clickId: string): Promise<ClickRef | undefined> {
  if (!isUuid(clickId)) return undefined;
  const find = () => findClick(ctx.db, ctx.workspace.id, clickId);
  let click = await find();
  if (!click && deps.isClickPending(clickId, ctx.workspace.id)) {
    await deps.flushClicks();
    click = await find();
  }
  for (let attempt = 0; !click && attempt < 4; attempt++) {
    await deps.requestClickFlush();
    await (deps.sleep ?? wait)(100 * (attempt + 1));
    click = await find();
  }
  return click;
}

/** Metadata is stored with every event: keep it to a sane size. */
const MAX_METADATA_BYTES = 16_384;

function checkMetadata(metadata: unknown): void {
  if (metadata !== undefined && metadata !== null && Buffer.byteLength(JSON.stringify(metadata)) > MAX_METADATA_BYTES) {
    throw invalid('metadata', 'too_big', { limit: MAX_METADATA_BYTES });
  }
}

function customerOf(input: CustomerFields): CustomerInput {
  assertHttps(input.customerAvatar, 'customerAvatar');
  return { externalId: input.customerExternalId, name: input.customerName, email: input.customerEmail, avatar: input.customerAvatar };
}

interface CustomerFields {
  customerExternalId: string;
  customerName: string;
  customerEmail?: string | null;
  customerAvatar?: string | null;
  /** The customer's Stripe customer id (cus_…), remembered through the listener the stripe module registers. */
  stripeCustomerId?: string;
}

/** Remembers a Stripe customer id for a customer, on `ctx.db` (the write's transaction when it has one). */
export type StripeCustomerListener = (ctx: Ctx, input: { stripeCustomerId: string; customerExternalId: string; clickId: string | null }) => Promise<void>;
const stripeCustomerListeners = new Set<StripeCustomerListener>();

/** The stripe module registers here at setUp (it imports conversions, so conversions cannot import it). */
export function onStripeCustomerNamed(listener: StripeCustomerListener): void {
  stripeCustomerListeners.add(listener);
}

/** The write of a lead or sale, then (on the same connection) the Stripe customer id it names remembered. */
function rememberingStripeCustomer<R extends { clickId: string }>(
  ctx: Ctx,
  input: CustomerFields,
  write: (db: Conn, plan: WritePlan) => Promise<R | undefined>,
) {
  const stripeCustomerId = input.stripeCustomerId;
  if (!stripeCustomerId) return write;
  return async (db: Conn, plan: WritePlan) => {
    const row = await write(db, plan);
    if (!row) return row;
    const named = { stripeCustomerId, customerExternalId: input.customerExternalId, clickId: row.clickId };
    for (const listener of stripeCustomerListeners) await listener({ ...ctx, db }, named);
    return row;
  };
}

export interface LeadInput extends CustomerFields {
  clickId: string;
  eventName: string;
  metadata?: Record<string, unknown> | null;
}

/**
 * api.md POST /track/lead, including deferred tracking (clickId ""). `source` client: a browser's
 * lead (operations.md §19): a click id of at most attributionDays, no deferred tracking, no Stripe
 * customer id; an existing customer is kept as is and the lead earns nothing.
 */
export async function trackLead({
  ctx,
  deps,
  input: given,
  source = 'server',
}: {
  ctx: Ctx;
  deps: ConversionDeps;
  input: LeadInput;
  source?: Extract<EventSource, 'server' | 'client'>;
}): Promise<EventRow> {
  const client = source === 'client';
  const input = client ? { ...given, stripeCustomerId: undefined } : given;
  checkMetadata(input.metadata);
  const customer = customerOf(input);
  if (client && input.clickId === '') throw invalid('clickId', 'deferred_from_browser');
  const existing = client ? (await clientEventCheck(ctx, deps, input.clickId, input.customerExternalId)).existing : false;
  // A server's lead by a click decides its commission with the program's read (one statement for the lead and its commission).
  const byClick: ConversionByClick | undefined =
    !client && input.clickId !== '' ? { clickId: input.clickId, eventName: input.eventName, metadata: input.metadata, customer } : undefined;
  let inOutbox = await conversionWriter(ctx, deps, 'lead', byClick);
  const record = (clickId: string, from: EventOrigin) =>
    inOutbox(
      rememberingStripeCustomer(ctx, input, (db, plan) =>
        recordLead(db, {
          id: newId(),
          workspaceId: ctx.workspace.id,
          customerId: newId(),
          eventName: input.eventName,
          clickId,
          from,
          metadata: input.metadata,
          customer,
          source,
          rollups: plan.rollups,
          slot: plan.slot,
          facts: plan.clickPartnerFacts?.({ kind: 'lead', clickId }),
          commission: plan.commission,
        }),
      ),
      (row) => (existing ? undefined : asConversion('lead', row, true)),
    );
  if (input.clickId === '') {
    const previous = await latestLead(ctx.db, ctx.workspace.id, input.customerExternalId);
    if (!previous) throw invalid('clickId', 'no_previous_lead');
    return (await record(previous.clickId, { leadId: previous.id }))!;
  }
  if (!isUuid(input.clickId)) throw invalid('clickId', 'unknown_click');
  // Usual case: the click is stored, and one statement finds it and writes everything.
  const fromClick = { clickId: input.clickId };
  const recorded = await record(input.clickId, fromClick);
  if (recorded) return recorded;
  const click = await clickOf(ctx, deps, input.clickId);
  if (!click) throw invalid('clickId', 'unknown_click');
  // Read again now that the click is stored: its partner's commission is decided before the lead, as for any stored click.
  if (byClick) inOutbox = await conversionWriter(ctx, deps, 'lead', byClick);
  return (await record(input.clickId, fromClick))!;
}

export interface SaleInput extends CustomerFields {
  amount: number;
  currency?: string;
  eventName?: string;
  metadata?: Record<string, unknown> | null;
  leadEventName?: string;
  clickId?: string;
  /** An invoice the sale pays: a second sale naming the same one is stored but earns no commission. */
  invoiceId?: string;
  /** A coupon code the customer typed: a partner's earns for them (coupons.ts), after leadEventName and clickId. */
  couponCode?: string;
}

/** How a sale reached its click: named by the request, or found through the customer's latest lead. */
type SaleAttribution = { clickId: string; leadId: string | null; named: boolean } | { coupon: CouponSource };

async function saleAttribution(ctx: Ctx, input: SaleInput): Promise<SaleAttribution> {
  if (input.leadEventName !== undefined) {
    const lead = await latestLead(ctx.db, ctx.workspace.id, input.customerExternalId, input.leadEventName);
    if (!lead) throw invalid('leadEventName', 'no_such_lead', { value: input.leadEventName });
    return { clickId: lead.clickId, leadId: lead.id, named: true };
  }
  if (input.clickId !== undefined && input.clickId !== '') {
    if (!isUuid(input.clickId)) throw invalid('clickId', 'unknown_click');
    return { clickId: input.clickId, leadId: null, named: true };
  }
  const coupon = input.couponCode ? await couponSource(ctx, input.couponCode) : undefined;
  if (coupon) return { coupon };
  const lead = await latestLead(ctx.db, ctx.workspace.id, input.customerExternalId);
  if (!lead) throw invalid('customerExternalId', 'no_previous_lead');
  return { clickId: lead.clickId, leadId: lead.id, named: false };
}

/**
 * api.md POST /track/sale: attributed by leadEventName, else clickId, else a partner's coupon code
 * (§18), else the latest lead. `source` client: a browser's sale (operations.md §19), by its click
 * id only, as trackLead's client leads.
 */
export async function trackSale({
  ctx,
  deps,
  input: given,
  source = 'server',
}: {
  ctx: Ctx;
  deps: ConversionDeps;
  input: SaleInput;
  source?: Extract<EventSource, 'server' | 'client'>;
}): Promise<SaleRow> {
  const client = source === 'client';
  const input = client ? { ...given, stripeCustomerId: undefined, couponCode: undefined } : given;
  checkMetadata(input.metadata);
  const customer = customerOf(input);
  const currency = input.currency ?? 'usd';
  if (!CURRENCIES.has(currency)) throw invalid('currency', 'currency_code', { value: currency });
  if (client && input.leadEventName !== undefined) throw invalid('leadEventName', 'lead_name_from_browser');
  if (client && !input.clickId) throw invalid('clickId', 'deferred_from_browser');
  const existing = client ? (await clientEventCheck(ctx, deps, input.clickId!, input.customerExternalId)).existing : false;
  const attribution = await saleAttribution(ctx, input);
  // Whether the sale names its click (a partner's click earns for that partner) or reaches it through the customer's latest lead.
  const named = 'coupon' in attribution || attribution.named;
  // A server's sale by a click (named, or its customer's latest lead's) decides its commission with the program's read.
  const byClick: ConversionByClick | undefined =
    !client && !('coupon' in attribution)
      ? {
          clickId: attribution.clickId,
          eventName: input.eventName ?? 'Purchase',
          metadata: input.metadata,
          customer,
          amount: input.amount,
          currency,
          invoiceId: input.invoiceId,
          named,
          referredAt: (partner, customerId) => importedReferralAtSql(ctx.workspace.id, customerId, partner),
        }
      : undefined;
  let inOutbox = await conversionWriter(ctx, deps, 'sale', byClick);
  const writeSale = (db: Conn, at: { clickId: string; leadId: string | null; from: EventOrigin }, plan: WritePlan) =>
    recordSale(db, {
      id: newId(),
      workspaceId: ctx.workspace.id,
      customerId: newId(),
      eventName: input.eventName ?? 'Purchase',
      amount: input.amount,
      currency,
      clickId: at.clickId,
      leadId: at.leadId,
      from: at.from,
      metadata: input.metadata,
      customer,
      invoiceId: input.invoiceId,
      source,
      rollups: plan.rollups,
      slot: plan.slot,
      facts: plan.clickPartnerFacts?.({
        kind: 'sale',
        clickId: at.clickId,
        referredAt: importedReferralAtSql(ctx.workspace.id, RECORDING_CUSTOMER, RECORDING_PARTNER),
      }),
      commission: plan.commission,
    });
  const write =
    'coupon' in attribution
      ? (db: Conn, plan: WritePlan) => withCouponClick(ctx, db, attribution.coupon, customer, (d, at) => writeSale(d, at, plan))
      : // A sale that follows a lead takes the lead's dimensions (its click may be past retention).
        (db: Conn, plan: WritePlan) =>
          writeSale(db, { ...attribution, from: attribution.leadId ? { leadId: attribution.leadId } : { clickId: attribution.clickId } }, plan);
  const record = () => inOutbox(rememberingStripeCustomer(ctx, input, write), (row) => (existing ? undefined : asConversion('sale', row, named)));
  const recorded = await record();
  if (recorded || 'coupon' in attribution) return recorded!;
  // A click id whose click is not stored yet (still queued here or on another instance).
  const click = await clickOf(ctx, deps, attribution.clickId);
  if (!click) throw invalid('clickId', 'unknown_click');
  // Read again now that the click is stored, as trackLead does.
  if (byClick) inOutbox = await conversionWriter(ctx, deps, 'sale', byClick);
  return (await record())!;
}

export interface StripeSaleInput {
  amount: number;
  currency: string;
  eventName: string;
  /** A click id the payment carried (checked: only a click of this workspace counts). */
  clickId?: string | null;
  customer: { externalId: string; name: string; email?: string | null };
  metadata?: Record<string, unknown> | null;
  stripe: { invoiceId: string | null; paymentIntentId: string | null; refundedAmount: number };
  /** A promotion code id the payment used (§18): a partner holding it attributes a sale that no click id does. */
  couponCode?: string;
}

/**
 * Whether a click id is a click of this workspace, waiting (about a second at most) for a click
 * still queued here or on another instance. Called before a transaction that records with it:
 * the wait flushes the click queues, which write through the database themselves.
 */
export async function isWorkspaceClick({ ctx, deps, input }: { ctx: Ctx; deps: ConversionDeps; input: { clickId: string } }): Promise<boolean> {
  return (await clickOf(ctx, deps, input.clickId)) !== undefined;
}

/**
 * A sale paid through Stripe (operations.md §12), attributed in api.md's sale order: the click
 * id when it is a stored click of this workspace (see isWorkspaceClick), else a promotion code a
 * partner holds (§18), else the customer's latest lead, else `fallbackClickId` (the click a subscription's checkout carried). Undefined
 * when nothing attributes it: no error, since Stripe only needs to hear that the event arrived.
 */
export async function recordStripeSale({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: StripeSaleInput & { fallbackClickId?: string | null };
}): Promise<SaleRow | undefined> {
  if (!CURRENCIES.has(input.currency) || input.amount < 0 || input.amount > MAX_SALE_AMOUNT) return undefined;
  const base = {
    id: newId(),
    workspaceId: ctx.workspace.id,
    customerId: newId(),
    eventName: input.eventName,
    amount: input.amount,
    currency: input.currency,
    metadata: input.metadata,
    customer: input.customer,
    stripe: input.stripe,
    source: 'stripe' as const,
  };
  // The commission it earns, in the caller's transaction: a click the payment carried names its partner.
  const earned = async (sale: SaleRow | undefined, named: boolean) => {
    const program = sale && (await findProgram({ ctx }));
    if (program) await earnForConversion({ ctx, input: { program, conversion: asConversion('sale', sale, named) } });
    return sale;
  };
  // No click of this workspace with that id: nothing written, undefined.
  const byClick = (clickId: string) => recordSale(ctx.db, { ...base, clickId, leadId: null, from: { clickId } });
  if (input.clickId && isUuid(input.clickId)) {
    const sale = await byClick(input.clickId);
    if (sale) return earned(sale, true);
  }
  const coupon = input.couponCode ? await couponSource(ctx, input.couponCode) : undefined;
  if (coupon) {
    const sale = await withCouponClick(ctx, ctx.db, coupon, input.customer, (db, at) => recordSale(db, { ...base, ...at }));
    return earned(sale, true);
  }
  const lead = await latestLead(ctx.db, ctx.workspace.id, input.customer.externalId);
  if (lead) return earned(await recordSale(ctx.db, { ...base, clickId: lead.clickId, leadId: lead.id, from: { leadId: lead.id } }), false);
  if (input.fallbackClickId && isUuid(input.fallbackClickId)) return earned(await byClick(input.fallbackClickId), false);
  return undefined;
}

/** Queues the sale.created webhook of a sale recorded in the caller's transaction (`ctx.db`), if wanted: how many deliveries. */
export function queueSaleWebhook({ ctx, deps, input }: { ctx: Ctx; deps: ConversionEventDeps; input: { saleId: string } }): Promise<number> {
  return queueConversionEvent(ctx, deps, 'sale', input.saleId);
}

/** The sale a Stripe invoice or payment intent paid, if one was recorded; locked for the caller's transaction. */
export async function findStripeSale({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { invoiceId: string } | { paymentIntentId: string };
}): Promise<StripeSaleRef | undefined> {
  return stripeSale(ctx.db, ctx.workspace.id, input);
}

/** A sale's refunded total (cumulative, at most its amount); analytics then count it net, in the sale's period. */
export async function applyRefund({ ctx, input }: { ctx: Ctx; input: { saleId: string; refundedAmount: number } }): Promise<void> {
  const sale = await setRefundedAmount(ctx.db, { workspaceId: ctx.workspace.id, ...input });
  // The sale's commission follows its net amount, in the same transaction (the caller's).
  if (sale) await followSaleRefund({ ctx, input: { id: input.saleId, ...sale } });
}

export type { ImportedLeadRow, ImportedSaleRow } from './store-imports.js';
export { CURRENCIES } from '../../core/currencies.js';

/** Which of these lead or sale ids are stored, here or in another workspace (an import keeps free ids). */
export function importedEventHolders({ ctx, input }: { ctx: Ctx; input: { kind: 'lead' | 'sale'; ids: string[] } }): Promise<IdHolder[]> {
  return eventHolders(ctx.db, ctx.workspace.id, input.kind, input.ids);
}

/**
 * Leads an import brings (operations.md §13), their link, customer and click already this
 * workspace's: one statement for the batch, rollups included, so GET /api/analytics and GET
 * /api/events show them as they were. No webhooks (they happened long ago). How many were new.
 */
export function insertImportedLeads({ ctx, input }: { ctx: Ctx; input: ImportedLeadRow[] }): Promise<number> {
  return insertLeads(ctx.db, ctx.workspace.id, input);
}

/** Sales an import brings, as insertImportedLeads; a sale's lead is imported before it. */
export function insertImportedSales({ ctx, input }: { ctx: Ctx; input: ImportedSaleRow[] }): Promise<number> {
  return insertSales(ctx.db, ctx.workspace.id, input);
}

/** The lead an affiliate-tool import gives each customer it wins for a partner (operations.md §18 "Moving in"): its event name. */
export const IMPORTED_REFERRAL_LEAD = 'Imported referral';

/**
 * When an import says the customer was referred by this partner (their earliest `Imported
 * referral` lead attributed to the partner), if it does: `maxDuration` counts from that date, as
 * it did in the tool the customer came from. A scalar query the commission's facts read (store-earn.ts).
 */
function importedReferralAtSql(workspaceId: string, customerId: string | SQL, partnerId: string | SQL): SQL {
  return earliestPartnerLeadSql(workspaceId, customerId, partnerId, IMPORTED_REFERRAL_LEAD);
}

/** The refunded amounts of the workspace's sales with these ids (an import compares them with its file's). */
export function saleRefundedAmounts({ ctx, input }: { ctx: Ctx; input: string[] }): Promise<Map<string, number>> {
  return saleRefunds(ctx.db, ctx.workspace.id, input);
}

/**
 * POST /api/track/refund: a sale's refunded total so far (cumulative: never below what is
 * recorded, never above its amount), for sales not from Stripe; analytics count it net and the
 * sale's commission follows, in one transaction.
 */
export async function trackRefund({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { saleId?: string; invoiceId?: string; refundedAmount: number };
}): Promise<SaleRow & { refundedAmount: number }> {
  if ((input.saleId === undefined) === (input.invoiceId === undefined)) throw invalid('saleId', 'sale_or_invoice');
  const by = input.saleId !== undefined ? { saleId: input.saleId } : { invoiceId: input.invoiceId! };
  const field = 'saleId' in by ? 'saleId' : 'invoiceId';
  return withTransaction(ctx.db, async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const sale = 'saleId' in by && !isUuid(by.saleId) ? undefined : await saleToRefund(tx, ctx.workspace.id, by);
    if (!sale) throw invalid(field, 'not_found');
    if (input.refundedAmount > sale.amount) throw invalid('refundedAmount', 'refund_above_amount', { amount: sale.amount });
    if (input.refundedAmount < sale.refundedAmount) throw invalid('refundedAmount', 'refund_below_recorded', { recorded: sale.refundedAmount });
    if (input.refundedAmount > sale.refundedAmount) await applyRefund({ ctx: txCtx, input: { saleId: sale.id, refundedAmount: input.refundedAmount } });
    return (await saleRecord(tx, ctx.workspace.id, sale.id))!;
  });
}

/** These customers' countries (their first lead's click), for the views that show a customer without their details (the partner portal). */
export function customerCountries({ ctx, input }: { ctx: Ctx; input: string[] }): Promise<Map<string, string | null>> {
  return firstLeadCountries(ctx.db, ctx.workspace.id, input);
}
