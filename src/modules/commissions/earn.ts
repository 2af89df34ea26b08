/**
 * What a lead or sale earns (operations.md §18 "Who earns", "Commissions", "Fraud rules"), decided
 * and written in the transaction that stores the event (`ctx.db`): both or neither, so a replay,
 * a retried Stripe event or a restart never pays twice or misses.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { Ctx } from '../../core/context.js';
import { newId } from '../../db/ids.js';
import { earningsOf, earnsWithinDuration, rewardFor, type ProgramRow, type Reward } from '../program/service.js';
import type { EventType } from '../webhooks/service.js';
import { isDisposableEmail, samePerson } from './fraud-signals.js';
import { commissionsCreated } from './events.js';
import { earnFacts, earnFactsSql, winCte, winCustomer, type EarnFacts, type PlannedCommission } from './store-earn.js';
import { insertCommissions, type CommissionRow, type NewCommission } from './store.js';

/** A lead or sale just stored, as commissions read it. */
export interface StoredConversion {
  kind: 'lead' | 'sale';
  id: string;
  eventName: string;
  createdAt: string;
  linkId: string;
  /** The click the conversion was attributed to (burst and sameVisitor read its visitor). */
  clickId: string;
  /** The partner the click recorded when it happened (never the link's current one). */
  partnerId: string | null;
  clickAt: string | null;
  country: string | null;
  metadata: Record<string, unknown> | null;
  customer: { id: string; email: string | null; partnerId: string | null };
  amount?: number;
  currency?: string;
  /** A sale that named its click (clickId, leadEventName, a coupon); false: found through the customer (latest lead, an invoice). */
  named: boolean;
  invoiceRepeat?: boolean;
  /** When an affiliate-tool import says this partner referred the customer (null: it does not), as a scalar query conversions write; maxDuration counts from it. */
  referredAtSql?: (workspaceId: string, partnerId: string) => SQL;
  /**
   * The conversion's facts for its click's partner, read in its recording statement
   * (clickPartnerFactsSql) without winning the customer and before the event itself was written: undefined when not read,
   * null when that partner is deleted or unknown.
   */
  clickPartnerFacts?: EarnFacts | null;
  /** Where it was reported from (server, client, stripe, import): a browser's (client) is held unless the program trusts them. */
  source?: string;
}

const DAY_MS = 86_400_000;

function withinAttribution(c: StoredConversion, program: ProgramRow): boolean {
  if (!c.clickAt) return false;
  return Date.parse(c.createdAt) - Date.parse(c.clickAt) <= program.attributionDays * DAY_MS;
}

/**
 * The partner a conversion earns for, and whether that takes the customer from the partner who
 * won them: a lead earns for its click's partner when within attributionDays; a sale that names
 * its click, for that click's partner (else the winner); a sale found through the customer, for
 * the partner who won them.
 */
function earningPartner(c: StoredConversion, program: ProgramRow): { partnerId: string; duplicate: boolean } | undefined {
  const won = c.customer.partnerId;
  const clicked = c.partnerId && withinAttribution(c, program) ? c.partnerId : null;
  // A lead earns only for the partner of its own click; a sale that names a click without a partner still earns for the one who won the customer.
  const partnerId = c.kind === 'lead' ? clicked : c.named ? (clicked ?? won) : (won ?? clicked);
  if (!partnerId) return undefined;
  return { partnerId, duplicate: won !== null && won !== partnerId };
}

/** `burst`: more than this many leads in an hour from one visitor or one network (the 11th and later fire). */
const BURST_LEADS = 10;

interface PartnerFacts {
  id: string;
  email: string | null;
  userId: string | null;
}

/**
 * Why the pair's first commission is held: each rule of the program's that fires. `burst` and
 * `sameVisitor` read the click's visitor (clicks' clickVisitorFactsSql, in earnFacts: kept 24 hours
 * for partners' human clicks; an older click, a bot's or an imported one fires neither):
 * `burst` counts the workspace's leads of the hour up to this conversion, itself included when
 * a lead, whose clicks share its click's visitor or network, for a lead or a sale alike (a sale
 * is judged by the leads before it); `sameVisitor` asks sessions whether the partner's user
 * signed in from the click's visitor on the click's UTC day.
 */
