import { sql, type SQL } from 'drizzle-orm';
import { arrayParam, inList, rows, type Conn } from '../../db/connect.js';

/**
 * The SQL of a partner's standing in the program beside the bulk columns: the values unique in
 * the workspace (referral keys and coupon codes ignoring case, tenant ids), coupon codes' rows,
 * statuses. Deleted partners count: they keep their values (the unique indexes hold them too).
 * Each function is one statement whatever the number of values.
 */

/** A stored value and the partner holding it (`value` lower-cased where the index ignores case). */
export interface Holder {
  value: string;
  partnerId: string;
}

/** The holders of these referral keys (given lower-cased). */
export function referralKeyHolders(conn: Conn, workspaceId: string, keys: string[]): Promise<Holder[]> {
  if (keys.length === 0) return Promise.resolve([]);
  return rows<Holder>(
    conn,
    sql`SELECT lower(p.referral_key) AS value, p.id AS "partnerId" FROM partners p
        WHERE p.workspace_id = ${workspaceId}::uuid AND lower(p.referral_key) ${inList(keys, 'text')}`,
  );
}

/**
 * The stored keys (lower-cased) a default key made from these stems could collide with: each
 * stem itself and `stem-N`. A key's own stem is the key less one trailing `-digits`.
 */
export async function keysOfStems(conn: Conn, workspaceId: string, stems: string[]): Promise<string[]> {
  if (stems.length === 0) return [];
  const found = await rows<{ key: string }>(
    conn,
    sql`WITH s AS (SELECT DISTINCT unnest(${arrayParam(stems, 'text')}) AS stem),
          k AS (SELECT lower(p.referral_key) AS key FROM partners p WHERE p.workspace_id = ${workspaceId}::uuid AND p.referral_key IS NOT NULL)
        SELECT k.key FROM k JOIN s ON s.stem = k.key
        UNION SELECT k.key FROM k JOIN s ON s.stem = regexp_replace(k.key, '-[0-9]+$', '')`,
  );
  return found.map((r) => r.key);
}

export function tenantHolders(conn: Conn, workspaceId: string, tenantIds: string[]): Promise<Holder[]> {
  if (tenantIds.length === 0) return Promise.resolve([]);
  return rows<Holder>(
    conn,
    sql`SELECT p.tenant_id AS value, p.id AS "partnerId" FROM partners p
        WHERE p.workspace_id = ${workspaceId}::uuid AND p.tenant_id ${inList(tenantIds, 'text')}`,
  );
}

/** The holders of these coupon codes (given lower-cased). */
export function couponHolders(conn: Conn, workspaceId: string, codes: string[]): Promise<Holder[]> {
  if (codes.length === 0) return Promise.resolve([]);
  return rows<Holder>(
    conn,
    sql`SELECT lower(c.code) AS value, c.partner_id AS "partnerId" FROM partner_coupon_codes c
        WHERE c.workspace_id = ${workspaceId}::uuid AND lower(c.code) ${inList(codes, 'text')}`,
  );
}

/** The statuses of these partners (live ones). */
export async function statusesOf(conn: Conn, workspaceId: string, ids: string[], lock = false): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  // Locked in id order (the order every such write takes them in), for the write's transaction.
  const locked = lock ? sql`ORDER BY p.id FOR UPDATE` : sql``;
  const found = await rows<{ id: string; status: string }>(
    conn,
    sql`SELECT p.id, p.status FROM partners p WHERE p.workspace_id = ${workspaceId}::uuid AND p.deleted_at IS NULL AND p.id ${inList(ids, 'uuid')} ${locked}`,
  );
  return new Map(found.map((r) => [r.id, r.status]));
}

/**
 * Frees the referral keys and tenant ids of partners whose entries set new ones, before the
 * update writes them, so two partners of one request can swap their values.
 */
