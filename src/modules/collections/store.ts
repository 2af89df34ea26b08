import { sql } from 'drizzle-orm';
import { inList, rows, type Conn } from '../../db/connect.js';
import { resourceStore } from '../../db/resource-table.js';

export interface CollectionRow {
  id: string;
  name: string;
  description: string | null;
  createdAt: string;
  updatedAt: string;
}

export const collectionStore = resourceStore<CollectionRow>({
  table: 'collections',
  softDelete: true,
  columns: [
    { field: 'name', column: 'name', type: 'text' },
    { field: 'description', column: 'description', type: 'text' },
  ],
});

/** Active collections of the workspace by lower-cased name (the oldest of a name first), and by id. */
export function collectionsNamed(conn: Conn, workspaceId: string, lowerNames: string[], ids: string[]): Promise<{ id: string; key: string }[]> {
  if (lowerNames.length === 0 && ids.length === 0) return Promise.resolve([]);
  return rows(
    conn,
    sql`SELECT id, lower(name) AS key FROM collections WHERE workspace_id = ${workspaceId} AND deleted_at IS NULL
        AND (lower(name) ${inList(lowerNames.length ? lowerNames : [''], 'text')} OR id ${inList(ids.length ? ids : ['00000000-0000-0000-0000-000000000000'], 'uuid')})
        ORDER BY created_at, seq`,
  );
}
