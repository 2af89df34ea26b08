import { sql } from 'drizzle-orm';
import { inList, rows, type Conn } from '../../db/connect.js';

/**
 * The SQL of link_keys (operations.md §21): each link's chosen path on a host ('' is the
 * short-link host), and the paths links gave up, held 30 days by the database clock.
 */

/** How long a key a link gave up stays taken. */
const HOLD = sql.raw(`interval '30 days'`);

/** The Link record's place (host and key), or null on the short-link host without a key. */
export const KEY_SELECT = `(SELECT json_build_object('host', k.host, 'key', k.key) FROM link_keys k WHERE k.link_id = t.id AND k.freed_at IS NULL) AS "branded"`;

export interface KeyHolder {
  host: string;
  key: string;
  linkId: string;
  /** Still the link's (false: given up less than 30 days ago). */
  live: boolean;
}

const pairs = (wanted: { host: string; key: string }[]) => JSON.stringify(wanted.map((w) => ({ h: w.host, k: w.key })));

/** Which of these (host, key) are taken server-wide: held by a link, or given up less than 30 days ago. One statement. */
export function keyHolders(conn: Conn, wanted: { host: string; key: string }[]): Promise<KeyHolder[]> {
  if (wanted.length === 0) return Promise.resolve([]);
  return rows(
    conn,
    sql`SELECT k.host, k.key, k.link_id AS "linkId", k.freed_at IS NULL AS live FROM link_keys k
        JOIN jsonb_array_elements(${pairs(wanted)}::jsonb) AS e(j) ON k.host = e.j->>'h' AND k.key = e.j->>'k'
        WHERE k.freed_at IS NULL OR k.freed_at > now() - ${HOLD}`,
  );
}

/** Of these keys, those some link (any workspace, deleted ones too) has as its short id. */
export async function keysThatAreShortIds(conn: Conn, keys: string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const found = await rows<{ shortId: string }>(
    conn,
    sql`SELECT l.short_id AS "shortId" FROM links l JOIN jsonb_array_elements_text(${JSON.stringify(keys)}::jsonb) AS e(v) ON l.short_id = e.v`,
  );
  return new Set(found.map((r) => r.shortId));
}

/** The live keys of these links (a link holds one at most). */
export function liveKeysOf(conn: Conn, workspaceId: string, linkIds: string[]): Promise<{ linkId: string; host: string; key: string }[]> {
  if (linkIds.length === 0) return Promise.resolve([]);
  return rows(
    conn,
    sql`SELECT k.link_id AS "linkId", k.host, k.key FROM link_keys k
        WHERE k.workspace_id = ${workspaceId}::uuid AND k.freed_at IS NULL AND k.link_id ${inList(linkIds, 'uuid')}`,
  );
}

/** These links give up their keys now (deleted, or moved): each stays taken 30 days. */
export async function freeKeys(conn: Conn, workspaceId: string, linkIds: string[]): Promise<void> {
  if (linkIds.length === 0) return;
  await conn.execute(
    sql`UPDATE link_keys SET freed_at = now() WHERE workspace_id = ${workspaceId}::uuid AND freed_at IS NULL AND link_id ${inList(linkIds, 'uuid')}`,
  );
}

/**
 * Gives each link its key: a new row, or the row of a key given up over 30 days ago (or by the
 * same link). Returns the (host, key) written: one missing was taken by a concurrent write
 * after the check. One statement; the links' former keys must be freed first.
 */
export async function claimKeys(conn: Conn, workspaceId: string, claims: { linkId: string; host: string; key: string }[]): Promise<Set<string>> {
  if (claims.length === 0) return new Set();
  const flat = JSON.stringify(claims.map((c) => ({ l: c.linkId, h: c.host, k: c.key })));
  const written = await rows<{ host: string; key: string }>(
    conn,
    sql`INSERT INTO link_keys (host, key, link_id, workspace_id)
        SELECT e.j->>'h', e.j->>'k', (e.j->>'l')::uuid, ${workspaceId}::uuid FROM jsonb_array_elements(${flat}::jsonb) AS e(j)
        ON CONFLICT (host, key) DO UPDATE SET link_id = EXCLUDED.link_id, workspace_id = EXCLUDED.workspace_id, freed_at = NULL
        WHERE link_keys.link_id = EXCLUDED.link_id OR link_keys.freed_at <= now() - ${HOLD}
        RETURNING host, key`,
  );
  return new Set(written.map((w) => `${w.host}\n${w.key}`));
}
