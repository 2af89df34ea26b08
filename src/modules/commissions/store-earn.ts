/**
 * What a conversion's commission is decided by, read in one statement of the event's transaction
 * (earn.ts): the earning partner's standing, their group's rewards, the pair's first commission
 * and first sale, and, for a pair's first commission, the click's visitor and whether the
 * partner's user signed in from it; winning the customer is done in the same statement. The
 * other modules' parts come from their services (partners, program, customers, clicks,
 * sessions): one round trip instead of one per question, each holding the pool's connection.
 */
import { sql, type SQL } from 'drizzle-orm';
import { preparedRows, type Conn } from '../../db/connect.js';
import { isoTimestamp } from '../../db/resource-table.js';
import { clickVisitorFactsSql, type ClickVisitorFacts } from '../clicks/service.js';
import { winningPartnerSql } from '../customers/service.js';
import { partnerStandingSql } from '../partners/service.js';
import { groupRewardsSql } from '../program/service.js';
import { signedInFromVisitorSql } from '../sessions/service.js';
import type { NewCommission, StoredStatus } from './store.js';

export interface EarnFacts {
  status: string;
  groupId: string | null;
  userId: string | null;
  email: string | null;
  /** The rewards of the partner's group (null: no such group). */
  rewards: unknown[] | null;
  /** When the pair's first sale commission was made (null: none yet, or not asked). */
  firstSaleAt: string | null;
  /** When an import says the partner referred the customer (null: it does not, or not asked). */
  referredAt: string | null;
  /** The pair's first commission (null: none yet). */
  first: { status: StoredStatus; holdReasons: string[]; reversedReason: string | null } | null;
  /** The click's visitor (clicks' clickVisitorFacts): null when not asked, when the pair has a first commission, or when none is kept. */
  visitor: ClickVisitorFacts | null;
  /** Whether the partner's user signed in from the click's visitor on its day; null when not asked or not known. */
  signedIn: boolean | null;
}

export interface EarnFactsQuery {
  workspaceId: string;
  /** The partner and customer: ids, or scalar queries of the statement the facts are read in (a lead's own). */
  partnerId: string | SQL;
  customerId: string | SQL;
  /** Win the customer for the partner, if approved (the customer has no partner yet). */
  win: boolean;
  /** Read the pair's first sale (a sale's reward may have a maxDuration). */
  firstSale: boolean;
  /** The conversions' scalar query of when an import says the partner referred the customer (a sale's maxDuration counts from it too). */
  referredAt?: SQL;
  /** Read the click's visitor for a pair's first commission: `whenNoUser` false reads it only for a partner with a user. */
  visitor?: { clickId: string; at: string | SQL; countUpTo: number; whenNoUser: boolean };
  /** Ask sessions whether the partner's user signed in from the click's visitor. */
  signedIn: boolean;
}

const uuid = (v: string | SQL): SQL => (typeof v === 'string' ? sql`${v}::uuid` : v);

/** The facts as WITH queries (st, win, pf, cv) and the SELECT of their one row (none: the partner is deleted or unknown). */
export function earnFactsSql(q: EarnFactsQuery): { ctes: SQL; row: SQL } {
  const [partner, customer] = [uuid(q.partnerId), uuid(q.customerId)];
  const approved = sql`EXISTS (SELECT 1 FROM st WHERE st.status = 'approved')`;
  const win = q.win ? sql`win AS (${winningPartnerSql(q.workspaceId, customer, partner, approved)}),` : sql``;
  const visitorWhen = sql`${approved} AND NOT EXISTS (SELECT 1 FROM pf)${q.visitor?.whenNoUser ? sql`` : sql` AND EXISTS (SELECT 1 FROM st WHERE st.user_id IS NOT NULL)`}`;
  const cv = q.visitor
    ? sql`cv AS (${clickVisitorFactsSql(q.workspaceId, q.visitor.clickId, q.visitor.at, q.visitor.countUpTo, visitorWhen)})`
    : sql`cv AS (SELECT NULL::text AS visitor, NULL::text AS day, NULL::int AS "leadsInHour" WHERE false)`;
  const signedIn = q.signedIn
    ? sql`(SELECT ${signedInFromVisitorSql(sql`st.user_id`, sql`cv.day::date`, sql`cv.visitor::bigint`)} FROM cv WHERE st.user_id IS NOT NULL)`
    : sql`NULL::boolean`;
  const firstSale = q.firstSale
    ? sql`(SELECT ${sql.raw(isoTimestamp('min(s.created_at)'))} FROM commissions s
          WHERE s.workspace_id = ${q.workspaceId}::uuid AND s.customer_id = ${customer} AND s.partner_id = ${partner} AND s.type = 'sale')`
    : sql`NULL::text`;
  return {
    ctes: sql`st AS (${partnerStandingSql(q.workspaceId, partner)}),
      ${win}
      pf AS (
        SELECT status, hold_reasons AS "holdReasons", reversed_reason AS "reversedReason" FROM commissions
        WHERE workspace_id = ${q.workspaceId}::uuid AND customer_id = ${customer} AND partner_id = ${partner}
        ORDER BY created_at, seq LIMIT 1),
      ${cv}`,
    row: sql`SELECT st.status, st.group_id AS "groupId", st.user_id AS "userId", st.email,
        ${groupRewardsSql(q.workspaceId, sql`st.group_id`)} AS rewards,
        ${firstSale} AS "firstSaleAt",
        (${q.referredAt ?? sql`SELECT NULL::text`}) AS "referredAt",
        (SELECT row_to_json(pf) FROM pf) AS first,
        (SELECT row_to_json(cv) FROM cv) AS visitor,
        ${signedIn} AS "signedIn"
      FROM st`,
  };
}

