import { sql } from 'drizzle-orm';
import { arrayParam, type Conn } from './connect.js';

/** The credential tables whose rows remember when they were last used. */
const COLUMNS = { api_keys: 'last_used_at', sessions: 'last_seen_at', human_tokens: 'last_used_at', oauth_tokens: 'last_used_at' } as const;

/** Writes many last-use times in one statement; a later time already recorded is kept. */
export async function recordLastUse(conn: Conn, table: keyof typeof COLUMNS, entries: { id: string; at: Date }[]): Promise<void> {
  if (entries.length === 0) return;
  const t = sql.identifier(table);
  const column = sql.identifier(COLUMNS[table]);
  const ids = entries.map((e) => e.id);
  const times = entries.map((e) => e.at.toISOString());
  await conn.execute(sql`
    UPDATE ${t} AS r SET ${column} = GREATEST(r.${column}, u.at)
    FROM unnest(${arrayParam(ids, 'uuid')}, ${arrayParam(times, 'timestamptz')}) AS u(id, at)
    WHERE r.id = u.id`);
}
