import { sql } from 'drizzle-orm';
import type { Conn } from '../../db/connect.js';
import { newId } from '../../db/ids.js';

/** The group named `default` every program has (partners whose group_id is null are in it). */
export async function ensureDefaultGroup(conn: Conn, workspaceId: string): Promise<void> {
  await conn.execute(
    sql`INSERT INTO partner_groups (id, workspace_id, name, is_default) VALUES (${newId()}::uuid, ${workspaceId}::uuid, 'default', true)
        ON CONFLICT DO NOTHING`,
  );
}
