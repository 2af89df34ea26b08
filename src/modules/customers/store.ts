import { sql, type SQL } from 'drizzle-orm';
import { inList, rows, type Conn } from '../../db/connect.js';
import { resourceStore } from '../../db/resource-table.js';

export interface CustomerRow {
  id: string;
  externalId: string;
  name: string | null;
  email: string | null;
  avatar: string | null;
  /** The partner who won the customer (operations.md §18 "Who earns"): read-only. */
  partnerId: string | null;
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
    { field: 'partnerId', column: 'partner_id', type: 'uuid' },
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

/** Records the partner who won the customer, unless one already has; whether this one did. */
export async function setWinningPartner(conn: Conn, workspaceId: string, customerId: string, partnerId: string): Promise<boolean> {
  const won = await rows(
    conn,
    sql`UPDATE customers SET partner_id = ${partnerId}::uuid WHERE id = ${customerId}::uuid AND workspace_id = ${workspaceId}::uuid AND partner_id IS NULL RETURNING 1`,
  );
  return won.length > 0;
}

/**
 * Records the partner who won the customer unless one already has, only `when` (an SQL
 * condition): a data-modifying query of another module's statement (the commission a
 * conversion earns wins the customer in its one read).
 */
export function winningPartnerSql(workspaceId: string, customerId: string, partnerId: string, when: SQL): SQL {
  return sql`UPDATE customers SET partner_id = ${partnerId}::uuid
      WHERE id = ${customerId}::uuid AND workspace_id = ${workspaceId}::uuid AND partner_id IS NULL AND (${when}) RETURNING 1`;
}

/**
 * Active customers of the workspace whose e-mail's local part is `local` (lower case): the
 * candidates for one address, read through customers_email_local; the caller compares them whole.
 */
export function customersByEmailLocal(conn: Conn, workspaceId: string, local: string): Promise<{ externalId: string; email: string }[]> {
  return rows(
    conn,
    sql`SELECT external_id AS "externalId", email FROM customers
        WHERE workspace_id = ${workspaceId}::uuid AND deleted_at IS NULL AND email IS NOT NULL AND lower(split_part(email, '@', 1)) = ${local}
        LIMIT 1000`,
  );
}
