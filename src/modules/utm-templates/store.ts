import { sql } from 'drizzle-orm';
import { rows, type Conn } from '../../db/connect.js';
import { isoTimestamp } from '../../db/resource-table.js';
import type { UtmValues } from './schemas.js';

export interface TemplateRow {
  id: string;
  name: string;
  utm: UtmValues;
  createdAt: string;
  updatedAt: string;
}

const SELECTION = sql.raw(
  ['t.id', 't.name', 't.utm', `${isoTimestamp('t.created_at')} AS "createdAt"`, `${isoTimestamp('t.updated_at')} AS "updatedAt"`].join(', '),
);

/** The workspace's templates by name (case-insensitive order, then id for equal names). */
export function listTemplateRows(conn: Conn, workspaceId: string): Promise<TemplateRow[]> {
  return rows<TemplateRow>(conn, sql`SELECT ${SELECTION} FROM utm_templates t WHERE t.workspace_id = ${workspaceId}::uuid ORDER BY lower(t.name), t.id`);
}

export async function countTemplates(conn: Conn, workspaceId: string): Promise<number> {
  const [row] = await rows<{ n: number }>(conn, sql`SELECT count(*)::int AS n FROM utm_templates WHERE workspace_id = ${workspaceId}::uuid`);
  return row!.n;
}

export async function insertTemplate(conn: Conn, t: { id: string; workspaceId: string; name: string; utm: UtmValues }): Promise<TemplateRow> {
  const [row] = await rows<TemplateRow>(
    conn,
    sql`WITH t AS (
          INSERT INTO utm_templates (id, workspace_id, name, utm)
          VALUES (${t.id}::uuid, ${t.workspaceId}::uuid, ${t.name}, ${JSON.stringify(t.utm)}::jsonb)
          RETURNING *)
        SELECT ${SELECTION} FROM t`,
  );
  return row!;
}

/** Changes the given fields of one template of the workspace; undefined when it is not there. */
export async function updateTemplate(conn: Conn, workspaceId: string, id: string, patch: { name?: string; utm?: UtmValues }): Promise<TemplateRow | undefined> {
  const name = patch.name ?? null;
  const utm = patch.utm ? JSON.stringify(patch.utm) : null;
  const [row] = await rows<TemplateRow>(
    conn,
    sql`WITH t AS (
          UPDATE utm_templates SET name = coalesce(${name}, name), utm = coalesce(${utm}::jsonb, utm), updated_at = now()
          WHERE workspace_id = ${workspaceId}::uuid AND id = ${id}::uuid
          RETURNING *)
        SELECT ${SELECTION} FROM t`,
  );
  return row;
}

/** Deletes one template of the workspace; whether it was there. */
export async function deleteTemplate(conn: Conn, workspaceId: string, id: string): Promise<boolean> {
  const gone = await rows<{ id: string }>(conn, sql`DELETE FROM utm_templates WHERE workspace_id = ${workspaceId}::uuid AND id = ${id}::uuid RETURNING id`);
  return gone.length > 0;
}
