import { sql, type SQL } from 'drizzle-orm';
import { inList, rows, type Conn } from '../../db/connect.js';
import { isoTimestamp } from '../../db/resource-table.js';

/** A claim as stored; the service turns it into the API's Domain record. */
export interface DomainRow {
  id: string;
  workspaceId: string;
  host: string;
  status: 'pending' | 'active';
  txtValue: string;
  rootUrl: string | null;
  notFoundUrl: string | null;
  /** The workspace's default host for new links (operations.md §21). */
  isDefault: boolean;
  verifiedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** What the redirect keeps in memory per active host. */
export interface ActiveHostRow {
  host: string;
  workspaceId: string;
  rootUrl: string | null;
  notFoundUrl: string | null;
}

const SELECTION = sql.raw(
  [
    'd.id',
    'd.workspace_id AS "workspaceId"',
    'd.host',
    'd.status',
    'd.txt_value AS "txtValue"',
    'd.root_url AS "rootUrl"',
    'd.not_found_url AS "notFoundUrl"',
    'd.is_default AS "isDefault"',
    `CASE WHEN d.verified_at IS NULL THEN NULL ELSE ${isoTimestamp('d.verified_at')} END AS "verifiedAt"`,
    `${isoTimestamp('d.created_at')} AS "createdAt"`,
    `${isoTimestamp('d.updated_at')} AS "updatedAt"`,
  ].join(', '),
);

/** `workspace_id = …` when a workspace acts; nothing when the operator does (every workspace). */
const scoped = (workspaceId: string | null): SQL => (workspaceId === null ? sql`` : sql` AND d.workspace_id = ${workspaceId}::uuid`);

export async function insertDomain(
  conn: Conn,
  d: { id: string; workspaceId: string; host: string; txtValue: string; rootUrl: string | null; notFoundUrl: string | null },
): Promise<DomainRow> {
  const [row] = await rows<DomainRow>(
    conn,
    sql`WITH d AS (
          INSERT INTO domains (id, workspace_id, host, status, txt_value, root_url, not_found_url)
          VALUES (${d.id}::uuid, ${d.workspaceId}::uuid, ${d.host}, 'pending', ${d.txtValue}, ${d.rootUrl}, ${d.notFoundUrl})
          RETURNING *)
        SELECT ${SELECTION} FROM d`,
  );
  return row!;
}

/** Claims of one workspace (or, for the operator, of all), newest first. */
export function listDomainRows(conn: Conn, workspaceId: string | null, page: { take: number; skip: number; sort: 'asc' | 'desc' }): Promise<DomainRow[]> {
  const dir = sql.raw(page.sort === 'asc' ? 'ASC' : 'DESC');
  return rows<DomainRow>(
    conn,
    sql`SELECT ${SELECTION} FROM domains d WHERE d.deleted_at IS NULL${scoped(workspaceId)}
        ORDER BY d.created_at ${dir}, d.seq ${dir} LIMIT ${page.take} OFFSET ${page.skip}`,
  );
}

export async function findDomainRow(conn: Conn, workspaceId: string | null, id: string): Promise<DomainRow | undefined> {
  const [row] = await rows<DomainRow>(conn, sql`SELECT ${SELECTION} FROM domains d WHERE d.id = ${id}::uuid AND d.deleted_at IS NULL${scoped(workspaceId)}`);
  return row;
}

/** Sets the given fields (undefined: unchanged, null: cleared). */
export async function updateDomainRow(
  conn: Conn,
  workspaceId: string,
  id: string,
  f: { rootUrl?: string | null; notFoundUrl?: string | null },
): Promise<DomainRow | undefined> {
  const sets: SQL[] = [sql`updated_at = now()`];
  if (f.rootUrl !== undefined) sets.push(sql`root_url = ${f.rootUrl}`);
  if (f.notFoundUrl !== undefined) sets.push(sql`not_found_url = ${f.notFoundUrl}`);
  const [row] = await rows<DomainRow>(
    conn,
    sql`WITH d AS (UPDATE domains SET ${sql.join(sets, sql`, `)} WHERE id = ${id}::uuid AND workspace_id = ${workspaceId}::uuid AND deleted_at IS NULL RETURNING *)
        SELECT ${SELECTION} FROM d`,
  );
  return row;
}

/**
 * Makes the claim the workspace's default host (and no other), or stops it being so. Clears the
 * former default first: the partial unique index allows one at a time.
 */
export async function setDefaultDomainRow(conn: Conn, workspaceId: string, id: string, isDefault: boolean): Promise<DomainRow | undefined> {
  if (isDefault) {
    await conn.execute(
      sql`UPDATE domains SET is_default = false, updated_at = now() WHERE workspace_id = ${workspaceId}::uuid AND is_default AND id <> ${id}::uuid AND deleted_at IS NULL`,
    );
  }
  const [row] = await rows<DomainRow>(
    conn,
    sql`WITH d AS (UPDATE domains SET is_default = ${isDefault}, updated_at = now()
                   WHERE id = ${id}::uuid AND workspace_id = ${workspaceId}::uuid AND deleted_at IS NULL RETURNING *)
        SELECT ${SELECTION} FROM d`,
  );
  return row;
}

/** The workspace's default host, while it is active. */
export async function defaultHostOf(conn: Conn, workspaceId: string): Promise<string | undefined> {
  const [row] = await rows<{ host: string }>(
    conn,
    sql`SELECT host FROM domains WHERE workspace_id = ${workspaceId}::uuid AND is_default AND status = 'active' AND deleted_at IS NULL`,
  );
  return row?.host;
}

/** The workspace's active hosts, the default first, then by host. */
export function activeHostsOf(conn: Conn, workspaceId: string): Promise<{ host: string; isDefault: boolean }[]> {
  return rows(
    conn,
    sql`SELECT host, is_default AS "isDefault" FROM domains WHERE workspace_id = ${workspaceId}::uuid AND status = 'active' AND deleted_at IS NULL
        ORDER BY is_default DESC, host`,
  );
}

/**
 * Makes the claim active, and removes the aliases other workspaces had stored on its host while
 * their claims were pending (they can never route now). Writes link_aliases, the links module's
 * table, in the verification's transaction: the host changes hands and its aliases with it.
 */
export async function activateDomainRow(conn: Conn, workspaceId: string | null, id: string): Promise<DomainRow | undefined> {
  const [row] = await rows<DomainRow>(
    conn,
    sql`WITH d AS (UPDATE domains d SET status = 'active', verified_at = now(), updated_at = now()
                   WHERE d.id = ${id}::uuid AND d.deleted_at IS NULL${scoped(workspaceId)} RETURNING *)
        SELECT ${SELECTION} FROM d`,
  );
  if (row) {
    await conn.execute(sql`DELETE FROM link_aliases WHERE host = ${row.host} AND workspace_id <> ${row.workspaceId}::uuid`);
    // Keys too (operations.md §21): those links go back to the short-link host, by short id.
    await conn.execute(sql`DELETE FROM link_keys WHERE host = ${row.host} AND workspace_id <> ${row.workspaceId}::uuid`);
  }
  return row;
}

/**
 * Soft-deletes the claim and removes the workspace's aliases on its host (so the host and its
 * paths are free for whoever holds it next). Writes link_aliases, the links module's table, in
 * the same transaction, as activateDomainRow does.
 */
export async function deleteDomainRow(conn: Conn, workspaceId: string | null, id: string): Promise<DomainRow | undefined> {
  const [row] = await rows<DomainRow>(
    conn,
    sql`WITH d AS (UPDATE domains d SET deleted_at = now(), updated_at = now(), is_default = false WHERE d.id = ${id}::uuid AND d.deleted_at IS NULL${scoped(workspaceId)} RETURNING *)
        SELECT ${SELECTION} FROM d`,
  );
  if (row) {
    await conn.execute(sql`DELETE FROM link_aliases WHERE host = ${row.host} AND workspace_id = ${row.workspaceId}::uuid`);
    // The links keyed on the host go back to the short-link host (by short id); the host's paths are free for its next holder.
    await conn.execute(sql`DELETE FROM link_keys WHERE host = ${row.host} AND workspace_id = ${row.workspaceId}::uuid`);
  }
  return row;
}

/** The workspace holding the host active, if any. */
export async function activeHolderOf(conn: Conn, host: string): Promise<string | undefined> {
  const [row] = await rows<{ workspaceId: string }>(
    conn,
    sql`SELECT workspace_id AS "workspaceId" FROM domains WHERE host = ${host} AND status = 'active' AND deleted_at IS NULL`,
  );
  return row?.workspaceId;
}

/** Every active host of the server (a few thousand at most: the redirect holds them all). */
export function activeHostRows(conn: Conn): Promise<ActiveHostRow[]> {
  return rows<ActiveHostRow>(
    conn,
    sql`SELECT host, workspace_id AS "workspaceId", root_url AS "rootUrl", not_found_url AS "notFoundUrl"
        FROM domains WHERE status = 'active' AND deleted_at IS NULL`,
  );
}

/** Which of these hosts the workspace claims (pending or active): one statement. */
export function claimedHostRows(conn: Conn, workspaceId: string, hosts: string[]): Promise<{ host: string; status: 'pending' | 'active' }[]> {
  if (hosts.length === 0) return Promise.resolve([]);
  return rows(conn, sql`SELECT host, status FROM domains WHERE workspace_id = ${workspaceId}::uuid AND deleted_at IS NULL AND host ${inList(hosts, 'text')}`);
}
