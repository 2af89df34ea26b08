import { sql } from 'drizzle-orm';
import { inList, rows, type Conn } from '../../db/connect.js';

export interface PartnerInviteRow {
  id: string;
  workspaceId: string;
  partnerId: string;
  email: string;
  expiresAt: Date;
}

const RETURNED = sql.raw(`id, workspace_id AS "workspaceId", partner_id AS "partnerId", email, expires_at AS "expiresAt"`);

/** The pending invitations of these partners revoked: the newest link is the only one that works. */
export async function revokePendingOf(conn: Conn, workspaceId: string, partnerIds: string[], now: Date): Promise<void> {
  await conn.execute(
    sql`UPDATE partner_invites SET revoked_at = ${now.toISOString()}::timestamptz
        WHERE workspace_id = ${workspaceId}::uuid AND partner_id ${inList(partnerIds, 'uuid')} AND accepted_at IS NULL AND revoked_at IS NULL`,
  );
}

/** The invitations, in one statement, in input order. */
export function insertInvites(
  conn: Conn,
  workspaceId: string,
  invites: { id: string; partnerId: string; email: string; tokenHash: string; invitedBy: string | null; expiresAt: Date; createdAt: Date }[],
): Promise<PartnerInviteRow[]> {
  const data = JSON.stringify(invites.map((i, position) => ({ ...i, position })));
  return rows<PartnerInviteRow>(
    conn,
    sql`INSERT INTO partner_invites (id, workspace_id, partner_id, email, token_hash, invited_by, expires_at, created_at)
        SELECT d.id, ${workspaceId}::uuid, d."partnerId", d.email, decode(d."tokenHash", 'hex'), d."invitedBy", d."expiresAt", d."createdAt"
        FROM jsonb_to_recordset(${data}::jsonb) AS d(id uuid, "partnerId" uuid, email text, "tokenHash" text, "invitedBy" uuid, "expiresAt" timestamptz, "createdAt" timestamptz, position int)
        ORDER BY d.position
        RETURNING ${RETURNED}`,
  );
}

/** Uses a pending, unexpired invitation (one conditional update): undefined when there is none for this hash. */
export async function claimInvite(conn: Conn, tokenHash: string, now: Date): Promise<PartnerInviteRow | undefined> {
  const [row] = await rows<PartnerInviteRow>(
    conn,
    sql`UPDATE partner_invites SET accepted_at = ${now.toISOString()}::timestamptz
        WHERE token_hash = decode(${tokenHash}, 'hex') AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > ${now.toISOString()}::timestamptz
        RETURNING ${RETURNED}`,
  );
  return row;
}

/** What the accept page shows of a pending, unexpired invitation: the partner, the program and the invited address. */
export async function describePending(
  conn: Conn,
  tokenHash: string,
  now: Date,
): Promise<{ email: string; partnerName: string; programName: string; expiresAt: Date } | undefined> {
  const [row] = await rows<{ email: string; partnerName: string; programName: string; expiresAt: Date }>(
    conn,
    sql`SELECT i.email, p.name AS "partnerName", pr.name AS "programName", i.expires_at AS "expiresAt"
        FROM partner_invites i JOIN partners p ON p.id = i.partner_id AND p.deleted_at IS NULL JOIN programs pr ON pr.workspace_id = i.workspace_id
        WHERE i.token_hash = decode(${tokenHash}, 'hex') AND i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > ${now.toISOString()}::timestamptz`,
  );
  return row;
}