export async function releaseValues(conn: Conn, workspaceId: string, release: { referralKey: string[]; tenantId: string[] }): Promise<void> {
  if (release.referralKey.length + release.tenantId.length === 0) return;
  const keys = arrayParam(release.referralKey, 'uuid');
  const tenants = arrayParam(release.tenantId, 'uuid');
  await conn.execute(
    sql`UPDATE partners p SET
          referral_key = CASE WHEN p.id = ANY(${keys}) THEN NULL ELSE p.referral_key END,
          tenant_id = CASE WHEN p.id = ANY(${tenants}) THEN NULL ELSE p.tenant_id END
        WHERE p.workspace_id = ${workspaceId}::uuid AND (p.id = ANY(${keys}) OR p.id = ANY(${tenants}))`,
  );
}

/** Drops every coupon code of these partners (their entries give new lists). */
export async function dropCoupons(conn: Conn, workspaceId: string, partnerIds: string[]): Promise<void> {
  if (partnerIds.length === 0) return;
  await conn.execute(sql`DELETE FROM partner_coupon_codes c WHERE c.workspace_id = ${workspaceId}::uuid AND c.partner_id ${inList(partnerIds, 'uuid')}`);
}

/** Stores coupon codes, each with its partner and its position in the partner's list. */
export async function insertCoupons(conn: Conn, workspaceId: string, codes: { partnerId: string; code: string; position: number }[]): Promise<void> {
  if (codes.length === 0) return;
  await conn.execute(
    sql`INSERT INTO partner_coupon_codes (workspace_id, code, partner_id, position)
        SELECT ${workspaceId}::uuid, e.j->>'code', (e.j->>'partnerId')::uuid, (e.j->>'position')::integer
        FROM jsonb_array_elements(${JSON.stringify(codes)}::jsonb) AS e(j)`,
  );
}

/** The coupon codes of these partners, each list in its order (partners without codes are absent). */
export async function couponsOf(conn: Conn, workspaceId: string, partnerIds: string[]): Promise<Map<string, string[]>> {
  if (partnerIds.length === 0) return new Map();
  const found = await rows<{ partnerId: string; codes: string[] }>(
    conn,
    sql`SELECT c.partner_id AS "partnerId", jsonb_agg(c.code ORDER BY c.position) AS codes FROM partner_coupon_codes c
        WHERE c.workspace_id = ${workspaceId}::uuid AND c.partner_id ${inList(partnerIds, 'uuid')} GROUP BY c.partner_id`,
  );
  return new Map(found.map((r) => [r.partnerId, r.codes]));
}

/** The partner holding a coupon code, ignoring case. */
/** The live partner holding this code (ignoring case), with their default link; none when no partner holds it. */
export async function couponHolder(conn: Conn, workspaceId: string, code: string): Promise<{ partnerId: string; defaultLinkId: string | null } | undefined> {
  const [row] = await rows<{ partnerId: string; defaultLinkId: string | null }>(
    conn,
    sql`SELECT p.id AS "partnerId", p.default_link_id AS "defaultLinkId" FROM partner_coupon_codes c
        JOIN partners p ON p.id = c.partner_id AND p.workspace_id = c.workspace_id AND p.deleted_at IS NULL
        WHERE c.workspace_id = ${workspaceId}::uuid AND lower(c.code) = ${code.toLowerCase()}`,
  );
  return row;
}

/** A partner a visitor's `?via=` names (operations.md §19): the approved live partner with this referral key (ignoring case), their default link and first coupon code. */
export async function approvedByReferralKey(
  conn: Conn,
  workspaceId: string,
  key: string,
): Promise<{ id: string; name: string; image: string | null; defaultLinkId: string | null; couponCode: string | null } | undefined> {
  const [row] = await rows<{ id: string; name: string; image: string | null; defaultLinkId: string | null; couponCode: string | null }>(
    conn,
    sql`SELECT p.id, p.name, p.image, p.default_link_id AS "defaultLinkId",
          (SELECT c.code FROM partner_coupon_codes c WHERE c.partner_id = p.id AND c.workspace_id = p.workspace_id ORDER BY c.position LIMIT 1) AS "couponCode"
        FROM partners p
        WHERE p.workspace_id = ${workspaceId}::uuid AND lower(p.referral_key) = ${key.toLowerCase()} AND p.deleted_at IS NULL AND p.status = 'approved'`,
  );
  return row;
}