function holdReasons(program: ProgramRow, c: StoredConversion, partner: PartnerFacts, duplicate: boolean, facts: EarnFacts): string[] {
  const rules = program.fraudRules;
  const reasons: string[] = [];
  const email = c.customer.email;
  const visitor = facts.visitor;
  if (rules.selfReferral && email && partner.email && samePerson(email, partner.email)) reasons.push('selfReferral');
  if (rules.sameVisitor && partner.userId && visitor && facts.signedIn) reasons.push('sameVisitor');
  if (rules.disposableEmail && email && isDisposableEmail(email)) reasons.push('disposableEmail');
  if (rules.burst && visitor && visitor.leadsInHour > BURST_LEADS) reasons.push('burst');
  if (rules.duplicateCustomer && duplicate) reasons.push('duplicateCustomer');
  return reasons;
}

/** Later commissions of a (partner, customer) pair follow its first: held as it is, reversed for fraud as it was, else clean. */
function fraudVerdict(
  program: ProgramRow,
  c: StoredConversion,
  partner: PartnerFacts,
  duplicate: boolean,
  facts: EarnFacts,
): { status: 'pending' | 'held' | 'reversed'; holdReasons: string[]; reversedReason: string | null } {
  const first = facts.first;
  // A dispute holds its own sale's commission only: it is no verdict on the pair.
  const followed = first?.holdReasons.filter((r) => r !== 'dispute') ?? [];
  if (first?.status === 'held' && followed.length) return { status: 'held', holdReasons: followed, reversedReason: null };
  if (first?.status === 'reversed' && first.reversedReason === 'fraud') return { status: 'reversed', holdReasons: [], reversedReason: 'fraud' };
  const reasons = first ? (duplicate && program.fraudRules.duplicateCustomer ? ['duplicateCustomer'] : []) : holdReasons(program, c, partner, duplicate, facts);
  // Anyone can post a browser's event (operations.md §19): its commission waits for the owner's review.
  if (c.source === 'client' && !program.trustClientEvents) reasons.push('clientEvent');
  return { status: reasons.length ? 'held' : 'pending', holdReasons: reasons, reversedReason: null };
}

/**
/**
 * Where `maxDuration` counts from for the pair: the first sale commission's date, or the date an
 * affiliate-tool import says the customer was referred, whichever is earlier (operations.md §18
 * "Moving in": renewals keep earning as they did in the old tool, and stop when they did). The
 * import's date is asked of the conversion's writer, only for a reward with maxDuration.
 */
function durationStart(facts: EarnFacts): string | undefined {
  const dates = [facts.firstSaleAt, facts.referredAt].filter((d): d is string => typeof d === 'string');
  return dates.sort()[0];
}

/**
 * What the partner's commission is decided by, and the customer won for them when they have no
 * partner yet (only an approved partner wins), in one statement (store-earn.ts). The click's
 * visitor is read only as the fraud rules ask: for a pair's first commission, under `burst`, or
 * under `sameVisitor` for a partner with a user.
 */
function factsOf(ctx: Ctx, program: ProgramRow, c: StoredConversion, partnerId: string): Promise<EarnFacts | undefined> {
  const rules = program.fraudRules;
  return earnFacts(ctx.db, {
    workspaceId: ctx.workspace.id,
    partnerId,
    customerId: c.customer.id,
    win: !c.customer.partnerId,
    firstSale: c.kind === 'sale',
    referredAt: c.kind === 'sale' ? c.referredAtSql?.(ctx.workspace.id, partnerId) : undefined,
    visitor: rules.burst || rules.sameVisitor ? { clickId: c.clickId, at: c.createdAt, countUpTo: BURST_LEADS + 1, whenNoUser: rules.burst } : undefined,
    signedIn: rules.sameVisitor,
  });
}

