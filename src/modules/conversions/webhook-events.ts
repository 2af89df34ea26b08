import type { SQL } from 'drizzle-orm';
import type { Ctx } from '../../core/context.js';
import { retryOnConflict, withTransaction } from '../../core/transaction.js';
import type { Conn } from '../../db/connect.js';
import { newId } from '../../db/ids.js';
import { clickPartnerFactsSql, earnForConversion, type StoredConversion } from '../commissions/service.js';
import { eventById } from '../events/service.js';
import { onRollupSlot } from '../analytics/service.js';
import { findProgram } from '../program/service.js';
import { eventBody, eventTypesWanted, recordEvents } from '../webhooks/service.js';
import { eventRollupsSql, RECORDING_CUSTOMER, RECORDING_PARTNER, rollUpEvent, type WritePlan } from './store.js';

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
 * of the write, as before. One indexed read decides, before the write.
 */
export async function conversionWriter(ctx: Ctx, deps: ConversionEventDeps, kind: 'lead' | 'sale'): Promise<ConversionWriter> {
  const [wanted, program] = await Promise.all([eventTypesWanted({ ctx, input: { workspaceId: ctx.workspace.id } }), findProgram({ ctx })]);
  const webhook = wanted.has(EVENT_TYPE[kind]);
  // Writers take rollups and link days in one order (analytics/store-rollup-writes.ts), so they do not deadlock on
  // them; should PostgreSQL still end the write for a deadlock, it rolled back whole and runs again.
  if (!webhook && !program) return (write) => onRollupSlot((slot) => retryOnConflict(() => write(ctx.db, { rollups: 'now', slot })));
  // A lead's commission facts are read by its own statement (for its click's partner): one round trip fewer.
  const clickPartnerFacts = program
    ? (of: { kind: 'lead' | 'sale'; clickId: string; referredAt?: SQL }) =>
        clickPartnerFactsSql({ ctx, input: { program, ...of, partner: RECORDING_PARTNER, customer: RECORDING_CUSTOMER } })
    : undefined;
  return async (write, asConversion) => {
    let queued = 0;
    const recorded = await onRollupSlot((slot) =>
      retryOnConflict(() =>
        withTransaction(ctx.db, async (tx) => {
          // A partner's event leaves its rollups to the end: their rows, shared by a link's events, stay locked only briefly (store.ts RollupTiming).
          const row = await write(tx, { rollups: 'lastUnlessPlain', slot, clickPartnerFacts });
          if (!row) return undefined;
          const txCtx = { ...ctx, db: tx };
          // Written in the commission's insert when it has one, else in a statement of their own, last.
          const rollups = row.rollupsDeferred ? eventRollupsSql(kind, ctx.workspace.id, row.id, slot) : undefined;
          const conversion = program && asConversion(row);
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
