import { sql } from 'drizzle-orm';
import { inList, rows, type Conn } from '../../db/connect.js';
import { isoTimestamp } from '../../db/resource-table.js';

/** A logo as the API lists it (its image is read apart: lists never carry it). */
export interface LogoRow {
  id: string;
  width: number;
  height: number;
  source: 'png' | 'svg';
  createdAt: string;
}

const SELECTION = sql.raw(['l.id', 'l.width', 'l.height', 'l.source', `${isoTimestamp('l.created_at')} AS "createdAt"`].join(', '));

export async function insertLogo(
  conn: Conn,
  l: { id: string; workspaceId: string; pngBase64: string; width: number; height: number; source: 'png' | 'svg' },
): Promise<LogoRow> {
  const [row] = await rows<LogoRow>(
    conn,
    sql`WITH l AS (
          INSERT INTO qr_logos (id, workspace_id, png_base64, width, height, source)
          VALUES (${l.id}::uuid, ${l.workspaceId}::uuid, ${l.pngBase64}, ${l.width}, ${l.height}, ${l.source})
          RETURNING *)
        SELECT ${SELECTION} FROM l`,
  );
  return row!;
}

export async function countLogos(conn: Conn, workspaceId: string): Promise<number> {
  const [row] = await rows<{ n: number }>(conn, sql`SELECT count(*)::int AS n FROM qr_logos WHERE workspace_id = ${workspaceId}::uuid`);
  return row!.n;
}

/** The workspace's logos, newest first. */
export function listLogoRows(conn: Conn, workspaceId: string): Promise<LogoRow[]> {
  return rows<LogoRow>(conn, sql`SELECT ${SELECTION} FROM qr_logos l WHERE l.workspace_id = ${workspaceId}::uuid ORDER BY l.created_at DESC, l.seq DESC`);
}

/** One logo's PNG (base64) in the workspace. */
export async function logoImage(conn: Conn, workspaceId: string, id: string): Promise<string | undefined> {
  const [row] = await rows<{ png: string }>(conn, sql`SELECT png_base64 AS png FROM qr_logos WHERE workspace_id = ${workspaceId}::uuid AND id = ${id}::uuid`);
  return row?.png;
}

/**
 * A logo by its id alone, for the public GET /api/qr (a link's qrCode URL names it and no key
 * comes with it): the random id is what keeps it from strangers, as a short id does a link.
 */
export async function logoForCode(conn: Conn, id: string): Promise<{ pngBase64: string; width: number; height: number } | undefined> {
  const [row] = await rows<{ pngBase64: string; width: number; height: number }>(
    conn,
    sql`SELECT png_base64 AS "pngBase64", width, height FROM qr_logos WHERE id = ${id}::uuid`,
  );
  return row;
}

/** Deletes a logo; the links that used it lose it (ON DELETE SET NULL). Whether it was there. */
export async function deleteLogo(conn: Conn, workspaceId: string, id: string): Promise<boolean> {
  const gone = await rows<{ id: string }>(conn, sql`DELETE FROM qr_logos WHERE workspace_id = ${workspaceId}::uuid AND id = ${id}::uuid RETURNING id`);
  return gone.length > 0;
}

/** The ids among `ids` that are logos of the workspace. */
export async function existingLogoIds(conn: Conn, workspaceId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const found = await rows<{ id: string }>(conn, sql`SELECT id FROM qr_logos WHERE workspace_id = ${workspaceId}::uuid AND id ${inList(ids, 'uuid')}`);
  return new Set(found.map((r) => r.id));
}
