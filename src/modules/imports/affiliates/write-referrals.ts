import type { Ctx } from '../../../core/context.js';
import { newId } from '../../../db/ids.js';
import type { ImportedRecord } from '../../bulk/service.js';
import { recordImportedReferralClicks } from '../../clicks/service.js';
import { IMPORTED_REFERRAL_LEAD, insertImportedLeads } from '../../conversions/service.js';
import { customerIdsByExternalId, customersByIds, importCustomers, winCustomers } from '../../customers/service.js';
import { partnersByEmailOrKey, type MatchedPartner } from '../../partners/service.js';
import { rememberStripeCustomers } from '../../stripe/service.js';
import { writeRows } from '../write-rows.js';
import type { AffiliateSource } from './fields.js';
import { nothingWritten, rejected, type ReferralRow, type Written } from './rows.js';

/**
 * The referred customers of an affiliate tool's export (operations.md §18 "Moving in"): each is
 * found by its external id or created, and won for the partner the row names, with a lead
 * `Imported referral` dated as in the file on the partner's default link, standing on a click
 * counted nowhere (as a coupon's). Later sales reach the customer through that lead (or §12's
 * Stripe customer, remembered) and earn for the partner as renewals did in the old tool, and
 * `maxDuration` counts from that date (commissions/earn.ts). The import itself earns nothing:
 * the lead is written as imported events are, past the commission writes, so what the old tool
 * paid is not paid again. A customer already won by the same partner is unchanged (the same
 * file again changes nothing); one won by another partner, or a row naming a partner that is not
 * here (or not approved, without a default link), is rejected with the reason.
 */

interface Referral {
  row: ReferralRow;
  partner: MatchedPartner;
  /** The customer's id here: found, or created. */
  customerId: string;
  isNew: boolean;
}

function partnerOf(row: ReferralRow, byKey: Map<string, MatchedPartner>, byEmail: Map<string, MatchedPartner>): MatchedPartner | undefined {
  return (row.partnerKey ? byKey.get(row.partnerKey) : undefined) ?? (row.partnerEmail ? byEmail.get(row.partnerEmail.toLowerCase()) : undefined);
}

/** The rows whose partner is here and approved, each once per external id; the others fail. */
async function withPartners(ctx: Ctx, rows: ReferralRow[], w: Written): Promise<{ row: ReferralRow; partner: MatchedPartner }[]> {
  const found = await partnersByEmailOrKey({
    ctx,
    input: { emails: rows.flatMap((r) => r.partnerEmail ?? []), keys: rows.flatMap((r) => r.partnerKey ?? []) },
  });
  const byKey = new Map(found.flatMap((p) => (p.referralKey ? [[p.referralKey.toLowerCase(), p] as const] : [])));
  const byEmail = new Map<string, MatchedPartner>();
  for (const p of found) if (p.email && !byEmail.has(p.email.toLowerCase())) byEmail.set(p.email.toLowerCase(), p);
  const seen = new Map<string, number>();
  const out: { row: ReferralRow; partner: MatchedPartner }[] = [];
  for (const row of rows) {
    const partner = partnerOf(row, byKey, byEmail);
    const field = row.partnerKey ? 'partnerKey' : 'partnerEmail';
    if (!partner) w.failures.push(rejected(row.line, field, 'partner_unknown', { value: (row.partnerKey ?? row.partnerEmail)! }));
    else if (partner.status !== 'approved' || !partner.defaultLinkId)
      w.failures.push(rejected(row.line, field, 'partner_without_link', { status: partner.status }));
    else if (seen.has(row.externalId)) {
      w.failures.push(
        rejected(row.line, 'customerExternalId', 'duplicate_record_in_file', { kind: 'customer', kindAr: 'العميل', other: seen.get(row.externalId)! }),
      );
    } else {
      seen.set(row.externalId, row.line);
      out.push({ row, partner });
    }
  }
  return out;
}

/** The customers to win: found unwon, or created; unchanged and conflicting rows counted here. */
async function customersOf(ctx: Ctx, named: { row: ReferralRow; partner: MatchedPartner }[], w: Written): Promise<Referral[]> {
  const ids = await customerIdsByExternalId({ ctx, input: named.map((n) => n.row.externalId) });
  const current = new Map((await customersByIds({ ctx, input: [...ids.values()] })).map((c) => [c.id, c]));
  const toWin: Referral[] = [];
  const creates: (ImportedRecord & { line: number; referral: Referral })[] = [];
  for (const { row, partner } of named) {
    const id = ids.get(row.externalId);
    const customer = id === undefined ? undefined : current.get(id);
    if (customer?.partnerId === partner.id) w.unchanged++;
    else if (customer?.partnerId) w.failures.push(rejected(row.line, 'customerExternalId', 'customer_won_by_other', { partnerId: customer.partnerId }));
    else if (customer) toWin.push({ row, partner, customerId: customer.id, isNew: false });
    else {
      const referral: Referral = { row, partner, customerId: newId(), isNew: true };
      const fields = { name: row.name ?? null, email: row.email ?? null, avatar: null, externalId: row.externalId };
      creates.push({ line: row.line, id: referral.customerId, update: false, fields, createdAt: row.referredAt, referral });
    }
  }
  const size = Math.min(250, ctx.workspace.maxBulkItems);
  for (let at = 0; at < creates.length; at += size) {
    const done = await writeRows(ctx, creates.slice(at, at + size), (c, left) => importCustomers({ ctx: c, input: left }), w.failures);
    toWin.push(...done.map((d) => d.referral));
  }
  return toWin;
}

export async function writeReferralRows(ctx: Ctx, rows: ReferralRow[], source: AffiliateSource): Promise<Written> {
  const w = nothingWritten();
  const referrals = await customersOf(ctx, await withPartners(ctx, rows, w), w);
  const now = ctx.now.toISOString();
  const written = referrals.map((r) => ({ ...r, clickId: newId(), at: r.row.referredAt ?? now }));
  await recordImportedReferralClicks({
    ctx,
    input: written.map((r) => ({ id: r.clickId, linkId: r.partner.defaultLinkId!, partnerId: r.partner.id, createdAt: r.at })),
  });
  await winCustomers({ ctx, input: written.map((r) => ({ customerId: r.customerId, partnerId: r.partner.id })) });
  await insertImportedLeads({
    ctx,
    input: written.map((r) => ({
      id: newId(),
      eventName: IMPORTED_REFERRAL_LEAD,
      clickId: r.clickId,
      linkId: r.partner.defaultLinkId!,
      customerId: r.customerId,
      metadata: { source: 'import', importedFrom: source },
      createdAt: r.at,
    })),
  });
  // A renewal Stripe reports for the customer (§12's invoice.paid) finds them by their Stripe id.
  await rememberStripeCustomers({
    ctx,
    input: written.flatMap((r) =>
      r.row.stripeCustomerId ? [{ stripeCustomerId: r.row.stripeCustomerId, customerExternalId: r.row.externalId, clickId: r.clickId }] : [],
    ),
  });
  for (const r of written) {
    if (r.isNew) w.created++;
    else w.updated++;
    // Written with the import's time instead of a date out of range: listed, not failed.
    w.failures.push(...(r.row.warnings ?? []));
  }
  return w;
}
