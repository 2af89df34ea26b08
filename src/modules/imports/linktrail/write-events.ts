import type { Ctx } from '../../../core/context.js';
import { importedClickHolders, insertImportedClicks } from '../../clicks/service.js';
import {
  applyRefund,
  importedEventHolders,
  saleRefundedAmounts,
  insertImportedLeads,
  insertImportedSales,
  type ImportedLeadRow,
} from '../../conversions/service.js';
import { customerHolders, customerIdsByExternalId } from '../../customers/service.js';
import { linkHolders } from '../../links/service.js';
import { partners } from '../../partners/service.js';
import { resolveReferences, targetsOf, type Holders, type Target } from './ids.js';
import type { ClickRecord, LeadRecord, SaleRecord } from './records.js';
import { failed, firstOfEach, missing, nothingWritten, type Line, type Written } from './written.js';

/**
 * Clicks, leads and sales of an export: history, written once and never changed (but a sale's
 * refunded amount, which Stripe refunds move later). Each batch is one statement through the
 * module that owns the table, rollups included, so analytics count them as they were counted
 * where they came from. A click keeps its id where it is free on this server, so a visitor's
 * click id (in the attribution cookie) still attributes a lead tracked here.
 */

/** The records not stored here yet, with their id here; the rest are unchanged, or fail (deleted, taken). */
async function newOnes<R extends { id: string }>(ctx: Ctx, kind: 'click' | 'lead' | 'sale', all: Line<R>[], holders: Holders, w: Written) {
  const lines = firstOfEach(all, (r) => [r.id], kind, w);
  const targets = await targetsOf(
    ctx,
    lines.map((l) => l.record.id),
    holders,
  );
  const out: (Line<R> & { target: Target })[] = [];
  for (const l of lines) {
    const target = targets.get(l.record.id)!;
    if (target.state === 'live') w.unchanged++;
    else if (target.state === 'new') out.push({ ...l, target });
    else w.failures.push(failed(l.line, 'id', target.state === 'deleted' ? 'deleted_here' : 'id_taken'));
  }
  return { fresh: out, targets };
}

/** A record that cannot be written: its failure noted, nothing to write. */
function reject(w: Written, failure: Written['failures'][number]): [] {
  w.failures.push(failure);
  return [];
}

const links = (ctx: Ctx, ids: string[]) => resolveReferences(ctx, ids, (x) => linkHolders({ ctx, input: x }));

export async function writeClickRecords(ctx: Ctx, all: Line<ClickRecord>[]): Promise<Written> {
  const w = nothingWritten();
  const { fresh } = await newOnes(ctx, 'click', all, (ids) => importedClickHolders({ ctx, input: ids }), w);
  const linkIds = await links(
    ctx,
    fresh.map((l) => l.record.linkId),
  );
  // A click's partner may be gone (partners delete softly): its id is mapped by the same rule all the same.
  const partnerIds = await targetsOf(
    ctx,
    fresh.flatMap((l) => l.record.partnerId ?? []),
    (ids) => partners.holders({ ctx, input: ids }),
  );
  const rows = fresh.flatMap(({ line, record: r, target }) => {
    const linkId = linkIds.get(r.linkId);
    if (!linkId) return reject(w, missing(line, 'linkId', 'link', r.linkId));
    const partnerId = r.partnerId ? partnerIds.get(r.partnerId)!.id : null;
    const none = (v: string | null | undefined) => v ?? null;
    return [
      {
        id: target.id,
        linkId,
        partnerId,
        createdAt: r.createdAt,
        country: none(r.country),
        device: r.device,
        browser: none(r.browser),
        os: none(r.os),
        referrer: r.referrer,
        referrerUrl: none(r.referrerUrl),
        utmSource: none(r.utmSource),
        utmMedium: none(r.utmMedium),
        utmCampaign: none(r.utmCampaign),
        utmTerm: none(r.utmTerm),
        utmContent: none(r.utmContent),
        trigger: r.trigger ?? 'link',
      },
    ];
  });
  await insertImportedClicks({ ctx, input: rows });
  w.created += rows.length;
  return w;
}

type EventRecord = LeadRecord | SaleRecord;

