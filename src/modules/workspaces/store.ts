import { asc, eq } from 'drizzle-orm';
import type { Conn } from '../../db/connect.js';
import { memberships, workspaces } from '../../db/schema.js';

export type WorkspaceRow = typeof workspaces.$inferSelect;

export async function insertWorkspace(conn: Conn, row: { id: string; name: string; plan: string }): Promise<WorkspaceRow> {
  const [created] = await conn.insert(workspaces).values(row).returning();
  return created!;
}

export function listWorkspaces(conn: Conn): Promise<WorkspaceRow[]> {
  return conn.select().from(workspaces).orderBy(asc(workspaces.createdAt), asc(workspaces.seq));
}

export async function findWorkspace(conn: Conn, id: string, opts: { lock?: boolean } = {}): Promise<WorkspaceRow | undefined> {
  const query = conn.select().from(workspaces).where(eq(workspaces.id, id));
  const [row] = opts.lock ? await query.for('update') : await query;
  return row;
}

export async function updateWorkspace(
  conn: Conn,
  id: string,
  patch: Partial<Pick<WorkspaceRow, 'name' | 'plan' | 'rateLimitOverride' | 'maxBulkItemsOverride' | 'requireMfa'>>,
): Promise<WorkspaceRow | undefined> {
  if (Object.keys(patch).length === 0) return findWorkspace(conn, id);
  const [row] = await conn.update(workspaces).set(patch).where(eq(workspaces.id, id)).returning();
  return row;
}

export async function insertOwner(conn: Conn, workspaceId: string, userId: string): Promise<void> {
  await conn.insert(memberships).values({ workspaceId, userId, role: 'owner' });
}
