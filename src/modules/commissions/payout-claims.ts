/**
 * The commissions side of a payout (operations.md §18 "Payouts"): what is payable, claimed by one
 * statement in the payout's transaction (a row per partner in payout_claim_sets, migration 0046,
 * with the ids of that partner's claimed commissions), then paid or handed back. Sums are numeric
 * in SQL and decimal strings here: exact past 2^53.
 */
import { sql } from 'drizzle-orm';
import { rows, type Conn, inList } from '../../db/connect.js';

/**
 * The claim set holding commission `c`: its partner's sets whose id range covers c.id, then the
 * array (read only for those). A partner has a set per payout they were in.
 */
const HOLDING_SET = 'FROM payout_claim_sets k WHERE k.partner_id = c.partner_id AND c.id BETWEEN k.first_id AND k.last_id AND c.id = ANY(k.commission_ids)';

/** The payout a commission (`c`) is in: null when in none. */
export const CLAIMED_BY_SQL = `(SELECT k.payout_id ${HOLDING_SET} LIMIT 1)`;
export const CLAIMED_BY = sql.raw(CLAIMED_BY_SQL);

/** In no payout yet. */
const UNCLAIMED = sql.raw(`NOT EXISTS (SELECT 1 ${HOLDING_SET})`);

/**
 * Commission `c` is in this payout. Planned from the payout's sets, each probing the commissions'
 * primary key with its array: 0.7 s for a page of a 1,000,000-commission payout, where unnesting
 * the ids first took 5.7 s (BENCHMARKS.md).
 */
export const inPayoutSql = (payoutId: string) =>
  sql`EXISTS (SELECT 1 FROM payout_claim_sets k WHERE k.payout_id = ${payoutId}::uuid AND k.partner_id = c.partner_id
        AND c.id BETWEEN k.first_id AND k.last_id AND c.id = ANY(k.commission_ids))`;

/** The ids of a payout's commissions (`k` its claim sets, filtered by the caller), a row each. */
export const claimedIdsSql = (payoutId: string) =>
  sql`SELECT k.partner_id, unnest(k.commission_ids) AS commission_id FROM payout_claim_sets k WHERE k.payout_id = ${payoutId}::uuid`;

/** Payable now (operations.md §18 Statuses): pending, past payableAt by the database's clock, in no payout yet. */
export const PAYABLE = sql`c.status = 'pending' AND c.payable_at <= now() AND ${UNCLAIMED}`;

const claimsLock = (workspaceId: string) => sql`hashtextextended(${`payout-claims:${workspaceId}`}, 0)`;

/**
 * Taken (shared) by a write that may change an unpaid commission (a refund, a reversal, a
 * dispute, a status change), in its transaction and before it reads one. A payout's claim takes
 * it alone: the claim waits for the writes under way and later ones wait for the claim, so each
 * reads the other's result whole (read committed: the next statement sees what was committed).
 * This instead of the claim locking each commission's row, seconds for a payout of 1,000,000.
 */
export async function guardFromClaims(conn: Conn, workspaceId: string): Promise<void> {
  await conn.execute(sql`SELECT pg_advisory_xact_lock_shared(${claimsLock(workspaceId)})`);
}

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

/** What a partner got in a payout's claim: the total and count, and the commissions' ids (oldest first). */
export interface PartnerClaim extends PartnerTotal {
  ids: string[];
}

/**
 * Claims the payable commissions of these partners in `currency` for the payout, where each
 * partner's total still reaches `minimum` and is positive: one statement, under the claims lock
 * alone (guardFromClaims), writing one claim set per partner. A commission is never in two
 * payouts: one pending payout per currency, and the lock, under which the claim reads only
 * commissions in no set. What each partner got.
 */
