import { sql } from 'drizzle-orm';
import type { SealedColumn } from '../../core/sealed-columns.js';
import { rows, type Conn } from '../../db/connect.js';

/**
 * The reseal's SQL. It reads and writes the tables of other modules (links, webhook endpoints)
 * on purpose: it is one maintenance pass over every sealed column of SEALED_COLUMNS, and it
 * changes only the sealed form of a value, never what the value is.
 */

export interface SealedValue {
  id: string;
  sealed: string;
}

/** The next `limit` sealed values of the column after `afterId` (keyset order by id). */
export function sealedAfter(conn: Conn, col: SealedColumn, afterId: string | null, limit: number): Promise<SealedValue[]> {
  const [id, column] = [sql.identifier(col.id), sql.identifier(col.column)];
  const after = afterId === null ? sql`` : sql`AND ${id} > ${afterId}::uuid`;
  return rows<SealedValue>(
    conn,
    sql`SELECT ${id}::text AS id, ${column} AS sealed FROM ${sql.identifier(col.table)}
        WHERE ${column} IS NOT NULL ${after} ORDER BY ${id} LIMIT ${limit}`,
  );
}

/**
 * Replaces each value whose column still holds `old` (a value changed meanwhile is already
 * under the current key, and stays as it is), in one statement; returns the ids written.
 */
export async function replaceSealed(conn: Conn, col: SealedColumn, changes: { id: string; old: string; sealed: string }[]): Promise<string[]> {
  if (changes.length === 0) return [];
  const [table, id, column] = [sql.identifier(col.table), sql.identifier(col.id), sql.identifier(col.column)];
  const written = await rows<{ id: string }>(
    conn,
    sql`UPDATE ${table} AS t SET ${column} = v.sealed
        FROM jsonb_to_recordset(${JSON.stringify(changes)}::jsonb) AS v(id uuid, old text, sealed text)
        WHERE t.${id} = v.id AND t.${column} = v.old
        RETURNING t.${id}::text AS id`,
  );
  return written.map((r) => r.id);
}
