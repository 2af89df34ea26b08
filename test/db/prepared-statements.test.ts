/**
 * The tracking path's statements are named prepared statements on PostgreSQL (connect.ts
 * preparedRows): prepared once on the connection that runs them, and unnamed when
 * DB_PREPARED_STATEMENTS=off (a pooler in front that cannot track them).
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { preparedRows, rows, useNamedStatements } from '../../src/db/connect.js';
import { onPostgres, startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => {
  useNamedStatements(true);
  return t.close();
});

/** Runs a statement of a text no other test runs through preparedRows, and lists the names prepared on that connection. */
async function preparedOnItsConnection(marker: string): Promise<{ answer: number; names: string[]; statements: string[] }> {
  return t.database.db.transaction(async (tx) => {
    const [row] = await preparedRows<{ answer: number }>(tx, sql`SELECT ${7}::int AS answer, ${marker}::text AS marker`);
    const listed = await rows<{ name: string; statement: string }>(tx, sql`SELECT name, statement FROM pg_prepared_statements`);
    const mine = listed.filter((p) => p.statement.includes('AS marker'));
    return { answer: row!.answer, names: mine.map((p) => p.name), statements: mine.map((p) => p.statement) };
  });
}

describe.runIf(onPostgres)('named prepared statements', () => {
  test('a statement is prepared under a name of its text, once per connection, and answers as unnamed', async () => {
    const first = await preparedOnItsConnection('a');
    expect(first.answer).toBe(7);
    expect(first.names).toHaveLength(1);
    expect(first.names[0]).toMatch(/^lt_[A-Za-z0-9_-]{20}$/);
    // Another value, same text: the same statement, not a second one.
    const again = await preparedOnItsConnection('b');
    expect(again.answer).toBe(7);
    expect(again.names.length).toBeLessThanOrEqual(1);
    if (again.names.length === 1) expect(again.names[0]).toBe(first.names[0]);
  });

  test('DB_PREPARED_STATEMENTS=off runs it unnamed', async () => {
    useNamedStatements(false);
    try {
      const off = await t.database.db.transaction(async (tx) => {
        const [row] = await preparedRows<{ answer: number }>(tx, sql`SELECT ${8}::int AS answer, 'off' AS off_marker`);
        const listed = await rows<{ name: string }>(tx, sql`SELECT name FROM pg_prepared_statements WHERE statement LIKE '%off_marker%'`);
        return { answer: row!.answer, names: listed.map((p) => p.name) };
      });
      expect(off).toEqual({ answer: 8, names: [] });
    } finally {
      useNamedStatements(true);
    }
  });
});
