/**
 * analytics_bucket (migration 0053): inlined by PostgreSQL, and cutting every timestamp as the
 * body of migration 0010 did. The click writer calls it for every click and a lead or sale for
 * every rollup row; not inlined (its former body called a STABLE date_trunc in a function
 * declared IMMUTABLE), each call went through the SQL-function executor.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

const query = <T>(text: string) => t.database.withSession((s) => s.query<T>(text));

/** Migration 0010's body, as an expression of `l` and `t`. */
const BODY_0010 = `CASE l WHEN 'm' THEN date_trunc('month', t, 'UTC')
  ELSE date_bin(CASE l WHEN 'q' THEN interval '15 minutes' WHEN 'h' THEN interval '1 hour' ELSE interval '1 day' END,
                t, timestamptz '2000-01-01 00:00:00+00') END`;

describe('analytics_bucket', () => {
  it('is inlined: a plan shows its body, not a call of it', async () => {
    const plan = await query<Record<string, string>>(
      `EXPLAIN (VERBOSE, COSTS OFF) SELECT analytics_bucket(l, t) FROM (VALUES ('m'::"char", now()), ('q'::"char", now())) v(l, t)`,
    );
    const text = plan.map((r) => Object.values(r)[0]).join('\n');
    expect(text).toContain('date_bin');
    expect(text).not.toContain('analytics_bucket');
  });

  it('cuts every level of a century of timestamps (month and day edges, leap days) as before, whatever the session zone', async () => {
    for (const zone of ['UTC', 'Asia/Tokyo', 'America/St_Johns', 'Pacific/Chatham']) {
      const result = await t.database.withSession(async (s) => {
        await s.exec('BEGIN');
        try {
          await s.exec(`SET LOCAL timezone = '${zone}'`);
          const rows = await s.query<{ n: number; differ: number; months: number }>(
            `SELECT count(*)::int AS n,
               count(*) FILTER (WHERE analytics_bucket(l, t) IS DISTINCT FROM ${BODY_0010})::int AS differ,
               count(DISTINCT analytics_bucket(l, t)) FILTER (WHERE l = 'm')::int AS months
             FROM (SELECT t, l FROM generate_series(timestamptz '2000-01-01 00:00:00+00', timestamptz '2100-01-01 00:00:00+00', interval '7 hours 59 minutes 59 seconds') t
                   CROSS JOIN (VALUES ('q'::"char"), ('h'::"char"), ('d'::"char"), ('m'::"char")) v(l)
                   UNION ALL
                   SELECT timestamptz '2024-02-29 23:59:59.999999+00' + d * interval '1 microsecond', l
                   FROM generate_series(0, 2) d, (VALUES ('d'::"char"), ('m'::"char")) v(l)) x`,
          );
          return rows[0];
        } finally {
          await s.exec('ROLLBACK');
        }
      });
      expect(result, zone).toMatchObject({ differ: 0, months: 1200 });
      expect(result!.n, zone).toBeGreaterThan(400_000);
    }
  });
});
