import { sql } from 'drizzle-orm';
import { rows, type Conn } from '../../db/connect.js';

/** What links are counted by. */
export type CountBy = 'collection' | 'tag' | 'partner';

const GROUPED = {
  collection: (ws: string) =>
    sql`SELECT collection_id AS id, count(*)::int AS links FROM links WHERE workspace_id = ${ws}::uuid AND deleted_at IS NULL GROUP BY collection_id`,
  partner: (ws: string) =>
    sql`SELECT partner_id AS id, count(*)::int AS links FROM links
        WHERE workspace_id = ${ws}::uuid AND deleted_at IS NULL AND partner_id IS NOT NULL GROUP BY partner_id`,
  tag: (ws: string) =>
    sql`SELECT lt.tag_id AS id, count(*)::int AS links FROM link_tags lt JOIN links l ON l.id = lt.link_id
        WHERE l.workspace_id = ${ws}::uuid AND l.deleted_at IS NULL GROUP BY lt.tag_id`,
} satisfies Record<CountBy, (workspaceId: string) => unknown>;

/** Live links per collection, tag or partner of the workspace (none: left out). One statement. */
export function linkCountRows(conn: Conn, workspaceId: string, by: CountBy): Promise<{ id: string; links: number }[]> {
  return rows(conn, GROUPED[by](workspaceId));
}
