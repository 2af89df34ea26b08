/**
 * Each partner's earnings per currency and state over a range of commission creation times, for
 * GET /api/partners?withStats (operations.md §18): one statement for a page of partners, sums
 * numeric in SQL and decimal strings here (exact past 2^53).
 */
import { sql, type SQL } from 'drizzle-orm';
import { rows, type Conn, inList } from '../../db/connect.js';
import { STATUS_SQL } from './store.js';

export type EarningsState = 'pending' | 'held' | 'payable' | 'paid';

export interface EarningsRow {
  partnerId: string;
  currency: string;
  state: EarningsState;
  /** Decimal string of the sum in minor units. */
  total: string;
}

/** Creation times: `from` inclusive, `to` exclusive unless `toInclusive` (ms; undefined: no limit). */
export interface CreatedRange {
  from?: number;
  to?: number;
  toInclusive?: boolean;
}

function createdIn(r: CreatedRange): SQL {
  const at = (ms: number) => sql`${new Date(ms).toISOString()}::timestamptz`;
  const parts = [sql`true`];
  if (r.from !== undefined) parts.push(sql`c.created_at >= ${at(r.from)}`);
  if (r.to !== undefined) parts.push(r.toInclusive ? sql`c.created_at <= ${at(r.to)}` : sql`c.created_at < ${at(r.to)}`);
  return sql.join(parts, sql` AND `);
}

/**
 * The sums of these partners' commissions created in the range, by partner, currency and state:
 * states as GET /api/commissions derives them (STATUS_SQL: a pending one past its payableAt is
 * `payable`, in a payout not completed yet too); reversed commissions are left out.
 */
export function earningsRows(conn: Conn, workspaceId: string, partnerIds: string[], range: CreatedRange): Promise<EarningsRow[]> {
  if (partnerIds.length === 0) return Promise.resolve([]);
  return rows<EarningsRow>(
    conn,
    sql`SELECT c.partner_id AS "partnerId", c.currency, ${sql.raw(STATUS_SQL)} AS state, sum(c.earnings)::text AS total
        FROM commissions c
        WHERE c.workspace_id = ${workspaceId}::uuid AND c.partner_id ${inList(partnerIds, 'uuid')}
          AND c.status IN ('pending', 'held', 'paid') AND ${createdIn(range)}
        GROUP BY 1, 2, 3 ORDER BY 1, 2`,
  );
}

export interface EarningsBucketRow {
  /** The bucket's UTC start, as analytics' timeseries keys read (YYYY-MM-DDTHH:MM:SSZ). */
  key: string;
  currency: string;
  total: string;
}

/** One partner's earnings (reversed left out) per UTC day or month of creation and currency, oldest first. */
export function earningsBucketRows(
  conn: Conn,
  workspaceId: string,
  q: { partnerId: string; linkId?: string; interval: 'day' | 'month'; range: CreatedRange },
): Promise<EarningsBucketRow[]> {
  const { partnerId, interval, range } = q;
  const link = q.linkId ? sql` AND c.link_id = ${q.linkId}::uuid` : sql``;
  return rows<EarningsBucketRow>(
    conn,
    sql`SELECT to_char(date_trunc(${interval}, c.created_at, 'UTC') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS key, c.currency,
          sum(c.earnings)::text AS total
        FROM commissions c
        WHERE c.workspace_id = ${workspaceId}::uuid AND c.partner_id = ${partnerId}::uuid AND c.status IN ('pending', 'held', 'paid') AND ${createdIn(range)}${link}
        GROUP BY 1, 2 ORDER BY 1, 2`,
  );
}
