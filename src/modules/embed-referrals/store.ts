import { sql } from 'drizzle-orm';
import { rows, timestamptz, type Conn } from '../../db/connect.js';

/** A live embed token: whose page it opens, and who issued it. */
export interface EmbedTokenRow {
  id: string;
  workspaceId: string;
  partnerId: string;
  issuedByKind: string;
  issuedById: string;
  issuedByUserId: string | null;
  expiresAt: Date;
}

const RETURNED = sql.raw(
  `id, workspace_id AS "workspaceId", partner_id AS "partnerId", issued_by_kind AS "issuedByKind", issued_by_id AS "issuedById",
   issued_by_user_id AS "issuedByUserId", expires_at AS "expiresAt"`,
);

export async function insertToken(
  conn: Conn,
  t: {
    id: string;
    workspaceId: string;
    partnerId: string;
    tokenHash: Buffer;
    issuedBy: { kind: string; id: string; userId?: string };
    expiresAt: Date;
    createdAt: Date;
  },
): Promise<EmbedTokenRow> {
  const [row] = await rows<EmbedTokenRow>(
    conn,
    sql`INSERT INTO embed_tokens (id, workspace_id, partner_id, token_hash, issued_by_kind, issued_by_id, issued_by_user_id, expires_at, created_at)
        VALUES (${t.id}::uuid, ${t.workspaceId}::uuid, ${t.partnerId}::uuid, decode(${t.tokenHash.toString('hex')}, 'hex'), ${t.issuedBy.kind},
                ${t.issuedBy.id}, ${t.issuedBy.userId ?? null}::uuid, ${timestamptz(t.expiresAt)}, ${timestamptz(t.createdAt)})
        RETURNING ${RETURNED}`,
  );
  return row!;
}

/** The unexpired token of this hash (an index probe on the hash: no comparison of secrets in code). */
export async function liveToken(conn: Conn, tokenHash: Buffer, now: Date): Promise<EmbedTokenRow | undefined> {
  const [row] = await rows<EmbedTokenRow>(
    conn,
    sql`SELECT ${RETURNED} FROM embed_tokens
        WHERE token_hash = decode(${tokenHash.toString('hex')}, 'hex') AND expires_at > ${timestamptz(now)}`,
  );
  return row;
}

/**
 * Marks the token as having mailed a payouts invitation now, unless one of the partner's tokens
 * did within `windowMs` (one conditional update): false when it did.
 */
export async function claimPayoutsInvite(
  conn: Conn,
  token: Pick<EmbedTokenRow, 'id' | 'workspaceId' | 'partnerId'>,
  now: Date,
  windowMs: number,
): Promise<boolean> {
  const since = new Date(now.getTime() - windowMs);
  const claimed = await rows<{ id: string }>(
    conn,
    sql`UPDATE embed_tokens SET payouts_invited_at = ${timestamptz(now)}
        WHERE id = ${token.id}::uuid AND workspace_id = ${token.workspaceId}::uuid
          AND NOT EXISTS (
            SELECT 1 FROM embed_tokens o
            WHERE o.workspace_id = ${token.workspaceId}::uuid AND o.partner_id = ${token.partnerId}::uuid
              AND o.payouts_invited_at IS NOT NULL AND o.payouts_invited_at > ${timestamptz(since)})
        RETURNING id`,
  );
  return claimed.length === 1;
}
