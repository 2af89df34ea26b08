import { and, asc, eq, sql } from 'drizzle-orm';
import type { Conn } from '../../db/connect.js';
import { memberships, users, workspaces } from '../../db/schema.js';

export type UserRow = typeof users.$inferSelect;
export type MembershipRow = typeof memberships.$inferSelect;

export async function insertUser(conn: Conn, row: typeof users.$inferInsert): Promise<UserRow> {
  const [created] = await conn.insert(users).values(row).returning();
  return created!;
}

/** By email, ignoring case (the unique index is on lower(email)). */
export async function findUserByEmail(conn: Conn, email: string): Promise<UserRow | undefined> {
  const [row] = await conn.select().from(users).where(sql`lower(${users.email}) = lower(${email})`);
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
  const [row] = await conn.select().from(memberships).where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, userId)));
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
