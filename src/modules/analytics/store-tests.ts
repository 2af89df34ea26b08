import { sql } from 'drizzle-orm';
import { rows, type Conn } from '../../db/connect.js';

/*
 * The figures of one A/B test (operations.md §20), from the raw clicks and events that carry its
 * id (migration 0051): the clicks, leads and sales tables of other modules, read in one statement.
 */

/** One UTC day of one variant. */
export interface TestDayRow {
  variant: number;
  /** YYYY-MM-DD (UTC). */
  day: string;
  clicks: number;
  /** Clicks with at least one lead (by the day of the first), each once. */
  leadClicks: number;
  /** Clicks with at least one sale (by the day of the first), each once. */
  saleClicks: number;
  /** Net sale amounts (minor units) by currency, that day. */
  revenue: Record<string, number>;
}

const DAY = (col: string) => sql.raw(`to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD')`);

/** A test's figures by variant and UTC day: human clicks, converted clicks, net revenue per currency. */
export async function testDays(conn: Conn, workspaceId: string, testId: string): Promise<TestDayRow[]> {
  const found = await rows<{ variant: number; day: string; kind: 'c' | 'l' | 's' | 'r'; currency: string | null; n: string }>(
    conn,
    sql`SELECT u.variant, u.day, u.kind, u.currency, sum(u.n)::numeric::text AS n FROM (
          SELECT c.variant, ${DAY('c.created_at')} AS day, 'c' AS kind, NULL::text AS currency, count(*)::numeric AS n
          FROM clicks c WHERE c.workspace_id = ${workspaceId}::uuid AND c.test_id = ${testId}::uuid AND NOT c.bot GROUP BY 1, 2
          UNION ALL
          SELECT l.variant, ${DAY('min(l.created_at)')}, 'l', NULL, 1
          FROM lead_events l WHERE l.workspace_id = ${workspaceId}::uuid AND l.test_id = ${testId}::uuid GROUP BY l.click_id, l.variant
          UNION ALL
          SELECT s.variant, ${DAY('min(s.created_at)')}, 's', NULL, 1
          FROM sale_events s WHERE s.workspace_id = ${workspaceId}::uuid AND s.test_id = ${testId}::uuid GROUP BY s.click_id, s.variant
          UNION ALL
          SELECT s.variant, ${DAY('s.created_at')}, 'r', s.currency, sum(s.amount - s.refunded_amount)
          FROM sale_events s WHERE s.workspace_id = ${workspaceId}::uuid AND s.test_id = ${testId}::uuid GROUP BY 1, 2, 4) u
        WHERE u.variant IS NOT NULL
        GROUP BY 1, 2, 3, 4 ORDER BY 2, 1`,
  );
  const byKey = new Map<string, TestDayRow>();
  for (const r of found) {
    const variant = Number(r.variant);
    const key = `${r.day}\n${variant}`;
    let row = byKey.get(key);
    if (!row) byKey.set(key, (row = { variant, day: r.day, clicks: 0, leadClicks: 0, saleClicks: 0, revenue: {} }));
    const n = Number(r.n);
    if (r.kind === 'c') row.clicks += n;
    else if (r.kind === 'l') row.leadClicks += n;
    else if (r.kind === 's') row.saleClicks += n;
    else row.revenue[r.currency!] = (row.revenue[r.currency!] ?? 0) + n;
  }
  return [...byKey.values()];
}