/** An event's link, customer and click as they are here, or the missing one. */
async function eventReferences(ctx: Ctx, lines: Line<EventRecord>[]) {
  const linkIds = await links(
    ctx,
    lines.map((l) => l.record.linkId),
  );
  const customers = await resolveReferences(
    ctx,
    lines.map((l) => l.record.customerId),
    (ids) => customerHolders({ ctx, input: ids }),
  );
  const unresolved = lines.filter((l) => !customers.has(l.record.customerId)).map((l) => l.record.customerExternalId);
  const byExternalId = unresolved.length ? await customerIdsByExternalId({ ctx, input: unresolved }) : new Map<string, string>();
  // Click ids map by the clicks' rule even when the click is not here (a bot's, or past retention).
  const clicks = await targetsOf(
    ctx,
    lines.map((l) => l.record.clickId),
    (ids) => importedClickHolders({ ctx, input: ids }),
  );
  return (l: Line<EventRecord>): Omit<ImportedLeadRow, 'id' | 'eventName' | 'metadata' | 'createdAt'> | ReturnType<typeof missing> => {
    const linkId = linkIds.get(l.record.linkId);
    if (!linkId) return missing(l.line, 'linkId', 'link', l.record.linkId);
    const customerId = customers.get(l.record.customerId) ?? byExternalId.get(l.record.customerExternalId);
    if (!customerId) return missing(l.line, 'customerId', 'customer', l.record.customerId);
    return { linkId, customerId, clickId: clicks.get(l.record.clickId)!.id };
  };
}

export async function writeLeadRecords(ctx: Ctx, all: Line<LeadRecord>[]): Promise<Written> {
  const w = nothingWritten();
  const { fresh } = await newOnes(ctx, 'lead', all, (ids) => importedEventHolders({ ctx, input: { kind: 'lead', ids } }), w);
  const refs = await eventReferences(ctx, fresh);
  const rows = fresh.flatMap((l) => {
    const ref = refs(l);
    if ('reason' in ref) return reject(w, ref);
    return [{ ...ref, id: l.target.id, eventName: l.record.eventName, metadata: l.record.metadata ?? null, createdAt: l.record.createdAt }];
  });
  w.created += await insertImportedLeads({ ctx, input: rows });
  return w;
}

export async function writeSaleRecords(ctx: Ctx, all: Line<SaleRecord>[]): Promise<Written> {
  const w = nothingWritten();
  const holders: Holders = (ids) => importedEventHolders({ ctx, input: { kind: 'sale', ids } });
  const { fresh, targets } = await newOnes(ctx, 'sale', all, holders, w);
  await refundsOf(ctx, all, targets, w);
  const refs = await eventReferences(ctx, fresh);
  const leadIds = await resolveReferences(
    ctx,
    fresh.flatMap((l) => l.record.leadId ?? []),
    (ids) => importedEventHolders({ ctx, input: { kind: 'lead', ids } }),
  );
  const rows = fresh.flatMap((l) => {
    const r = l.record;
    const ref = refs(l);
    if ('reason' in ref) return reject(w, ref);
    const leadId = r.leadId ? leadIds.get(r.leadId) : null;
    if (leadId === undefined) return reject(w, missing(l.line, 'leadId', 'lead', r.leadId!));
    return [
      {
        ...ref,
        id: l.target.id,
        eventName: r.eventName,
        metadata: r.metadata ?? null,
        createdAt: r.createdAt,
        amount: r.amount,
        currency: r.currency,
        leadId,
        refundedAmount: r.refundedAmount ?? 0,
      },
    ];
  });
  w.created += await insertImportedSales({ ctx, input: rows });
  return w;
}

/**
 * Sales already here whose refunded amount the file gives otherwise (a refund came after the
 * earlier import): the refund is applied as Stripe's would be, analytics net of it. Counted
 * updated instead of unchanged.
 */
async function refundsOf(ctx: Ctx, all: Line<SaleRecord>[], targets: Map<string, Target>, w: Written): Promise<void> {
  const here = all.filter((l) => targets.get(l.record.id)?.state === 'live');
  if (here.length === 0) return;
  const stored = await saleRefundedAmounts({ ctx, input: here.map((l) => targets.get(l.record.id)!.id) });
  for (const l of here) {
    const id = targets.get(l.record.id)!.id;
    const wanted = l.record.refundedAmount ?? 0;
    if (stored.get(id) === undefined || stored.get(id) === wanted) continue;
    await applyRefund({ ctx, input: { saleId: id, refundedAmount: wanted } });
    w.unchanged--;
    w.updated++;
  }
}
