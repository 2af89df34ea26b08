/**
 * The commissions side of a payout (operations.md §18 "Payouts"): what is payable, claimed with
 * one conditional update in the payout's transaction, then paid or handed back. Sums are numeric
 * in SQL and decimal strings here: exact past 2^53.
 */
import { sql } from 'drizzle-orm';
import { rows, type Conn, inList } from '../../db/connect.js';

/** Payable now (operations.md §18 Statuses): pending, past payableAt by the database's clock, in no payout yet. */
export const PAYABLE = sql`c.status = 'pending' AND c.payable_at <= now() AND c.payout_id IS NULL`;

export interface PartnerTotal {
  partnerId: string;
  /** Decimal string of the sum in minor units. */
  total: string;
  count: number;
}

/** Each partner's payable total in `currency` (those of `partnerIds` only, when given). */
export function payableTotalRows(conn: Conn, workspaceId: string, currency: string, partnerIds?: string[]): Promise<PartnerTotal[]> {
  const only = partnerIds ? sql` AND c.partner_id ${inList(partnerIds, 'uuid')}` : sql``;
  return rows<PartnerTotal>(
    conn,
    sql`SELECT c.partner_id AS "partnerId", sum(c.earnings)::text AS total, count(*)::int AS count FROM commissions c
        WHERE c.workspace_id = ${workspaceId}::uuid AND c.currency = ${currency} AND ${PAYABLE}${only}
        GROUP BY c.partner_id ORDER BY c.partner_id`,
  );
}

/** Payable totals per currency over the workspace (the dashboard's "what is payable"). */
export function payableByCurrencyRows(conn: Conn, workspaceId: string): Promise<{ currency: string; total: string; partners: number }[]> {
  return rows(
    conn,
    sql`SELECT c.currency, sum(c.earnings)::text AS total, count(DISTINCT c.partner_id)::int AS partners FROM commissions c
        WHERE c.workspace_id = ${workspaceId}::uuid AND ${PAYABLE} GROUP BY c.currency ORDER BY c.currency`,
  );
}

/**
 * Claims the payable commissions of these partners in `currency` for the payout, where each
 * partner's total still reaches `minimum` and is positive: one statement, `payout_id` set only
 * where still null and payable, so a commission is never in two payouts. What each partner got.
 */
export function claimRows(
  conn: Conn,
  r: { workspaceId: string; payoutId: string; currency: string; partnerIds: string[]; minimum: number },
): Promise<PartnerTotal[]> {
  return rows<PartnerTotal>(
    conn,
    // MATERIALIZED: computed once. Inlined, on statistics taken while the table was nearly empty,
    // PostgreSQL ran this aggregate again for every commission it updated (CI: 9,009 commissions,
    // 60 s and the statement timeout; alone, 1 s).
    sql`WITH totals AS MATERIALIZED (
          SELECT c.partner_id FROM commissions c
          WHERE c.workspace_id = ${r.workspaceId}::uuid AND c.currency = ${r.currency} AND ${PAYABLE} AND c.partner_id ${inList(r.partnerIds, 'uuid')}
          GROUP BY c.partner_id HAVING sum(c.earnings) >= ${r.minimum} AND sum(c.earnings) > 0),
        claimed AS (
          UPDATE commissions c SET payout_id = ${r.payoutId}::uuid, updated_at = now() FROM totals t
          WHERE c.partner_id = t.partner_id AND c.workspace_id = ${r.workspaceId}::uuid AND c.currency = ${r.currency} AND ${PAYABLE}
          RETURNING c.partner_id, c.earnings)
        SELECT partner_id AS "partnerId", sum(earnings)::text AS total, count(*)::int AS count FROM claimed GROUP BY partner_id ORDER BY partner_id`,
  );
}

/** The ids of each partner's commissions in a payout. */
export async function payoutCommissionIds(conn: Conn, workspaceId: string, payoutId: string, partnerIds: string[]): Promise<Map<string, string[]>> {
  const found = await rows<{ partnerId: string; ids: string[] }>(
    conn,
    sql`SELECT partner_id AS "partnerId", array_agg(id ORDER BY created_at, seq) AS ids FROM commissions
        WHERE workspace_id = ${workspaceId}::uuid AND payout_id = ${payoutId}::uuid AND partner_id ${inList(partnerIds, 'uuid')} GROUP BY partner_id`,
  );
  return new Map(found.map((r) => [r.partnerId, r.ids]));
}

