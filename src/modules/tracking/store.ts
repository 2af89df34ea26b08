import { sql } from 'drizzle-orm';
import { rows, type Conn } from '../../db/connect.js';
import { isoTimestamp } from '../../db/resource-table.js';

export interface SettingsRow {
  allowedHostnames: string[];
  clientSales: boolean;
}

export interface KeyRow {
  id: string;
  keySealed: string;
  expiresAt: string | null;
}

/** The workspace's settings, or undefined before the first PUT. */
export async function findSettings(conn: Conn, workspaceId: string): Promise<SettingsRow | undefined> {
  const [row] = await rows<SettingsRow>(
    conn,
    sql`SELECT allowed_hostnames AS "allowedHostnames", client_sales AS "clientSales" FROM tracking_settings WHERE workspace_id = ${workspaceId}::uuid`,
  );
  return row;
}

/** Writes the settings (the row locked until the transaction ends); the settings before, if any. */
export async function upsertSettings(conn: Conn, workspaceId: string, s: SettingsRow): Promise<SettingsRow | undefined> {
  const before = await rows<SettingsRow>(
    conn,
    sql`SELECT allowed_hostnames AS "allowedHostnames", client_sales AS "clientSales" FROM tracking_settings WHERE workspace_id = ${workspaceId}::uuid FOR UPDATE`,
  );
  await rows(
    conn,
    sql`INSERT INTO tracking_settings (workspace_id, allowed_hostnames, client_sales)
        VALUES (${workspaceId}::uuid, ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(s.allowedHostnames)}::jsonb)), ${s.clientSales})
        ON CONFLICT (workspace_id) DO UPDATE SET allowed_hostnames = EXCLUDED.allowed_hostnames, client_sales = EXCLUDED.client_sales, updated_at = now()`,
  );
  return before[0];
}

/** The workspace's keys still working at `now`: the current one (expiresAt null) first. */
export function liveKeys(conn: Conn, workspaceId: string, now: Date): Promise<KeyRow[]> {
  return rows<KeyRow>(
    conn,
    sql`SELECT id, key_sealed AS "keySealed", ${sql.raw(isoTimestamp('expires_at'))} AS "expiresAt"
        FROM publishable_keys WHERE workspace_id = ${workspaceId}::uuid AND (expires_at IS NULL OR expires_at > ${now.toISOString()}::timestamptz)
        ORDER BY expires_at DESC NULLS FIRST`,
  );
}

/** Ends the current key at `until` (a rotation) and forgets keys already over; the former current key's id, if any. */
export async function retireCurrentKey(conn: Conn, workspaceId: string, until: Date): Promise<string | undefined> {
  await rows(
    conn,
    sql`DELETE FROM publishable_keys WHERE workspace_id = ${workspaceId}::uuid AND expires_at IS NOT NULL AND expires_at <= ${until.toISOString()}::timestamptz`,
  );
  const [row] = await rows<{ id: string }>(
    conn,
    sql`UPDATE publishable_keys SET expires_at = ${until.toISOString()}::timestamptz WHERE workspace_id = ${workspaceId}::uuid AND expires_at IS NULL RETURNING id`,
  );
  return row?.id;
}

/** Every rotated key of the workspace stops now (a rotation with `immediate`). */
export async function endRotatedKeys(conn: Conn, workspaceId: string): Promise<void> {
  await rows(conn, sql`DELETE FROM publishable_keys WHERE workspace_id = ${workspaceId}::uuid AND expires_at IS NOT NULL`);
}

export async function insertKey(conn: Conn, k: { id: string; workspaceId: string; hash: Buffer; sealed: string }): Promise<void> {
  await rows(
    conn,
    sql`INSERT INTO publishable_keys (id, workspace_id, key_hash, key_sealed) VALUES (${k.id}::uuid, ${k.workspaceId}::uuid, ${k.hash}, ${k.sealed})`,
  );
}

/** The key with this hash, its workspace's settings and the workspace itself, in one indexed lookup. */
export interface KeySiteRow extends SettingsRow {
  workspaceId: string;
  expiresAt: string | null;
}

export async function siteByKeyHash(conn: Conn, hash: Buffer): Promise<KeySiteRow | undefined> {
  const [row] = await rows<KeySiteRow>(
    conn,
    sql`SELECT ${sql.raw(isoTimestamp('k.expires_at'))} AS "expiresAt", k.workspace_id AS "workspaceId",
          coalesce(s.allowed_hostnames, '{}') AS "allowedHostnames", coalesce(s.client_sales, false) AS "clientSales"
        FROM publishable_keys k LEFT JOIN tracking_settings s ON s.workspace_id = k.workspace_id
        WHERE k.key_hash = ${hash}`,
  );
  return row;
}

/** Whether any workspace allows one of these hostname patterns (a preflight's origin: its hostname and the wildcards above it). */
export async function anyAllows(conn: Conn, patterns: string[]): Promise<boolean> {
  const [row] = await rows<{ found: boolean }>(
    conn,
    sql`SELECT EXISTS (SELECT 1 FROM tracking_settings WHERE allowed_hostnames && ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(patterns)}::jsonb))) AS found`,
  );
  return row!.found;
}