/** The facts of an earning partner; undefined when the partner is deleted or unknown (nothing is won then). */
export async function earnFacts(conn: Conn, q: EarnFactsQuery): Promise<EarnFacts | undefined> {
  const { ctes, row } = earnFactsSql(q);
  const [found] = await preparedRows<EarnFacts>(conn, sql`WITH ${ctes} ${row}`);
  return found;
}

/** Wins the customer for the partner (no partner yet): as a WITH query of another statement, and on its own. */
export function winCte(workspaceId: string, customerId: string, partnerId: string): SQL {
  return sql`win AS (${winningPartnerSql(workspaceId, sql`${customerId}::uuid`, sql`${partnerId}::uuid`, sql`true`)})`;
}

export async function winCustomer(conn: Conn, workspaceId: string, customerId: string, partnerId: string): Promise<void> {
  await preparedRows(conn, sql`WITH ${winCte(workspaceId, customerId, partnerId)} SELECT 1`);
}

/**
 * A lead's or sale's commission decided before its statement (earn.ts planConversionCommission),
 * for that statement to write, with what it was decided from: the statement checks that again
 * (planHoldsSql).
 */
export interface PlannedCommission {
  /** The earning partner: the click's (null: the conversion earns nothing). */
  partnerId: string | null;
  /** Win the customer for the partner: they had none when read. */
  win: boolean;
  /** None when no reward matches or the partner is not approved (the customer is still won if `win`). */
  commission?: NewCommission;
  /** What the decision read: the click's partner, the customer (undefined: none yet, the statement makes them) and their partner. */
  clickPartnerId: string | null;
  customerId: string | undefined;
  customerPartnerId: string | null;
  /** When the click is within attributionDays (it was when read, and it decided the partner): until when. */
  attributedUntil?: { clickAt: string; days: number };
  /** A sale naming an invoice: whether an earlier sale named it (it then earns nothing). */
  invoiceRepeat?: boolean;
}

/**
 * Whether the event `ev` (the recording statement's insert; `c` its customer upsert, `invoiceRepeat`
 * the sale's own column) is what its commission was decided for: the click's partner, the
 * customer read (or the one the statement made, `newCustomerId`) with the partner they had or
 * were won for, within attributionDays by its own time if that decided, and an invoice as new as
 * it was. When not (a customer made or won by another request meanwhile, the window closing
 * meanwhile), the statement raises LT409 and writes nothing (migration 0054): the caller earns it
 * again from fresh facts. A column of the statement's final SELECT.
 */
export function planHoldsSql(p: PlannedCommission, newCustomerId: string, invoiceRepeat?: SQL): SQL {
  const customerPartner = p.customerPartnerId ?? (p.win ? p.partnerId : null);
  const window = p.attributedUntil
    ? sql` AND ev.created_at <= ${p.attributedUntil.clickAt}::timestamptz + make_interval(days => ${p.attributedUntil.days}::int)`
    : sql``;
  const invoice = p.invoiceRepeat !== undefined && invoiceRepeat ? sql` AND (${invoiceRepeat}) = ${p.invoiceRepeat}::boolean` : sql``;
  return sql`CASE WHEN ev.partner_id IS NOT DISTINCT FROM ${p.clickPartnerId}::uuid AND ev.customer_id = ${p.customerId ?? newCustomerId}::uuid
    AND (SELECT partner_id FROM c) IS NOT DISTINCT FROM ${customerPartner}::uuid${window}${invoice} THEN true ELSE linktrail_plan_stale() END`;
}

/** A text[] literal of identifiers (hold reasons): one parameter, where drizzle would spread an array into many. */
const textArray = (list: string[]): string => `{${list.map((v) => JSON.stringify(v)).join(',')}}`;

/**
 * The planned commission as a WITH query of the event's statement (`ev`, its inserted lead or
 * sale); the statement's planHoldsSql column undoes it when the plan no longer holds.
 */
export function plannedInsertSql(c: NewCommission): SQL {
  return sql`INSERT INTO commissions (id, workspace_id, partner_id, type, link_id, customer_id, event_id, sale_amount, currency, original_earnings, earnings,
        status, hold_reasons, reversed_reason, created_at, payable_at)
      SELECT ${c.id}::uuid, ev.workspace_id, ev.partner_id, ${c.type}::text, ev.link_id, ev.customer_id, ev.id, ${c.saleAmount}::bigint, ${c.currency}::text,
        ${c.earnings}::bigint, ${c.earnings}::bigint, ${c.status}::text, ${textArray(c.holdReasons)}::text[], ${c.reversedReason}::text,
        ev.created_at, ev.created_at + make_interval(days => ${c.holdingDays}::int)
      FROM ev
      ON CONFLICT DO NOTHING
      RETURNING 1`;
}
