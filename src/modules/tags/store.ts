import { sql } from 'drizzle-orm';
import { inList, rows, type Conn } from '../../db/connect.js';
import { resourceStore } from '../../db/resource-table.js';

export interface TagRow {
  id: string;
  name: string;
  color: string | null;
  createdAt: string;
  updatedAt: string;
}

export const tagStore = resourceStore<TagRow>({
  table: 'tags',
  softDelete: false,
  columns: [
    { field: 'name', column: 'name', type: 'text' },
    { field: 'color', column: 'color', type: 'text' },
  ],
});

/** Tags of the workspace whose lower-cased name is one of `lowerNames`, in one statement. */
export function tagsNamed(conn: Conn, workspaceId: string, lowerNames: string[]): Promise<{ id: string; key: string }[]> {
  if (lowerNames.length === 0) return Promise.resolve([]);
  return rows(conn, sql`SELECT id, lower(name) AS key FROM tags WHERE workspace_id = ${workspaceId} AND lower(name) ${inList(lowerNames, 'text')}`);
}

/** Parks the names of tags about to be renamed on a value no client can send (U+0001 + id). */
export async function releaseTagNames(conn: Conn, workspaceId: string, ids: string[]): Promise<void> {
  await conn.execute(sql`UPDATE tags SET name = chr(1) || id::text WHERE workspace_id = ${workspaceId} AND id ${inList(ids, 'uuid')}`);
}
