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

/**
 * Records the partner who won each customer, unless one already has; the customers won. One
 * statement, no join (the partner looked up in a JSON object keyed by customer id): a join with
 * the pairs' rows can be planned to re-read them for each customer.
 */
export async function setWinningPartners(conn: Conn, workspaceId: string, pairs: { customerId: string; partnerId: string }[]): Promise<string[]> {
  if (pairs.length === 0) return [];
  const partners = JSON.stringify(Object.fromEntries(pairs.map((p) => [p.customerId, p.partnerId])));
  const won = await rows<{ id: string }>(
    conn,
    sql`UPDATE customers c SET partner_id = (${partners}::jsonb ->> c.id::text)::uuid
        WHERE c.workspace_id = ${workspaceId}::uuid AND c.id = ANY(${`{${pairs.map((p) => p.customerId).join(',')}}`}::uuid[]) AND c.partner_id IS NULL
        RETURNING c.id`,
  );
  return won.map((r) => r.id);
}

/**
 * Records the partner who won the customer unless one already has, only `when` (an SQL
 * condition): a data-modifying query of another module's statement (the commission a
 * conversion earns wins the customer in its one read).
 */
export function winningPartnerSql(workspaceId: string, customerId: SQL, partnerId: SQL, when: SQL): SQL {
  return sql`UPDATE customers SET partner_id = ${partnerId}
      WHERE id = ${customerId} AND workspace_id = ${workspaceId}::uuid AND partner_id IS NULL AND (${when}) RETURNING 1`;
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
