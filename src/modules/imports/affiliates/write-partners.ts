import type { Ctx } from '../../../core/context.js';
import type { Item } from '../../../core/items.js';
import { createPartners, importPayoutEmails, partnersByEmailOrKey, upsertPartners, type MatchedPartner } from '../../partners/service.js';
import type { BatchDeps } from '../apply-batch.js';
import { writeRows } from '../write-rows.js';
import { nothingWritten, rejected, type PartnerRow, type Written } from './rows.js';

/**
 * The partners of an affiliate tool's export (operations.md §18 "Moving in"), written through the
 * partners service as the API writes them, a row failing alone (write-rows.ts). A row is the
 * partner it names by e-mail, else by referral key (ignoring case). A new partner is created
 * approved in the program's group `default`, as §18 makes the partners an owner creates: they were
 * active partners in the old tool; approving them makes their default link at once. A partner
 * already here keeps what they have: the file adds only what they lack (an e-mail, a referral key,
 * coupon codes), so importing the same file again changes nothing. A payout e-mail is set only
 * for a partner without payout details, and counts as a change of details (§18 "Payouts").
 */

interface Planned {
  line: number;
  item: Item;
  row: PartnerRow;
  /** The partner's id: the matched one's, or the created one's once written. */
  id?: string;
}

const lower = (s: string | undefined) => s?.toLowerCase();

/** What a matched partner lacks that the row gives; undefined when nothing. */
function additions(p: MatchedPartner, row: PartnerRow, keyHolder: MatchedPartner | undefined): Item | undefined {
  const item: Item = {};
  if (!p.email && row.email) item.email = row.email;
  if (!p.referralKey && row.referralKey && !keyHolder) item.referralKey = row.referralKey;
  const held = new Set(p.couponCodes.map((c) => c.toLowerCase()));
  const added = row.couponCodes.filter((c) => !held.has(c.toLowerCase()));
  if (added.length) item.couponCodes = [...p.couponCodes, ...added];
  return Object.keys(item).length ? { id: p.id, ...item } : undefined;
}

/** The chunks written per service call: within the plan's items per request. */
function chunks<T>(ctx: Ctx, all: T[]): T[][] {
  const size = Math.min(250, ctx.workspace.maxBulkItems);
  const out: T[][] = [];
  for (let at = 0; at < all.length; at += size) out.push(all.slice(at, at + size));
  return out;
}

async function writeEach(ctx: Ctx, planned: Planned[], call: (c: Ctx, items: Item[]) => Promise<{ id: string }[]>, w: Written): Promise<Planned[]> {
  const done: Planned[] = [];
  for (const chunk of chunks(ctx, planned)) {
    const written = await writeRows(
      ctx,
      chunk,
      async (c, left) => {
        const rows = await call(
          c,
          left.map((p) => p.item),
        );
        left.forEach((p, i) => (p.id = rows[i]!.id));
      },
      w.failures,
    );
    done.push(...written);
  }
  return done;
}

export async function writePartnerRows(ctx: Ctx, deps: BatchDeps, rows: PartnerRow[]): Promise<Written> {
  const w = nothingWritten();
  const found = await partnersByEmailOrKey({
    ctx,
    input: { emails: rows.flatMap((r) => r.email ?? []), keys: rows.flatMap((r) => r.referralKey ?? []) },
  });
  const byEmail = new Map<string, MatchedPartner>();
  const byKey = new Map<string, MatchedPartner>();
  for (const p of found) {
    if (p.email && !byEmail.has(p.email.toLowerCase())) byEmail.set(p.email.toLowerCase(), p);
    if (p.referralKey) byKey.set(p.referralKey.toLowerCase(), p);
  }
  const seen = new Map<string, number>();
  const creates: Planned[] = [];
  const updates: Planned[] = [];
  const matched: { row: PartnerRow; partner: MatchedPartner; changed: boolean }[] = [];
  for (const row of rows) {
    const keyHolder = row.referralKey ? byKey.get(row.referralKey) : undefined;
    const partner = (row.email ? byEmail.get(row.email.toLowerCase()) : undefined) ?? keyHolder;
    // One statement cannot write one partner twice: a later row of the batch naming the same one is rejected.
    const names = partner
      ? [`p:${partner.id}`]
      : [lower(row.email) && `e:${lower(row.email)}`, row.referralKey && `k:${row.referralKey}`].filter((n): n is string => !!n);
    const first = names.map((n) => seen.get(n)).find((l) => l !== undefined);
    if (first !== undefined) {
      w.failures.push(rejected(row.line, 'row', 'duplicate_record_in_file', { kind: 'partner', kindAr: 'الشريك', other: first }));
      continue;
    }
    for (const n of names) seen.set(n, row.line);
    if (!partner) {
      const item: Item = { name: row.name, ...(row.email ? { email: row.email } : {}), ...(row.referralKey ? { referralKey: row.referralKey } : {}) };
      if (row.couponCodes.length) item.couponCodes = row.couponCodes;
      creates.push({ line: row.line, item, row });
      continue;
    }
    const item = additions(partner, row, keyHolder && keyHolder.id !== partner.id ? keyHolder : undefined);
    if (item) updates.push({ line: row.line, item, row, id: partner.id });
    else matched.push({ row, partner, changed: false });
  }
  const created = await writeEach(ctx, creates, (c, items) => createPartners({ ctx: c, deps: deps.partners ?? {}, input: items }), w);
  const updated = await writeEach(ctx, updates, (c, items) => upsertPartners({ ctx: c, deps: deps.partners ?? {}, input: items }), w);
  // Payout e-mails for the partners written or found without details.
  const payouts = [
    ...created.map((p) => ({ id: p.id!, row: p.row })),
    ...updated.map((p) => ({ id: p.id!, row: p.row })),
    ...matched.filter((m) => !m.partner.hasPayoutDetails).map((m) => ({ id: m.partner.id, row: m.row })),
  ].flatMap(({ id, row }) => (row.payout ? [{ partnerId: id, ...row.payout }] : []));
  const set = new Set(await importPayoutEmails({ ctx, sealer: deps.links.sealer, input: payouts }));
  w.created += created.length;
  w.updated += updated.length;
  for (const m of matched) {
    if (set.has(m.partner.id)) w.updated++;
    else w.unchanged++;
  }
  return w;
}