/**
 * A lead's or sale's facts as WITH queries and a row for its recording statement to read
 * (conversions' recordLead, recordSale): `partner` and `customer` are that statement's scalar
 * queries of its click's partner and its customer; `referredAt`, a sale's import date (as
 * StoredConversion's referredAtSql). The customer is not won there (their row is written by the same statement):
 * earnForConversion wins them with the commission.
 */
export function clickPartnerFactsSql(
  workspaceId: string,
  q: { program: ProgramRow; kind: 'lead' | 'sale'; clickId: string; partner: SQL; customer: SQL; referredAt?: SQL },
): { ctes: SQL; row: SQL } {
  const { program, clickId } = q;
  const rules = program.fraudRules;
  return earnFactsSql({
    workspaceId,
    partnerId: q.partner,
    customerId: q.customer,
    win: false,
    firstSale: q.kind === 'sale',
    referredAt: q.kind === 'sale' ? q.referredAt : undefined,
    visitor: rules.burst || rules.sameVisitor ? { clickId, at: sql`now()`, countUpTo: BURST_LEADS + 1, whenNoUser: rules.burst } : undefined,
    signedIn: rules.sameVisitor,
  });
}

/**
 * A lead's or sale's facts read before its statement, beside the program (conversions' pre-read,
 * before the rules are known): the click's visitor and the partner's sign-ins are read whatever
 * the rules, which only decide what they count for (holdReasons); a sale's first sale and import
 * date (`referredAt`) whatever its reward. `partner` and `customer`: scalar queries of the reading
 * statement (the click's partner, the customer as it is).
 */
export function preReadFactsSql(
  workspaceId: string,
  q: { kind: 'lead' | 'sale'; clickId: string; partner: SQL; customer: SQL; referredAt?: SQL },
): { ctes: SQL; row: SQL } {
  return earnFactsSql({
    workspaceId,
    partnerId: q.partner,
    customerId: q.customer,
    win: false,
    firstSale: q.kind === 'sale',
    referredAt: q.kind === 'sale' ? q.referredAt : undefined,
    visitor: { clickId: q.clickId, at: sql`now()`, countUpTo: BURST_LEADS + 1, whenNoUser: true },
    signedIn: true,
  });
}

/** Facts read before the event was written: a lead's own lead counts in the hour's (as when read after it); a sale is judged by the leads before it. */
function withOwnLead(c: StoredConversion, facts: EarnFacts | null): EarnFacts | undefined {
  if (!facts) return undefined;
  return c.kind === 'lead' && facts.visitor ? { ...facts, visitor: { ...facts.visitor, leadsInHour: facts.visitor.leadsInHour + 1 } } : facts;
}

/** What earning wrote: the commission (none when the conversion earns none), and whether the caller's `alongside` ran with it. */
export interface Earned {
  commission?: CommissionRow;
  alongsideWritten: boolean;
}

const NOTHING_EARNED: Earned = { alongsideWritten: false };

/**
 * The commission the earning partner's conversion earns by the rewards and fraud rules (none: it
 * repeats an invoice, no reward matches, or a renewal is past maxDuration); `facts` are the
 * pair's, of an approved partner. Its event, customer, link and time are the conversion's.
 */
function commissionFor(
  workspaceId: string,
  program: ProgramRow,
  c: StoredConversion,
  earning: { partnerId: string; duplicate: boolean },
  facts: EarnFacts,
): NewCommission | undefined {
  if (c.kind === 'sale' && c.invoiceRepeat) return undefined;
  const event = { kind: c.kind, eventName: c.eventName, amount: c.amount, currency: c.currency, country: c.country, metadata: c.metadata };
  const reward = rewardFor((facts.rewards ?? []) as Reward[], event, program.currency);
  if (!reward) return undefined;
  if (c.kind === 'sale' && reward.maxDuration !== undefined) {
    const first = durationStart(facts);
    if (first && !earnsWithinDuration(new Date(first), new Date(c.createdAt), reward.maxDuration, false)) return undefined;
  }
  const { earnings, currency } = earningsOf(reward, event, program.currency);
  const verdict = fraudVerdict(program, c, { id: earning.partnerId, email: facts.email, userId: facts.userId }, earning.duplicate, facts);
  return {
    id: newId(),
    workspaceId,
    partnerId: earning.partnerId,
    type: c.kind,
    linkId: c.linkId,
    customerId: c.customer.id,
    eventId: c.id,
    saleAmount: c.kind === 'sale' ? (c.amount ?? null) : null,
    currency,
    earnings,
    ...verdict,
    description: null,
    at: c.createdAt,
    holdingDays: program.holdingDays,
  };
}

