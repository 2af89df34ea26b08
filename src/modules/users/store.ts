import { and, asc, eq, sql } from 'drizzle-orm';
import { rows, type Conn } from '../../db/connect.js';
import { memberships, users, workspaces } from '../../db/schema.js';

export type UserRow = typeof users.$inferSelect;
export type MembershipRow = typeof memberships.$inferSelect;

export async function insertUser(conn: Conn, row: typeof users.$inferInsert): Promise<UserRow> {
  const [created] = await conn.insert(users).values(row).returning();
  return created!;
}

/** By email, ignoring case (the unique index is on lower(email)). */
export async function findUserByEmail(conn: Conn, email: string): Promise<UserRow | undefined> {
  const [row] = await conn
    .select()
    .from(users)
    .where(sql`lower(${users.email}) = lower(${email})`);
  return row;
}

export async function findUser(conn: Conn, id: string): Promise<UserRow | undefined> {
  const [row] = await conn.select().from(users).where(eq(users.id, id));
  return row;
}

export function listUsers(conn: Conn): Promise<UserRow[]> {
  return conn.select().from(users).orderBy(asc(users.createdAt), asc(users.seq));
}

export async function anyUser(conn: Conn): Promise<boolean> {
  return (await conn.select({ id: users.id }).from(users).limit(1)).length > 0;
}

export async function insertMembership(conn: Conn, row: typeof memberships.$inferInsert): Promise<MembershipRow> {
  const [created] = await conn.insert(memberships).values(row).returning();
  return created!;
}

export async function findMembership(conn: Conn, workspaceId: string, userId: string): Promise<MembershipRow | undefined> {
  const [row] = await conn
    .select()
    .from(memberships)
    .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, userId)));
  return row;
}

/** The user's workspaces with their role, oldest membership first. */
export function workspacesOf(conn: Conn, userId: string) {
  return conn
    .select({ workspace: workspaces, role: memberships.role })
    .from(memberships)
    .innerJoin(workspaces, eq(workspaces.id, memberships.workspaceId))
    .where(eq(memberships.userId, userId))
    .orderBy(asc(memberships.createdAt), asc(memberships.seq));
}

export async function membershipWithWorkspace(conn: Conn, workspaceId: string, userId: string) {
  const [row] = await conn
    .select({ workspace: workspaces, role: memberships.role })
    .from(memberships)
    .innerJoin(workspaces, eq(workspaces.id, memberships.workspaceId))
    .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, userId)));
  return row;
}

/** Members of a workspace with their account, oldest membership first. */
export function membersOf(conn: Conn, workspaceId: string) {
  return conn
    .select({ userId: users.id, email: users.email, name: users.name, role: memberships.role, createdAt: memberships.createdAt })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.workspaceId, workspaceId))
    .orderBy(asc(memberships.createdAt), asc(memberships.seq));
}

/**
 * The workspace's owners, locked until the transaction ends: two demotions or removals at once
 * are decided one after the other, so the last owner always stays.
 */
export async function lockOwners(conn: Conn, workspaceId: string): Promise<string[]> {
  const rows = await conn
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.role, 'owner')))
    .for('update');
  return rows.map((r) => r.userId);
}

/** Sets a member's role; the role it had (read under the row's lock, for the audit log), or undefined for a non-member. */
export async function setRole(conn: Conn, workspaceId: string, userId: string, role: string): Promise<{ before: string } | undefined> {
  const [row] = await rows<{ before: string }>(
    conn,
    sql`UPDATE memberships m SET role = ${role}
        FROM (SELECT workspace_id, user_id, role FROM memberships WHERE workspace_id = ${workspaceId}::uuid AND user_id = ${userId}::uuid FOR UPDATE) old
        WHERE m.workspace_id = old.workspace_id AND m.user_id = old.user_id
        RETURNING old.role AS before`,
  );
  return row;
}

/** Ends a membership; the role it had, or undefined for a non-member. */
export async function deleteMembership(conn: Conn, workspaceId: string, userId: string): Promise<string | undefined> {
  const [done] = await conn
    .delete(memberships)
    .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, userId)))
    .returning({ role: memberships.role });
  return done?.role;
}

export async function updateUser(conn: Conn, id: string, patch: { name?: string; passwordHash?: string; updatedAt: Date }): Promise<UserRow | undefined> {
  const [row] = await conn.update(users).set(patch).where(eq(users.id, id)).returning();
  return row;
}
