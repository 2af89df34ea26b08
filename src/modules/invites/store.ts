import { and, asc, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Conn } from '../../db/connect.js';
import { invites, memberships, users, workspaces } from '../../db/schema.js';

// This store also reads `users` and writes `memberships` (the users module's tables): accepting
// an invite claims it, makes the account and grants the membership in one transaction, and a
// membership is inserted with ON CONFLICT in the same statement (a caught 23505 would abort it).

export type InviteRow = typeof invites.$inferSelect;
export type UserRow = typeof users.$inferSelect;
export type MembershipRow = typeof memberships.$inferSelect;

/** Not accepted, not revoked, not expired at `now`. */
const pending = (now: Date) => and(isNull(invites.acceptedAt), isNull(invites.revokedAt), gt(invites.expiresAt, now));
const sameEmail = (column: typeof users.email | typeof invites.email, email: string) => sql`lower(${column}) = lower(${email})`;

export async function insertInvite(conn: Conn, row: typeof invites.$inferInsert): Promise<InviteRow> {
  const [created] = await conn.insert(invites).values(row).returning();
  return created!;
}

/**
 * Serialises invitations of one address to one workspace until the transaction ends, so two
 * owners inviting the same person at once still leave a single pending invite.
 */
export async function lockInviteEmail(conn: Conn, workspaceId: string, email: string): Promise<void> {
  await conn.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`invite:${workspaceId}:${email.toLowerCase()}`}, 0))`);
}

/** Revokes the pending invites of this address to this workspace; returns how many. */
export async function revokePendingFor(conn: Conn, workspaceId: string, email: string, now: Date): Promise<number> {
  const done = await conn
    .update(invites)
    .set({ revokedAt: now })
    .where(and(eq(invites.workspaceId, workspaceId), sameEmail(invites.email, email), pending(now)))
    .returning({ id: invites.id });
  return done.length;
}

export function listPending(conn: Conn, workspaceId: string, now: Date): Promise<InviteRow[]> {
  return conn
    .select()
    .from(invites)
    .where(and(eq(invites.workspaceId, workspaceId), pending(now)))
    .orderBy(asc(invites.createdAt), asc(invites.seq));
}

export async function revokeInvite(conn: Conn, workspaceId: string, id: string, now: Date): Promise<boolean> {
  const done = await conn
    .update(invites)
    .set({ revokedAt: now })
    .where(and(eq(invites.id, id), eq(invites.workspaceId, workspaceId), pending(now)))
    .returning({ id: invites.id });
  return done.length > 0;
}

/**
 * Marks the pending invite with this token hash accepted, in one conditional statement: of
 * concurrent claims the row lock lets exactly one through, and the others see it accepted.
 */
export async function claimInvite(conn: Conn, tokenHash: Buffer, now: Date): Promise<InviteRow | undefined> {
  const [row] = await conn
    .update(invites)
    .set({ acceptedAt: now })
    .where(and(eq(invites.tokenHash, tokenHash), pending(now)))
    .returning();
  return row;
}

/** A pending invite by its token's hash, with its workspace's and inviter's names, for the accept page. */
export async function findPendingWithNames(conn: Conn, tokenHash: Buffer, now: Date) {
  const [row] = await conn
    .select({ email: invites.email, role: invites.role, expiresAt: invites.expiresAt, workspaceName: workspaces.name, inviterName: users.name })
    .from(invites)
    .innerJoin(workspaces, eq(workspaces.id, invites.workspaceId))
    .leftJoin(users, eq(users.id, invites.invitedBy))
    .where(and(eq(invites.tokenHash, tokenHash), pending(now)));
  return row;
}

/** Whether a user with this email (ignoring case) is a member of the workspace. */
export async function isMemberByEmail(conn: Conn, workspaceId: string, email: string): Promise<boolean> {
  const found = await conn
    .select({ userId: memberships.userId })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.workspaceId, workspaceId), sameEmail(users.email, email)))
    .limit(1);
  return found.length > 0;
}

export async function findUser(conn: Conn, id: string): Promise<UserRow | undefined> {
  const [row] = await conn.select().from(users).where(eq(users.id, id));
  return row;
}

export async function findUserByEmail(conn: Conn, email: string): Promise<UserRow | undefined> {
  const [row] = await conn.select().from(users).where(sameEmail(users.email, email));
  return row;
}

/** The membership an accepted invite grants; undefined when the user is already a member. */
export async function insertMembershipOnce(conn: Conn, row: typeof memberships.$inferInsert): Promise<MembershipRow | undefined> {
  // ON CONFLICT rather than catching 23505: a failed statement would abort the transaction.
  const [created] = await conn.insert(memberships).values(row).onConflictDoNothing().returning();
  return created;
}
