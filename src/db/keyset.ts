import { sql, type SQL } from 'drizzle-orm';

/**
 * Where a keyset page starts: after the row with this (created_at, seq), oldest first. `at` is
 * created_at as the database writes it as text, exact to the microsecond (the API's createdAt
 * keeps milliseconds only, too coarse to tell apart rows written in the same millisecond).
 */
export interface RowCursor {
  at: string;
  seq: number;
}

/** The columns a keyset read adds to its selection, for the cursor of its last row. */
export const cursorColumns = (alias: string) => sql.raw(`, ${alias}.created_at::text AS "cursorAt", ${alias}.seq AS "cursorSeq"`);

/** ` AND (created_at, seq) > cursor`, or nothing for the first page. */
export function afterCursor(alias: string, after: RowCursor | undefined): SQL {
  if (!after) return sql``;
  return sql` AND (${sql.raw(alias)}.created_at, ${sql.raw(alias)}.seq) > (${after.at}::timestamptz, ${after.seq}::bigint)`;
}

/** A page of rows read with cursorColumns: the rows without them, and the cursor of the last. */
export function keysetPage<Row>(found: (Row & { cursorAt: string; cursorSeq: string | number })[]): { records: Row[]; next?: RowCursor } {
  const last = found.at(-1);
  const records = found.map(({ cursorAt: _a, cursorSeq: _s, ...row }) => row as Row);
  return { records, next: last && { at: last.cursorAt, seq: Number(last.cursorSeq) } };
}

/** Rows a keyset read fetches at a time. */
export const KEYSET_PAGE = 1000;

/** Every page of a keyset read, oldest first, each fetched only when the consumer asks for it. */
export async function* keysetPages<Row>(
  read: (after: RowCursor | undefined, limit: number) => Promise<{ records: Row[]; next?: RowCursor }>,
  limit = KEYSET_PAGE,
): AsyncGenerator<Row[]> {
  let after: RowCursor | undefined;
  for (;;) {
    const page = await read(after, limit);
    yield page.records;
    if (page.records.length < limit) return;
    after = page.next;
  }
}
