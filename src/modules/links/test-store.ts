import { sql } from 'drizzle-orm';
import { inList, rows, type Conn } from '../../db/connect.js';
import { isoTimestamp } from '../../db/resource-table.js';
import type { StoredTest, TestMetric, TestVariant } from './test-rules.js';

/**
 * link_tests (migration 0051): every A/B test of a link, running or completed, with its results
 * once completed. The running one is also the link's `test` value (store.ts), which the redirect
 * reads; both are written in the same transaction.
 */

export interface TestRow {
  id: string;
  linkId: string;
  variants: TestVariant[];
  endsAt: string;
  metric: TestMetric;
  currency: string | null;
  autoApply: boolean;
  status: 'running' | 'completed';
  winner: number | null;
  results: unknown;
  startedAt: string;
  completedAt: string | null;
}

const TEST_COLUMNS = sql.raw(`t.id, t.link_id AS "linkId", t.variants, ${isoTimestamp('t.ends_at')} AS "endsAt", t.metric, t.currency,
  t.auto_apply AS "autoApply", t.status, t.winner, t.results, ${isoTimestamp('t.started_at')} AS "startedAt",
  ${isoTimestamp('t.completed_at')} AS "completedAt"`);

/** Starts these tests (their links written already). */
export async function insertTests(conn: Conn, workspaceId: string, tests: (StoredTest & { linkId: string })[], now: Date): Promise<void> {
  if (tests.length === 0) return;
  const items = tests.map((t) => ({ i: t.id, l: t.linkId, v: t.variants, e: t.endsAt, m: t.metric, c: t.currency, a: t.autoApply }));
  await conn.execute(sql`
    INSERT INTO link_tests (id, workspace_id, link_id, variants, ends_at, metric, currency, auto_apply, started_at)
    SELECT x.i, ${workspaceId}::uuid, x.l, x.v, x.e, x.m, x.c, x.a, ${now.toISOString()}::timestamptz
    FROM jsonb_to_recordset(${JSON.stringify(items)}::jsonb) AS x(i uuid, l uuid, v jsonb, e timestamptz, m text, c text, a boolean)`);
}

/** The end, metric, currency and autoApply of running tests changed in place (same variants, same id). */
export async function updateRunningTests(conn: Conn, workspaceId: string, tests: StoredTest[]): Promise<void> {
  if (tests.length === 0) return;
  const items = tests.map((t) => ({ i: t.id, e: t.endsAt, m: t.metric, c: t.currency, a: t.autoApply }));
  await conn.execute(sql`
    UPDATE link_tests t SET ends_at = x.e, metric = x.m, currency = x.c, auto_apply = x.a
    FROM jsonb_to_recordset(${JSON.stringify(items)}::jsonb) AS x(i uuid, e timestamptz, m text, c text, a boolean)
    WHERE t.id = x.i AND t.workspace_id = ${workspaceId}::uuid AND t.status = 'running'`);
}

/** Ends running tests without a winner (the link's write dropped or replaced them). */
export async function endTestsWithoutWinner(conn: Conn, workspaceId: string, ids: string[], now: Date): Promise<void> {
  if (ids.length === 0) return;
  await conn.execute(
    sql`UPDATE link_tests SET status = 'completed', winner = NULL, completed_at = ${now.toISOString()}::timestamptz
        WHERE workspace_id = ${workspaceId}::uuid AND status = 'running' AND id ${inList(ids, 'uuid')}`,
  );
}

/**
 * Completes one running test, if it still is: its winner and results are kept. Undefined when
 * it was completed already (by another instance, or another request): one completion wins.
 */
export async function completeTestRow(
  conn: Conn,
  workspaceId: string,
  o: { testId: string; winner: number | null; results: unknown; now: Date },
): Promise<TestRow | undefined> {
  const [row] = await rows<TestRow>(
    conn,
    sql`UPDATE link_tests t SET status = 'completed', winner = ${o.winner}::smallint, results = ${JSON.stringify(o.results)}::jsonb,
          completed_at = ${o.now.toISOString()}::timestamptz
        WHERE t.id = ${o.testId}::uuid AND t.workspace_id = ${workspaceId}::uuid AND t.status = 'running'
        RETURNING ${TEST_COLUMNS}`,
  );
  return row;
}

/** The link leaves its test (and takes the winner's url, when given), if that test is still its own; whether it did. */
export async function leaveTest(conn: Conn, workspaceId: string, o: { linkId: string; testId: string; url: string | null }): Promise<boolean> {
  const found = await rows<{ id: string }>(
    conn,
    sql`UPDATE links SET test = NULL, url = COALESCE(${o.url}::text, url), updated_at = now()
        WHERE id = ${o.linkId}::uuid AND workspace_id = ${workspaceId}::uuid AND test->>'id' = ${o.testId}
        RETURNING id`,
  );
  return found.length > 0;
}

/** A link's latest test (running, else the last completed), live link or not. */
export async function latestTest(conn: Conn, workspaceId: string, linkId: string): Promise<TestRow | undefined> {
  const [row] = await rows<TestRow>(
    conn,
    sql`SELECT ${TEST_COLUMNS} FROM link_tests t WHERE t.workspace_id = ${workspaceId}::uuid AND t.link_id = ${linkId}::uuid
        ORDER BY (t.status = 'running') DESC, t.seq DESC LIMIT 1`,
  );
  return row;
}

/**
 * Running tests past their end, across workspaces, oldest end first (the completion job's batch).
 * By the database's clock, one for every instance: one whose clock runs ahead would end the
 * others' tests early.
 */
export function dueTests(conn: Conn, limit: number): Promise<(TestRow & { workspaceId: string })[]> {
  return rows(
    conn,
    sql`SELECT ${TEST_COLUMNS}, t.workspace_id AS "workspaceId" FROM link_tests t
        WHERE t.status = 'running' AND t.ends_at <= now()
        ORDER BY t.ends_at LIMIT ${limit}`,
  );
}
