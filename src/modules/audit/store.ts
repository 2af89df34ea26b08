import { sql, type SQL } from 'drizzle-orm';
import { rows, timestamptz, type Conn } from '../../db/connect.js';
import { newId } from '../../db/ids.js';
import type { AuditActor, AuditChange } from '../../core/audit.js';
import type { SignInMethod, SignInOutcome } from './actions.js';

export interface EntryRow {
  id: string;
  at: Date;
  actorKind: AuditActor['kind'];
  actorId: string;
  actorUserId: string | null;
  actorName: string | null;
  action: string;
  targetIds: string[];
  counts: Record<string, number>;
  changes: Record<string, AuditChange>;
  ip: string | null;
  userAgent: string | null;
}

export interface EntryFilter {
  workspaceId: string;
  actor?: string;
  action?: string;
  start?: Date;
  end?: Date;
  endExclusive?: boolean;
}

function where(f: EntryFilter): SQL {
  const parts: SQL[] = [sql`e.workspace_id = ${f.workspaceId}::uuid`];
  // An actor is named by its own id (a key, token, app or person) or by the person behind it.
  if (f.actor) parts.push(sql`(e.actor_id = ${f.actor} OR e.actor_user_id::text = ${f.actor})`);
  if (f.action) parts.push(sql`e.action = ${f.action}`);
  if (f.start) parts.push(sql`e.at >= ${timestamptz(f.start)}`);
  if (f.end) parts.push(f.endExclusive ? sql`e.at < ${timestamptz(f.end)}` : sql`e.at <= ${timestamptz(f.end)}`);
  return sql.join(parts, sql` AND `);
}

/**
 * A page of a workspace's entries, newest first by default. The actor's name (a person's e-mail,
 * a key's or an app's name) is read from the people, keys and apps tables beside the entry, so
 * a list shows who without a call per row; a deleted one leaves it null.
 */
export async function listEntries(conn: Conn, f: EntryFilter, page: { take: number; skip: number; sort: 'asc' | 'desc' }): Promise<EntryRow[]> {
  const dir = sql.raw(page.sort === 'asc' ? 'ASC' : 'DESC');
  return rows<EntryRow>(
    conn,
    sql`SELECT e.id, e.at, e.actor_kind AS "actorKind", e.actor_id AS "actorId", e.actor_user_id AS "actorUserId",
               COALESCE(u.email, k.name, a.name) AS "actorName", e.action, e.target_ids AS "targetIds", e.counts, e.changes, e.ip, e.user_agent AS "userAgent"
        FROM audit_entries e
        LEFT JOIN users u ON u.id = e.actor_user_id
        LEFT JOIN api_keys k ON e.actor_kind = 'key' AND k.id::text = e.actor_id AND k.workspace_id = e.workspace_id
        LEFT JOIN oauth_apps a ON e.actor_kind = 'app' AND a.id::text = e.actor_id
        WHERE ${where(f)}
        ORDER BY e.at ${dir}, e.seq ${dir}
        LIMIT ${page.take} OFFSET ${page.skip}`,
  );
}

/** Who appears in a workspace's log, as its actor filter names them: a person by their user id (whatever they acted through), others by their own id; the most recent first. */
export function listActors(conn: Conn, workspaceId: string, limit: number): Promise<{ id: string; kind: string; name: string | null }[]> {
  return rows(
    conn,
    sql`SELECT COALESCE(e.actor_user_id::text, e.actor_id) AS id,
               CASE WHEN e.actor_user_id IS NOT NULL THEN 'person' ELSE e.actor_kind END AS kind,
               max(COALESCE(u.email, k.name, a.name)) AS name
        FROM audit_entries e
        LEFT JOIN users u ON u.id = e.actor_user_id
        LEFT JOIN api_keys k ON e.actor_kind = 'key' AND k.id::text = e.actor_id AND k.workspace_id = e.workspace_id
        LEFT JOIN oauth_apps a ON e.actor_kind = 'app' AND a.id::text = e.actor_id
        WHERE e.workspace_id = ${workspaceId}::uuid
        GROUP BY 1, 2
        ORDER BY max(e.at) DESC
        LIMIT ${limit}`,
  );
}

/**
 * A sign-in in the person's own log and, as an entry, in each workspace they belong to (the
 * memberships table is read here, in the same statement, so no workspace is missed).
 */
export async function insertSignIn(
  conn: Conn,
  s: { userId: string; at: Date; method: string; outcome: string; action: string; ip?: string; userAgent?: string },
): Promise<void> {
  await conn.execute(sql`INSERT INTO sign_ins (id, user_id, at, method, outcome, ip, user_agent)
    VALUES (${newId()}::uuid, ${s.userId}::uuid, ${timestamptz(s.at)}, ${s.method}, ${s.outcome}, ${s.ip ?? null}, ${s.userAgent ?? null})`);
  await conn.execute(sql`INSERT INTO audit_entries (id, workspace_id, at, actor_kind, actor_id, actor_user_id, action, ip, user_agent)
    SELECT gen_random_uuid(), m.workspace_id, ${timestamptz(s.at)}, 'user', ${s.userId}, ${s.userId}::uuid, ${s.action}, ${s.ip ?? null}, ${s.userAgent ?? null}
    FROM memberships m WHERE m.user_id = ${s.userId}::uuid`);
}

export interface SignInRow {
  id: string;
  at: Date;
  method: SignInMethod;
  outcome: SignInOutcome;
  ip: string | null;
  userAgent: string | null;
}

export async function listSignIns(conn: Conn, userId: string, page: { take: number; skip: number }): Promise<SignInRow[]> {
  return rows<SignInRow>(
    conn,
    sql`SELECT id, at, method, outcome, ip, user_agent AS "userAgent" FROM sign_ins WHERE user_id = ${userId}::uuid
        ORDER BY at DESC, seq DESC LIMIT ${page.take} OFFSET ${page.skip}`,
  );
}

/**
 * Entries and sign-ins older than `days` by the database's clock (an instance whose clock runs
 * ahead would delete the others' recent ones); how many of each went.
 */
export async function deleteOlderThan(conn: Conn, days: number): Promise<{ entries: number; signIns: number }> {
  const before = sql`now() - make_interval(days => ${days}::int)`;
  const e = await rows<{ n: number }>(conn, sql`WITH d AS (DELETE FROM audit_entries WHERE at < ${before} RETURNING 1) SELECT count(*)::int AS n FROM d`);
  const s = await rows<{ n: number }>(conn, sql`WITH d AS (DELETE FROM sign_ins WHERE at < ${before} RETURNING 1) SELECT count(*)::int AS n FROM d`);
  return { entries: e[0]?.n ?? 0, signIns: s[0]?.n ?? 0 };
}
