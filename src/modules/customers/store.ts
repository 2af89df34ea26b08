import { sql } from 'drizzle-orm';
import { inList, rows, type Conn } from '../../db/connect.js';
import { resourceStore } from '../../db/resource-table.js';

export interface CustomerRow {
  id: string;
  externalId: string;
  name: string | null;
  email: string | null;
  avatar: string | null;
  createdAt: string;
  updatedAt: string;
}

export const customerStore = resourceStore<CustomerRow>({
  table: 'customers',
  softDelete: true,
  columns: [
    { field: 'externalId', column: 'external_id', type: 'text' },
    { field: 'name', column: 'name', type: 'text' },
    { field: 'email', column: 'email', type: 'text' },
    { field: 'avatar', column: 'avatar', type: 'text' },
  ],
});

/** Active customers of the workspace with these external ids. */
export function customersByExternalId(conn: Conn, workspaceId: string, externalIds: string[]): Promise<{ id: string; externalId: string }[]> {
  if (externalIds.length === 0) return Promise.resolve([]);
  return rows(
    conn,
    sql`SELECT id, external_id AS "externalId" FROM customers
        WHERE workspace_id = ${workspaceId} AND deleted_at IS NULL AND external_id ${inList(externalIds, 'text')}`,
  );
}
