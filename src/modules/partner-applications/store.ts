import { sql } from 'drizzle-orm';
import { inList, rows, type Conn } from '../../db/connect.js';
import { isoTimestamp } from '../../db/resource-table.js';

/** An application as the owners see it: the partner it made and what the applicant wrote. */
export interface ApplicationRow {
  partnerId: string;
  name: string;
  email: string | null;
  status: string;
  website: string | null;
  promotion: string | null;
  termsUrl: string | null;
  createdAt: string;
}

const SELECTION = sql.raw(`a.partner_id AS "partnerId", p.name, p.email, p.status, a.website, a.promotion, a.terms_url AS "termsUrl",
  ${isoTimestamp('a.created_at')} AS "createdAt"`);

/**
 * Applications to one program are taken one at a time, for the rest of the transaction: the
 * e-mail's check and the pending count then hold until the partner is written.
 */
export async function lockApplications(conn: Conn, workspaceId: string): Promise<void> {
  await conn.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`partner-applications:${workspaceId}`}, 0))`);
}

export async function insertApplication(
  conn: Conn,
  a: { partnerId: string; workspaceId: string; website: string | null; promotion: string | null; termsUrl: string | null; createdAt: Date },
): Promise<void> {
  await conn.execute(
    sql`INSERT INTO partner_applications (partner_id, workspace_id, website, promotion, terms_url, created_at)
        VALUES (${a.partnerId}::uuid, ${a.workspaceId}::uuid, ${a.website}, ${a.promotion}, ${a.termsUrl}, ${a.createdAt.toISOString()}::timestamptz)`,
  );
}

/** The applications of live pending partners, newest first. */
export function pendingApplications(conn: Conn, workspaceId: string, page: { take: number; skip: number }): Promise<ApplicationRow[]> {
  return rows<ApplicationRow>(
    conn,
    sql`SELECT ${SELECTION} FROM partner_applications a
        JOIN partners p ON p.id = a.partner_id AND p.workspace_id = a.workspace_id AND p.deleted_at IS NULL AND p.status = 'pending'
        WHERE a.workspace_id = ${workspaceId}::uuid
        ORDER BY a.created_at DESC, a.partner_id
        LIMIT ${page.take} OFFSET ${page.skip}`,
  );
}

/** Which of these partners applied (a decision mails only applicants). */
export async function applicantsAmong(conn: Conn, workspaceId: string, partnerIds: string[]): Promise<Set<string>> {
  if (partnerIds.length === 0) return new Set();
  const found = await rows<{ id: string }>(
    conn,
    sql`SELECT a.partner_id AS id FROM partner_applications a WHERE a.workspace_id = ${workspaceId}::uuid AND a.partner_id ${inList(partnerIds, 'uuid')}`,
  );
  return new Set(found.map((r) => r.id));
}

/**
 * Takes this hour's mail of a kind for one key (one conditional upsert): true when none was
 * taken in the hour before `now`, and `now` is then recorded; false otherwise.
 */
async function claimHourly(conn: Conn, table: 'digests' | 'repeats', workspaceId: string, email: string | null, now: Date): Promise<boolean> {
  const at = now.toISOString();
  const claimed =
    table === 'digests'
      ? await rows<{ ok: number }>(
          conn,
          sql`INSERT INTO partner_application_digests AS d (workspace_id, sent_at) VALUES (${workspaceId}::uuid, ${at}::timestamptz)
              ON CONFLICT (workspace_id) DO UPDATE SET sent_at = EXCLUDED.sent_at WHERE d.sent_at <= EXCLUDED.sent_at - interval '1 hour'
              RETURNING 1 AS ok`,
        )
      : await rows<{ ok: number }>(
          conn,
          sql`INSERT INTO partner_application_repeats AS r (workspace_id, email, mailed_at) VALUES (${workspaceId}::uuid, ${email}, ${at}::timestamptz)
              ON CONFLICT (workspace_id, email) DO UPDATE SET mailed_at = EXCLUDED.mailed_at WHERE r.mailed_at <= EXCLUDED.mailed_at - interval '1 hour'
              RETURNING 1 AS ok`,
        );
  return claimed.length > 0;
}

/** The owners' digest of this hour: true when this caller sends it. */
export const claimDigest = (conn: Conn, workspaceId: string, now: Date) => claimHourly(conn, 'digests', workspaceId, null, now);
/** The "already applied" mail to this address for the hour: true when this caller sends it. */
export const claimRepeatMail = (conn: Conn, workspaceId: string, email: string, now: Date) => claimHourly(conn, 'repeats', workspaceId, email, now);

/** The applications no digest has named yet, marked named now; oldest first. */
export function takeUntold(conn: Conn, workspaceId: string, now: Date): Promise<ApplicationRow[]> {
  return rows<ApplicationRow>(
    conn,
    sql`WITH told AS (
          UPDATE partner_applications SET notified_at = ${now.toISOString()}::timestamptz
          WHERE workspace_id = ${workspaceId}::uuid AND notified_at IS NULL
          RETURNING *)
        SELECT ${SELECTION} FROM told a JOIN partners p ON p.id = a.partner_id
        ORDER BY a.created_at, a.partner_id`,
  );
}

/** Workspaces with applications no digest has named whose last digest is an hour old or more (a job's look across workspaces). */
export async function workspacesDue(conn: Conn, now: Date, limit: number): Promise<string[]> {
  const found = await rows<{ id: string }>(
    conn,
    sql`SELECT DISTINCT a.workspace_id AS id FROM partner_applications a
        LEFT JOIN partner_application_digests d ON d.workspace_id = a.workspace_id
        WHERE a.notified_at IS NULL AND (d.sent_at IS NULL OR d.sent_at <= ${now.toISOString()}::timestamptz - interval '1 hour')
        LIMIT ${limit}`,
  );
  return found.map((r) => r.id);
}

/** Forgets "already applied" marks past their hour (a job). */
export async function forgetOldRepeats(conn: Conn, now: Date): Promise<void> {
  await conn.execute(sql`DELETE FROM partner_application_repeats WHERE mailed_at <= ${now.toISOString()}::timestamptz - interval '1 hour'`);
}
