import { sql, type SQL } from 'drizzle-orm';
import { inList, rows, type Conn } from '../../db/connect.js';
import { isoTimestamp } from '../../db/resource-table.js';
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

/**
 * The rewards (jsonb, in their order; null when there is no such group) of the group `groupId`
 * names (an SQL expression; null: the default group), as an expression of another module's statement.
 */
export function groupRewardsSql(workspaceId: string, groupId: SQL): SQL {
  return sql`(SELECT g.rewards FROM partner_groups g
      WHERE g.workspace_id = ${workspaceId}::uuid AND CASE WHEN ${groupId} IS NULL THEN g.is_default ELSE g.id = ${groupId} END LIMIT 1)`;
}

export interface GroupRow {
  id: string;
  name: string;
  rewards: unknown[];
  createdAt: string;
  updatedAt: string;
}

const GROUP = sql.raw(`g.id, g.name, g.rewards, ${isoTimestamp('g.created_at')} AS "createdAt", ${isoTimestamp('g.updated_at')} AS "updatedAt"`);

/** The workspace's groups: `default` first, then by creation. */
export function listGroupRows(conn: Conn, workspaceId: string): Promise<GroupRow[]> {
  return rows<GroupRow>(conn, sql`SELECT ${GROUP} FROM partner_groups g WHERE g.workspace_id = ${workspaceId}::uuid ORDER BY g.is_default DESC, g.seq`);
}

/** Groups of the workspace with these ids, locked; with whether each is the default. */
export function lockGroups(conn: Conn, workspaceId: string, ids: string[]): Promise<(GroupRow & { isDefault: boolean })[]> {
  return rows(
    conn,
    sql`SELECT ${GROUP}, g.is_default AS "isDefault" FROM partner_groups g
        WHERE g.workspace_id = ${workspaceId}::uuid AND g.id ${inList(ids, 'uuid')} ORDER BY g.id FOR UPDATE`,
  );
}

/** Inserts or updates groups in one statement each way; the rows in the order given. */
export async function writeGroups(
  conn: Conn,
  workspaceId: string,
  inserts: { id: string; name: string; rewards: unknown[] }[],
  updates: { id: string; name?: string; rewards?: unknown[] }[],
): Promise<GroupRow[]> {
  const out: GroupRow[] = [];
  if (updates.length) {
    out.push(
      ...(await rows<GroupRow>(
        conn,
        sql`WITH d AS (SELECT * FROM jsonb_to_recordset(${JSON.stringify(updates)}::jsonb) AS d(id uuid, name text, rewards jsonb)),
          g AS (UPDATE partner_groups g SET name = coalesce(d.name, g.name), rewards = coalesce(d.rewards, g.rewards), updated_at = now()
                FROM d WHERE g.id = d.id AND g.workspace_id = ${workspaceId}::uuid RETURNING g.*)
          SELECT ${GROUP} FROM g`,
      )),
    );
  }
  if (inserts.length) {
    out.push(
      ...(await rows<GroupRow>(
        conn,
        sql`WITH d AS (SELECT * FROM jsonb_to_recordset(${JSON.stringify(inserts)}::jsonb) AS d(id uuid, name text, rewards jsonb)),
          g AS (INSERT INTO partner_groups (id, workspace_id, name, rewards) SELECT d.id, ${workspaceId}::uuid, d.name, d.rewards FROM d RETURNING *)
          SELECT ${GROUP} FROM g`,
      )),
    );
  }
  return out;
}

/** Deletes groups (their partners fall back to the default group: group_id is set null). */
export async function deleteGroupRows(conn: Conn, workspaceId: string, ids: string[]): Promise<void> {
  await conn.execute(sql`DELETE FROM partner_groups WHERE workspace_id = ${workspaceId}::uuid AND id ${inList(ids, 'uuid')} AND NOT is_default`);
}
