import type { SQL } from 'drizzle-orm';
import type { Ctx } from '../../core/context.js';
import { isPlanStale, retryOnConflict, withTransaction } from '../../core/transaction.js';
import type { Conn } from '../../db/connect.js';
import { isUuid, newId } from '../../db/ids.js';
import {
  clickPartnerFactsSql,
  earnForConversion,
  planConversionCommission,
  plannedCommissionWrite,
  preReadFactsSql,
  type EarnFacts,
  type PlannedCommission,
  type StoredConversion,
} from '../commissions/service.js';
import { eventById } from '../events/service.js';
import { onRollupSlot } from '../analytics/service.js';
import { findProgram, programOfRow, programRowSql, type ProgramRow } from '../program/service.js';
import { eventBody, eventTypesWanted, recordEvents, type EventType } from '../webhooks/service.js';
import {
  eventRollupsSql,
  PRE_READ_CUSTOMER,
  PRE_READ_PARTNER,
  programAndConversion,
  RECORDING_CUSTOMER,
  RECORDING_PARTNER,
  rollUpEvent,
  type ConversionPreRead,
  type CustomerInput,
  type WritePlan,
} from './store.js';

/** What a tracked event's webhook needs: the short links' origin (the Event record's shortUrl), and whom to wake. */
export interface ConversionEventDeps {
  shortLinkBaseUrl: string;
  /** Told after a commit that queued webhook deliveries (wakes the delivery worker). */
  onEventsWritten?: () => void;
}

const EVENT_TYPE = { lead: 'lead.created', sale: 'sale.created' } as const;

/**
 * Runs the write of one lead or sale (undefined: nothing written), with its webhook if one is
 * wanted and, when the workspace has a partner program, the commission it earns (`asConversion`
 * tells commissions what was stored).
 */
export type ConversionWriter = <R extends { id: string; rollupsDeferred: boolean }>(
  write: (db: Conn, plan: WritePlan) => Promise<R | undefined>,
  /** What commissions read of the row; undefined: it earns nothing (a browser's event for an existing customer). */
  asConversion: (row: R) => StoredConversion | undefined,
) => Promise<R | undefined>;

/**
 * How this request writes a lead or a sale (operations.md §11): when some endpoint of the
 * workspace wants lead.created / sale.created, the event and its webhook (data: the Event record
 * of GET /api/events, timestamp: its createdAt) in one transaction; otherwise the one statement
 * of the write. The program's read decides, before the write; for a lead or sale by a stored
 * click (`byClick`) it also reads what decides its commission, which the event's statement then
 * writes.
 * Writers take rollups and link days in one order (analytics/store-rollup-writes.ts), so they do
 * not deadlock on them; should PostgreSQL still end a write for a deadlock, it rolled back whole
 * and runs again (retryOnConflict).
 */
export async function conversionWriter(ctx: Ctx, deps: ConversionEventDeps, kind: 'lead' | 'sale', byClick?: ConversionByClick): Promise<ConversionWriter> {
  const [wanted, read] = await Promise.all([eventTypesWanted({ ctx, input: { workspaceId: ctx.workspace.id } }), programAndConversionOf(ctx, kind, byClick)]);
  const program = read.program;
  const webhook = wanted.has(EVENT_TYPE[kind]);
  // An event of a stored click whose commission is decided before it (no commission.created webhook to write with it).
  const planned =
    program && byClick && read.conversion && !wanted.has('commission.created') ? plannedConversion(ctx, program, kind, byClick, read.conversion) : undefined;
  // Without a program, or for a lead of a click without a partner (it earns nothing), nothing is earned.
  const earns = program && planned !== PLAIN_CLICK;
  if (!earns)
    return webhook ? inTransaction(ctx, deps, kind) : (write) => onRollupSlot((slot) => retryOnConflict(() => write(ctx.db, { rollups: 'now', slot })));
  const afterWrite = earningAfter(ctx, deps, kind, program, wanted, webhook);
  if (!planned) return afterWrite;
  const plan = planned.plan;
  const commission = (newCustomerId: string, invoiceRepeat?: SQL) => plannedCommissionWrite(plan, newCustomerId, invoiceRepeat);
  const write = (w: Parameters<ConversionWriter>[0]) => (db: Conn, slot: number) => w(db, { rollups: 'now', slot, commission });
  const once = webhook
    ? inTransaction(ctx, deps, kind, write)
    : (((w) => onRollupSlot((slot) => retryOnConflict(() => write(w)(ctx.db, slot)))) as ConversionWriter);
  // When the plan no longer holds, the statement wrote nothing: earned as any lead, from fresh facts.
  return async (w, asConversion) => {
    try {
      return await once(w, asConversion);
    } catch (err) {
      if (!isPlanStale(err)) throw err;
      return afterWrite(w, asConversion);
    }
  };
}