/**
 * The commission the conversion earns, written. Two statements for a partner's conversion
 * (earnFacts, then the insert), and a third for the commission.created webhook when an endpoint
 * wants it (`wanted`: the types the caller read for this write, if any). `alongside`: the
 * caller's WITH queries, written in the insert's statement when there is one (the conversion's
 * rollups, taken last in its transaction).
 */
export async function earnForConversion(ctx: Ctx, program: ProgramRow, c: StoredConversion, wanted?: ReadonlySet<EventType>, alongside?: SQL): Promise<Earned> {
  const earning = earningPartner(c, program);
  if (!earning) return NOTHING_EARNED;
  // The customer's first earning partner wins them (a partner of a named click within the window, or the one who won): in factsOf's
  // statement, or, with the facts the lead's own statement read, in the commission's insert (else on its own).
  const prefetched = c.clickPartnerFacts !== undefined && earning.partnerId === c.partnerId;
  const facts = prefetched ? withOwnLead(c, c.clickPartnerFacts ?? null) : await factsOf(ctx, program, c, earning.partnerId);
  if (facts?.status !== 'approved') return NOTHING_EARNED;
  const win = prefetched && !c.customer.partnerId ? winCte(ctx.workspace.id, c.customer.id, earning.partnerId) : undefined;
  const commission = commissionFor(ctx.workspace.id, program, c, earning, facts);
  if (!commission) {
    if (win) await winCustomer(ctx.db, ctx.workspace.id, c.customer.id, earning.partnerId);
    return NOTHING_EARNED;
  }
  const written = await insertCommissions(ctx.db, [commission], win && alongside ? sql`${win}, ${alongside}` : (win ?? alongside));
  await commissionsCreated(ctx, written, wanted);
  return { commission: written[0], alongsideWritten: alongside !== undefined };
}

/**
 * What a lead or sale earns, decided before it is written from facts read before it
 * (preReadFactsSql, for the click's partner): its statement then wins the customer and writes the
 * commission itself (plannedInsertSql), one statement for the event and its commission, and checks
 * that what was read still holds (planHoldsSql). `c` is the event as it will be stored (its
 * customer as read, with the request's e-mail; its time the reading's). Undefined: it cannot be
 * decided so, because it earns for a partner other than its click's (a sale for the customer's
 * winner), whose facts were not read.
 */
export function planConversionCommission(workspaceId: string, program: ProgramRow, c: StoredConversion, read: EarnFacts | null): PlannedCommission | undefined {
  const earning = earningPartner(c, program);
  if (earning && earning.partnerId !== c.partnerId) return undefined;
  const within = c.partnerId !== null && withinAttribution(c, program);
  const base = {
    clickPartnerId: c.partnerId,
    // A customer not made yet has no id ('').
    customerId: c.customer.id === '' ? undefined : c.customer.id,
    customerPartnerId: c.customer.partnerId,
    attributedUntil: within ? { clickAt: c.clickAt!, days: program.attributionDays } : undefined,
    invoiceRepeat: c.invoiceRepeat,
  };
  const facts = earning && withOwnLead(c, read);
  if (!earning || facts?.status !== 'approved') return { ...base, partnerId: null, win: false };
  return { ...base, partnerId: earning.partnerId, win: !c.customer.partnerId, commission: commissionFor(workspaceId, program, c, earning, facts) };
}