export async function claimRows(
  conn: Conn,
  r: { workspaceId: string; payoutId: string; currency: string; partnerIds: string[]; minimum: number },
): Promise<PartnerClaim[]> {
  await conn.execute(sql`SELECT pg_advisory_xact_lock(${claimsLock(r.workspaceId)})`);
  // For its transaction only: the sort of a payout of 1,000,000 commissions in memory (else on
  // disk), and hash joins (the partners' list is estimated at a row or two, and a nested loop then
  // reads the commissions in partners' order, at random).
  await conn.execute(sql`SET LOCAL work_mem = '256MB'`);
  await conn.execute(sql`SET LOCAL enable_nestloop = off`);
  const claimed = await rows<PartnerClaim>(
    conn,
    // One set per partner, its ids oldest first and bounded by first_id/last_id (uuid has no min()
    // before PostgreSQL 16: its text in "C" order is its byte order).
    sql`WITH chosen AS (
          SELECT c.partner_id, sum(c.earnings) AS total, count(*) AS count, array_agg(c.id ORDER BY c.created_at, c.seq) AS ids,
            min(c.id::text COLLATE "C")::uuid AS first_id, max(c.id::text COLLATE "C")::uuid AS last_id
          FROM commissions c
          WHERE c.workspace_id = ${r.workspaceId}::uuid AND c.currency = ${r.currency} AND ${PAYABLE} AND c.partner_id ${inList(r.partnerIds, 'uuid')}
          GROUP BY c.partner_id HAVING sum(c.earnings) >= ${r.minimum} AND sum(c.earnings) > 0),
        claimed AS (
          INSERT INTO payout_claim_sets (payout_id, partner_id, first_id, last_id, commission_ids)
          SELECT ${r.payoutId}::uuid, partner_id, first_id, last_id, ids FROM chosen)
        SELECT partner_id AS "partnerId", total::text AS total, count::int AS count, ids FROM chosen ORDER BY partner_id`,
  );
  await conn.execute(sql`SET LOCAL enable_nestloop = on`);
  return claimed;
}

/** The ids of each partner's commissions in a payout. */
export async function payoutCommissionIds(conn: Conn, workspaceId: string, payoutId: string, partnerIds: string[]): Promise<Map<string, string[]>> {
  const found = await rows<{ partnerId: string; ids: string[] }>(
    conn,
    sql`SELECT k.partner_id AS "partnerId", k.commission_ids AS ids FROM payout_claim_sets k JOIN payouts p ON p.id = k.payout_id
        WHERE p.workspace_id = ${workspaceId}::uuid AND k.payout_id = ${payoutId}::uuid AND k.partner_id ${inList(partnerIds, 'uuid')}`,
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
    sql`UPDATE commissions c SET status = 'paid', updated_at = now() FROM (${claimedIdsSql(r.payoutId)}) k
        WHERE k.commission_id = c.id AND c.workspace_id = ${r.workspaceId}::uuid AND k.partner_id NOT ${inList(r.failed, 'uuid')}
        RETURNING c.id, c.partner_id AS "partnerId", c.currency, c.adjustment::float8 AS adjustment`,
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
    sql`WITH d AS (DELETE FROM payout_claim_sets WHERE payout_id = ${r.payoutId}::uuid${only} RETURNING commission_ids),
          k AS (SELECT unnest(commission_ids) AS commission_id FROM d)
        UPDATE commissions c SET updated_at = now(),
          -- A reversal keeps the earnings it reversed (as outside a payout); a refund's adjustment changes them.
          earnings = CASE WHEN reversed_reason IS NOT NULL AND reversed_reason <> 'refund' THEN earnings ELSE earnings + coalesce(adjustment, 0) END,
          adjustment = NULL,
          status = CASE WHEN reversed_reason IS NOT NULL THEN 'reversed' ELSE status END
        FROM k WHERE c.id = k.commission_id AND c.workspace_id = ${r.workspaceId}::uuid AND c.status = 'pending'
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
  await guardFromClaims(conn, workspaceId);
  const reversed = await rows<{ id: string }>(
    conn,
    sql`WITH d AS (SELECT * FROM jsonb_to_recordset(${data}::jsonb) AS d("partnerId" uuid, status text))
        UPDATE commissions c SET
          status = CASE WHEN ${CLAIMED_BY} IS NULL THEN 'reversed' ELSE c.status END,
          adjustment = CASE WHEN ${CLAIMED_BY} IS NULL THEN c.adjustment ELSE -c.earnings END,
          reversed_reason = d.status, updated_at = now()
        FROM d WHERE c.workspace_id = ${workspaceId}::uuid AND c.partner_id = d."partnerId" AND c.status IN ('pending', 'held')
        RETURNING c.id`,
  );
  return reversed.map((r) => r.id);
}