/**
 * The write in a transaction with its webhook (lead.created or sale.created wanted). `write`: how
 * the caller's write is run (default: its rollups with it).
 */
function inTransaction(
  ctx: Ctx,
  deps: ConversionEventDeps,
  kind: 'lead' | 'sale',
  write: (w: Parameters<ConversionWriter>[0]) => (db: Conn, slot: number) => Promise<{ id: string } | undefined> = (w) => (db, slot) =>
    w(db, { rollups: 'now', slot }),
): ConversionWriter {
  const writer = async (w: Parameters<ConversionWriter>[0]) => {
    let queued = 0;
    const recorded = await onRollupSlot((slot) =>
      retryOnConflict(() =>
        withTransaction(ctx.db, async (tx) => {
          const row = await write(w)(tx, slot);
          if (row) queued = await recordConversionEvent({ ...ctx, db: tx }, deps, kind, row.id);
          return row;
        }),
      ),
    );
    if (queued > 0) deps.onEventsWritten?.();
    return recorded;
  };
  return writer as ConversionWriter;
}

/**
 * The writer that earns after the write, in its transaction: the event (a lead reading its
 * commission facts in its own statement, one round trip fewer), then the commission it earns and
 * its webhook. A partner's event leaves its rollups to the end: their rows, shared by a link's
 * events, stay locked only briefly (store.ts RollupTiming); they are written in the commission's
 * insert when it has one, else in a statement of their own, last.
 */
function earningAfter(
  ctx: Ctx,
  deps: ConversionEventDeps,
  kind: 'lead' | 'sale',
  program: ProgramRow,
  wanted: ReadonlySet<EventType>,
  webhook: boolean,
): ConversionWriter {
  const clickPartnerFacts = (of: { kind: 'lead' | 'sale'; clickId: string; referredAt?: SQL }) =>
    clickPartnerFactsSql({ ctx, input: { program, ...of, partner: RECORDING_PARTNER, customer: RECORDING_CUSTOMER } });
  return async (write, asConversion) => {
    let queued = 0;
    const recorded = await onRollupSlot((slot) =>
      retryOnConflict(() =>
        withTransaction(ctx.db, async (tx) => {
          const row = await write(tx, { rollups: 'lastUnlessPlain', slot, clickPartnerFacts });
          if (!row) return undefined;
          const txCtx = { ...ctx, db: tx };
          const rollups = row.rollupsDeferred ? eventRollupsSql(kind, ctx.workspace.id, row.id, slot) : undefined;
          const conversion = asConversion(row);
          const earned = conversion ? await earnForConversion({ ctx: txCtx, input: { program, conversion, wanted, alongside: rollups } }) : undefined;
          queued = webhook ? await recordConversionEvent(txCtx, deps, kind, row.id) : 0;
          if (rollups && !earned?.alongsideWritten) await rollUpEvent(tx, kind, ctx.workspace.id, row.id, slot);
          return row;
        }),
      ),
    );
    if (queued > 0) deps.onEventsWritten?.();
    return recorded;
  };
}

/** A lead or sale by a click (named, or its customer's latest lead's) from the API, as its writer decides its commission before it. */
export interface ConversionByClick {
  clickId: string;
  eventName: string;
  metadata: unknown;
  customer: CustomerInput;
  /** A sale's. */
  amount?: number;
  currency?: string;
  invoiceId?: string;
  /** Whether a sale named its click (false: found through the customer's latest lead). */
  named?: boolean;
  /** The scalar query of when an import says the partner referred the customer (a sale's maxDuration counts from it), of the pre-read's partner and customer. */
  referredAt?: (partner: SQL, customer: SQL) => SQL;
}

