import { sql } from 'drizzle-orm';
import { rows, type Conn, inList } from '../../db/connect.js';

/**
 * The SQL of what the partner program does to links (operations.md §18 "Default link and partner
 * links"): an alias given only where free, and destinations following the program's landing URL.
 * One statement each, whatever the count.
 */

/**
 * Gives each link an alias (on a host the caller found the workspace holds), only where it is
 * free server-wide: no link has it as an alias (the primary key decides, so a concurrent taker
 * wins quietly) and no link holds it as its key on that host, or gave it up less than 30 days ago
 * (link_keys). Returns the links that got theirs.
 */
export async function insertFreeAliases(conn: Conn, workspaceId: string, wanted: { linkId: string; host: string; path: string }[]): Promise<string[]> {
  if (wanted.length === 0) return [];
  const flat = JSON.stringify(wanted.map((w) => ({ l: w.linkId, h: w.host, p: w.path })));
  const added = await rows<{ linkId: string }>(
    conn,
    sql`INSERT INTO link_aliases (host, path, link_id, workspace_id, position)
        SELECT e.j->>'h', e.j->>'p', (e.j->>'l')::uuid, ${workspaceId}::uuid,
          COALESCE((SELECT max(a.position) + 1 FROM link_aliases a WHERE a.link_id = (e.j->>'l')::uuid), 0)
        FROM jsonb_array_elements(${flat}::jsonb) AS e(j)
        WHERE NOT EXISTS (SELECT 1 FROM link_keys k WHERE k.host = e.j->>'h' AND k.key = substr(e.j->>'p', 2)
            AND (k.freed_at IS NULL OR k.freed_at > now() - interval '30 days'))
        ON CONFLICT (host, path) DO NOTHING
        RETURNING link_id AS "linkId"`,
  );
  return added.map((r) => r.linkId);
}

/** Sets `url` to `to` on those of these live links whose url is still `from`; returns the links changed. */
export async function retargetUrls(conn: Conn, workspaceId: string, o: { ids: string[]; from: string; to: string }): Promise<string[]> {
  if (o.ids.length === 0) return [];
  const changed = await rows<{ id: string }>(
    conn,
    sql`UPDATE links SET url = ${o.to}, updated_at = now()
        WHERE workspace_id = ${workspaceId}::uuid AND deleted_at IS NULL AND url = ${o.from} AND id ${inList(o.ids, 'uuid')}
        RETURNING id`,
  );
  return changed.map((r) => r.id);
}