/** How many live partners of the workspace have this status (the applications' cap counts the pending). */
export async function countInStatus(conn: Conn, workspaceId: string, status: string): Promise<number> {
  const [row] = await rows<{ n: number }>(
    conn,
    sql`SELECT count(*)::int AS n FROM partners p WHERE p.workspace_id = ${workspaceId}::uuid AND p.deleted_at IS NULL AND p.status = ${status}`,
  );
  return row?.n ?? 0;
}

export interface StandingRow {
  id: string;
  status: string;
  groupId: string | null;
  userId: string | null;
  email: string | null;
}

/** What the commission writes need of these live partners (a deleted one is archived and earns nothing). */
export function standingRows(conn: Conn, workspaceId: string, ids: string[]): Promise<StandingRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return rows<StandingRow>(
    conn,
    sql`SELECT p.id, p.status, p.group_id AS "groupId", p.user_id AS "userId", p.email FROM partners p
        WHERE p.workspace_id = ${workspaceId}::uuid AND p.deleted_at IS NULL AND p.id ${inList(ids, 'uuid')}`,
  );
}

/**
 * standingRows of one live partner as a query of another module's statement (the commission a
 * conversion earns reads it with the rest in one round trip): columns id, status, group_id,
 * user_id, email; no row for a deleted or unknown partner.
 */
export function standingSql(workspaceId: string, partnerId: SQL): SQL {
  return sql`SELECT p.id, p.status, p.group_id, p.user_id, p.email FROM partners p
      WHERE p.workspace_id = ${workspaceId}::uuid AND p.deleted_at IS NULL AND p.id = ${partnerId}`;
}

/**
 * The person who signs in as this live partner (an accepted invitation, operations.md §18): set
 * only where none is, so two acceptances never both win. False when the partner has one already.
 */
export async function setPartnerUser(conn: Conn, workspaceId: string, partnerId: string, userId: string): Promise<boolean> {
  const set = await rows(
    conn,
    sql`UPDATE partners SET user_id = ${userId}::uuid, updated_at = now()
        WHERE workspace_id = ${workspaceId}::uuid AND id = ${partnerId}::uuid AND deleted_at IS NULL AND user_id IS NULL RETURNING 1`,
  );
  return set.length === 1;
}

/** Unlinks these partners' people (PUT `userId: null`): the person and their payout details go together. */
export async function unlinkPartnerUsers(conn: Conn, workspaceId: string, partnerIds: string[]): Promise<void> {
  await conn.execute(
    sql`UPDATE partners SET user_id = NULL, payout_method = NULL, payout_details_sealed = NULL, payout_destination_masked = NULL,
          payout_details_changed_at = NULL, updated_at = now()
        WHERE workspace_id = ${workspaceId}::uuid AND id ${inList(partnerIds, 'uuid')} AND deleted_at IS NULL`,
  );
}

/** The programs a person is a partner in (their partner rows linked to them), by name. */
export function partnerProgramRows(
  conn: Conn,
  userId: string,
): Promise<{ id: string; name: string; status: string; workspaceId: string; partnerId: string }[]> {
  return rows(
    conn,
    sql`SELECT pr.id, pr.name, p.status, p.workspace_id AS "workspaceId", p.id AS "partnerId" FROM partners p JOIN programs pr ON pr.workspace_id = p.workspace_id
        WHERE p.user_id = ${userId}::uuid AND p.deleted_at IS NULL ORDER BY pr.name, pr.id`,
  );
}

/** The live partner this person signs in as, its row locked for the caller's transaction (none once unlinked or deleted). */
export async function lockOwnPartnerRow(conn: Conn, workspaceId: string, partnerId: string, userId: string): Promise<StandingRow | undefined> {
  const [row] = await rows<StandingRow>(
    conn,
    sql`SELECT p.id, p.status, p.group_id AS "groupId", p.user_id AS "userId", p.email FROM partners p
        WHERE p.workspace_id = ${workspaceId}::uuid AND p.id = ${partnerId}::uuid AND p.user_id = ${userId}::uuid AND p.deleted_at IS NULL FOR UPDATE`,
  );
  return row;
}
