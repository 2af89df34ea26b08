import { sql } from 'drizzle-orm';
import { rows, type Conn } from '../../db/connect.js';
import { newId } from '../../db/ids.js';

/** The group named `default` every program has (partners whose group_id is null are in it). */
export async function ensureDefaultGroup(conn: Conn, workspaceId: string): Promise<void> {
  await conn.execute(
    sql`INSERT INTO partner_groups (id, workspace_id, name, is_default) VALUES (${newId()}::uuid, ${workspaceId}::uuid, 'default', true)
        ON CONFLICT DO NOTHING`,
  );
}

/** The rewards of a group of the workspace (null: the default group), in their order; [] when there is none. */
export async function groupRewards(conn: Conn, workspaceId: string, groupId: string | null): Promise<unknown[]> {
  const match = groupId ? sql`id = ${groupId}::uuid` : sql`is_default`;
  const [row] = await rows<{ rewards: unknown[] }>(conn, sql`SELECT rewards FROM partner_groups WHERE workspace_id = ${workspaceId}::uuid AND ${match}`);
  return row?.rewards ?? [];
}