/** The program, and for `byClick` what it reads before its statement (programAndConversion): one statement either way. */
async function programAndConversionOf(
  ctx: Ctx,
  kind: 'lead' | 'sale',
  byClick?: ConversionByClick,
): Promise<{ program?: ProgramRow; conversion?: ConversionPreRead }> {
  if (!byClick || !isUuid(byClick.clickId)) return { program: await findProgram({ ctx }) };
  const facts = preReadFactsSql({
    ctx,
    input: {
      kind,
      clickId: byClick.clickId,
      partner: PRE_READ_PARTNER,
      customer: PRE_READ_CUSTOMER,
      referredAt: byClick.referredAt?.(PRE_READ_PARTNER, PRE_READ_CUSTOMER),
    },
  });
  const read = await programAndConversion(ctx.db, {
    workspaceId: ctx.workspace.id,
    clickId: byClick.clickId,
    customerExternalId: byClick.customer.externalId,
    invoiceId: byClick.invoiceId,
    program: programRowSql(ctx.workspace.id),
    facts,
  });
  return read ? { program: programOfRow(read.program), conversion: read } : {};
}

/** A lead's click has no partner: the lead earns nothing (a lead earns only for its own click's partner). */
const PLAIN_CLICK = 'plain click';

/**
 * An event of a stored click, its commission decided from what was read with the program: the
 * event as it will be stored (its customer as read, with the request's e-mail; its time the
 * reading's, checked again by the statement). PLAIN_CLICK for a lead of a click without a partner;
 * undefined when the click is not found yet (still queued), or when a sale earns for the
 * customer's winner rather than its click's partner: the writer then earns after the event.
 */
function plannedConversion(
  ctx: Ctx,
  program: ProgramRow,
  kind: 'lead' | 'sale',
  byClick: ConversionByClick,
  read: ConversionPreRead,
): { plan: PlannedCommission } | typeof PLAIN_CLICK | undefined {
  const click = read.click;
  if (!click) return undefined;
  if (!click.partnerId && kind === 'lead') return PLAIN_CLICK;
  const customer = read.customer;
  const conversion: StoredConversion = {
    kind,
    id: '',
    eventName: byClick.eventName,
    createdAt: read.now,
    linkId: click.linkId,
    clickId: byClick.clickId,
    partnerId: click.partnerId,
    clickAt: click.createdAt,
    country: click.country,
    metadata: (byClick.metadata ?? null) as Record<string, unknown> | null,
    customer: {
      id: customer?.id ?? '',
      email: byClick.customer.email !== undefined ? byClick.customer.email : (customer?.email ?? null),
      partnerId: customer?.partnerId ?? null,
    },
    amount: byClick.amount,
    currency: byClick.currency,
    named: byClick.named ?? true,
    invoiceRepeat: read.invoiceRepeat ?? undefined,
    source: 'server',
  };
  const plan = planConversionCommission({ ctx, input: { program, conversion, facts: read.facts as EarnFacts | null } });
  return plan ? { plan } : undefined;
}

/**
 * The sale.created (or lead.created) webhook of a conversion another module recorded in its own
 * transaction (`ctx.db`), when some endpoint wants it: a Stripe payment's sale. How many
 * deliveries it queued (the caller wakes the worker after its commit).
 */
export async function queueConversionEvent(ctx: Ctx, deps: ConversionEventDeps, kind: 'lead' | 'sale', id: string): Promise<number> {
  const wanted = await eventTypesWanted({ ctx, input: { workspaceId: ctx.workspace.id } });
  return wanted.has(EVENT_TYPE[kind]) ? recordConversionEvent(ctx, deps, kind, id) : 0;
}

/** Writes the webhook event of the lead or sale `id`, read back as GET /api/events shows it, on `ctx.db` (the write's transaction). */
async function recordConversionEvent(ctx: Ctx, deps: ConversionEventDeps, kind: 'lead' | 'sale', id: string): Promise<number> {
  const type = EVENT_TYPE[kind];
  const event = await eventById({ ctx, deps, input: { id, type: kind } });
  if (!event) throw new Error(`the ${kind} just recorded cannot be read back`);
  return recordEvents({ ctx, input: { events: [{ id: newId(), workspaceId: ctx.workspace.id, type, body: eventBody(type, event.createdAt, event) }] } });
}
