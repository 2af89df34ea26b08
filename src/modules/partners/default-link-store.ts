import { sql } from 'drizzle-orm';
import { arrayParam, rows, type Conn, inList } from '../../db/connect.js';

/**
 * The SQL of partners' default links (operations.md §18 "Default link and partner links"): which
 * partners still need theirs, setting it, and which links are default links. Each function is
 * one statement whatever the count.
 */

/** A partner whose default link is to be made. */
export interface AwaitingPartner {
  id: string;
  referralKey: string | null;
}

/**
 * Workspaces with a program holding approved partners without a default link (the job's work),
 * across workspaces. Reads `programs` (the program module's table) only to know which workspaces
 * have one; the partial index partners_awaiting_default_link makes each probe cheap.
 */
export async function workspacesAwaiting(conn: Conn, o: { limit: number; except: string[] }): Promise<string[]> {
  const found = await rows<{ id: string }>(
    conn,
    sql`SELECT g.workspace_id AS id FROM programs g
        WHERE g.workspace_id <> ALL(${arrayParam(o.except, 'uuid')})
          AND EXISTS (SELECT 1 FROM partners p WHERE p.workspace_id = g.workspace_id
            AND p.status = 'approved' AND p.default_link_id IS NULL AND p.deleted_at IS NULL)
        LIMIT ${o.limit}`,
  );
  return found.map((r) => r.id);
}

/**
 * Up to `limit` approved partners of the workspace without a default link, locked for the
 * caller's transaction; rows another transaction holds are skipped (another instance's job, or a
 * partner write making the link itself), so two runs never make a partner's link twice.
 */
export function lockAwaiting(conn: Conn, workspaceId: string, limit: number): Promise<AwaitingPartner[]> {
  return rows<AwaitingPartner>(
    conn,
    sql`SELECT p.id, p.referral_key AS "referralKey" FROM partners p
        WHERE p.workspace_id = ${workspaceId}::uuid AND p.status = 'approved' AND p.default_link_id IS NULL AND p.deleted_at IS NULL
        ORDER BY p.id LIMIT ${limit} FOR UPDATE SKIP LOCKED`,
  );
}

/**
 * Sets each partner's default link where none is set yet; returns the partners set. No join: the
 * link is looked up in a JSON object keyed by partner id. Joined with the pairs' rows, the planner
 * (partners estimated at a row, their rows written by this very transaction) re-read the whole
 * list for each partner: 10,000 partners approved at once took 37–55 s (bench `payouts`).
 */
export async function setDefaultLinks(conn: Conn, workspaceId: string, pairs: { partnerId: string; linkId: string }[]): Promise<string[]> {
  if (pairs.length === 0) return [];
  const links = JSON.stringify(Object.fromEntries(pairs.map((x) => [x.partnerId, x.linkId])));
  const set = await rows<{ id: string }>(
    conn,
    sql`UPDATE partners p SET default_link_id = (${links}::jsonb ->> p.id::text)::uuid
        WHERE p.workspace_id = ${workspaceId}::uuid AND p.id = ANY(${`{${pairs.map((x) => x.partnerId).join(',')}}`}::uuid[]) AND p.default_link_id IS NULL
        RETURNING p.id`,
  );
  return set.map((r) => r.id);
}

/** Every default link of the workspace's partners (deleted partners' too: their links stay theirs). */
export async function defaultLinkIds(conn: Conn, workspaceId: string): Promise<string[]> {
  const found = await rows<{ id: string }>(
    conn,
    sql`SELECT p.default_link_id AS id FROM partners p WHERE p.workspace_id = ${workspaceId}::uuid AND p.default_link_id IS NOT NULL`,
  );
  return found.map((r) => r.id);
}

/**
 * Of these links, those that are the default link of a live partner, with the partner's status;
 * the partners are locked (shared) for the caller's transaction, so a concurrent approval waits
 * for a deletion to end, or the deletion reads the approval.
 */
export async function defaultLinkHolders(conn: Conn, workspaceId: string, linkIds: string[]): Promise<{ linkId: string; status: string }[]> {
  if (linkIds.length === 0) return [];
  return rows(
    conn,
    sql`SELECT p.default_link_id AS "linkId", p.status FROM partners p
        WHERE p.workspace_id = ${workspaceId}::uuid AND p.deleted_at IS NULL AND p.default_link_id ${inList(linkIds, 'uuid')}
        FOR SHARE`,
  );
}
