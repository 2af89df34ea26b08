import { sql } from 'drizzle-orm';
import { inList, rows, type Conn } from '../../db/connect.js';
import { newId } from '../../db/ids.js';

/** The group named `default` every program has (partners whose group_id is null are in it). */
export async function ensureDefaultGroup(conn: Conn, workspaceId: string): Promise<void> {
  await conn.execute(
    sql`INSERT INTO partner_groups (id, workspace_id, name, is_default) VALUES (${newId()}::uuid, ${workspaceId}::uuid, 'default', true)
        ON CONFLICT DO NOTHING`,
  );
}

/** The ids among `ids` that are groups of the workspace. */
export async function groupIdsIn(conn: Conn, workspaceId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const found = await rows<{ id: string }>(
    conn,
    sql`SELECT g.id FROM partner_groups g WHERE g.workspace_id = ${workspaceId}::uuid AND g.id ${inList(ids, 'uuid')}`,
  );
  return new Set(found.map((r) => r.id));
}

/** The id of the workspace's group `default`, made with its program; none without a program. */
export async function defaultGroupIdOf(conn: Conn, workspaceId: string): Promise<string | undefined> {
  const [row] = await rows<{ id: string }>(conn, sql`SELECT g.id FROM partner_groups g WHERE g.workspace_id = ${workspaceId}::uuid AND g.is_default`);
  return row?.id;
}