/**
 * A completed payout's commissions, except the failed partners': paid as listed; each
 * adjustment made while it was pending becomes a negative custom commission, payable at once.
 */
export async function markPaidRows(conn: Conn, r: { workspaceId: string; payoutId: string; failed: string[]; newIds: () => string }): Promise<number> {
  const paid = await rows<{ id: string; partnerId: string; currency: string; adjustment: number | null }>(
    conn,
    sql`UPDATE commissions SET status = 'paid', updated_at = now()
        WHERE workspace_id = ${r.workspaceId}::uuid AND payout_id = ${r.payoutId}::uuid AND partner_id NOT ${inList(r.failed, 'uuid')}
        RETURNING id, partner_id AS "partnerId", currency, adjustment::float8 AS adjustment`,
  );
  const adjusted = paid.filter((c) => c.adjustment);
  if (adjusted.length) {
    const data = JSON.stringify(adjusted.map((c) => ({ id: r.newIds(), of: c.id, partner: c.partnerId, currency: c.currency, earnings: c.adjustment })));
    await conn.execute(
      sql`INSERT INTO commissions (id, workspace_id, partner_id, type, event_id, currency, original_earnings, earnings, status, description, payable_at)
          SELECT d.id, ${r.workspaceId}::uuid, d.partner, 'custom', o.event_id, d.currency, d.earnings, d.earnings, 'pending', 'Settles a change made during payout', now()
          FROM jsonb_to_recordset(${data}::jsonb) AS d(id uuid, of uuid, partner uuid, currency text, earnings bigint) JOIN commissions o ON o.id = d.of`,
    );
  }
  return paid.length;
}

/**
 * Hands a payout's commissions back (a cancelled payout, or the failed partners of a completed
 * one): payable again, with the changes made meanwhile applied (a reversal reverses, a refund's
 * adjustment changes the earnings).
 */
export async function releaseRows(conn: Conn, r: { workspaceId: string; payoutId: string; partnerIds?: string[] }): Promise<number> {
  const only = r.partnerIds ? sql` AND partner_id ${inList(r.partnerIds, 'uuid')}` : sql``;
  const released = await rows(
    conn,
    sql`UPDATE commissions SET payout_id = NULL, updated_at = now(),
          -- A reversal keeps the earnings it reversed (as outside a payout); a refund's adjustment changes them.
          earnings = CASE WHEN reversed_reason IS NOT NULL AND reversed_reason <> 'refund' THEN earnings ELSE earnings + coalesce(adjustment, 0) END,
          adjustment = NULL,
          status = CASE WHEN reversed_reason IS NOT NULL THEN 'reversed' ELSE status END
        WHERE workspace_id = ${r.workspaceId}::uuid AND payout_id = ${r.payoutId}::uuid AND status = 'pending'${only}
        RETURNING 1`,
  );
  return released.length;
}

/**
 * Reverses the unpaid commissions of banned or rejected partners (reason `banned`/`rejected`):
 * those inside a pending payout keep their place there, the reversal kept as the adjustment.
 */
export async function reverseUnpaidRows(conn: Conn, workspaceId: string, changed: { partnerId: string; status: string }[]): Promise<string[]> {
  const data = JSON.stringify(changed);
  const reversed = await rows<{ id: string }>(
    conn,
    sql`WITH d AS (SELECT * FROM jsonb_to_recordset(${data}::jsonb) AS d("partnerId" uuid, status text))
        UPDATE commissions c SET
          status = CASE WHEN c.payout_id IS NULL THEN 'reversed' ELSE c.status END,
          adjustment = CASE WHEN c.payout_id IS NULL THEN c.adjustment ELSE -c.earnings END,
          reversed_reason = d.status, updated_at = now()
        FROM d WHERE c.workspace_id = ${workspaceId}::uuid AND c.partner_id = d."partnerId" AND c.status IN ('pending', 'held')
        RETURNING c.id`,
  );
  return reversed.map((r) => r.id);
}
