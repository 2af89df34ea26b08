import { sql } from 'drizzle-orm';
import { rows, timestamptz, type Conn } from '../../db/connect.js';

export interface ConnectionRow {
  id: string;
  workspaceId: string;
  issuer: string;
  clientId: string;
  clientSecretSealed: string;
  role: string;
  requireSso: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface DomainRow {
  id: string;
  connectionId: string;
  domain: string;
  txtValue: string;
  verifiedAt: Date | null;
  verifiedBy: string | null;
}

const CONNECTION = sql`id, workspace_id AS "workspaceId", issuer, client_id AS "clientId", client_secret_sealed AS "clientSecretSealed",
  role, require_sso AS "requireSso", created_at AS "createdAt", updated_at AS "updatedAt"`;
const DOMAIN = sql`id, connection_id AS "connectionId", domain, txt_value AS "txtValue", verified_at AS "verifiedAt", verified_by AS "verifiedBy"`;

export async function findConnection(conn: Conn, workspaceId: string): Promise<ConnectionRow | undefined> {
  const [row] = await rows<ConnectionRow>(conn, sql`SELECT ${CONNECTION} FROM sso_connections WHERE workspace_id = ${workspaceId}::uuid`);
  return row;
}

export async function findConnectionById(conn: Conn, id: string): Promise<ConnectionRow | undefined> {
  const [row] = await rows<ConnectionRow>(conn, sql`SELECT ${CONNECTION} FROM sso_connections WHERE id = ${id}::uuid`);
  return row;
}

/** The workspace's connection, made or replaced (one per workspace). */
export async function upsertConnection(conn: Conn, r: Omit<ConnectionRow, 'createdAt' | 'updatedAt'>, now: Date): Promise<ConnectionRow> {
  const [row] = await rows<ConnectionRow>(
    conn,
    sql`INSERT INTO sso_connections (id, workspace_id, issuer, client_id, client_secret_sealed, role, require_sso, created_at, updated_at)
        VALUES (${r.id}::uuid, ${r.workspaceId}::uuid, ${r.issuer}, ${r.clientId}, ${r.clientSecretSealed}, ${r.role}, ${r.requireSso}, ${timestamptz(now)}, ${timestamptz(now)})
        ON CONFLICT (workspace_id) DO UPDATE SET issuer = EXCLUDED.issuer, client_id = EXCLUDED.client_id,
          client_secret_sealed = EXCLUDED.client_secret_sealed, role = EXCLUDED.role, require_sso = EXCLUDED.require_sso, updated_at = EXCLUDED.updated_at
        RETURNING ${CONNECTION}`,
  );
  return row!;
}

/** The deleted connection's id, or undefined when the workspace had none. */
export async function deleteConnection(conn: Conn, workspaceId: string): Promise<string | undefined> {
  return (await rows<{ id: string }>(conn, sql`DELETE FROM sso_connections WHERE workspace_id = ${workspaceId}::uuid RETURNING id`))[0]?.id;
}

export function domainsOf(conn: Conn, connectionId: string): Promise<DomainRow[]> {
  return rows<DomainRow>(conn, sql`SELECT ${DOMAIN} FROM sso_domains WHERE connection_id = ${connectionId}::uuid ORDER BY domain`);
}

/** Keeps exactly `domains` (with their verification when already there), adding the new ones. */
export async function setDomains(conn: Conn, connectionId: string, domains: { id: string; domain: string; txtValue: string }[]): Promise<void> {
  await conn.execute(
    keepOnly(
      connectionId,
      domains.map((d) => d.domain),
    ),
  );
  for (const d of domains) {
    await conn.execute(
      sql`INSERT INTO sso_domains (id, connection_id, domain, txt_value) VALUES (${d.id}::uuid, ${connectionId}::uuid, ${d.domain}, ${d.txtValue})
          ON CONFLICT (connection_id, domain) DO NOTHING`,
    );
  }
}

function keepOnly(connectionId: string, names: string[]) {
  if (names.length === 0) return sql`DELETE FROM sso_domains WHERE connection_id = ${connectionId}::uuid`;
  return sql`DELETE FROM sso_domains WHERE connection_id = ${connectionId}::uuid AND domain NOT IN (${sql.join(
    names.map((n) => sql`${n}`),
    sql`, `,
  )})`;
}

export async function findDomain(conn: Conn, connectionId: string, domain: string): Promise<DomainRow | undefined> {
  const [row] = await rows<DomainRow>(conn, sql`SELECT ${DOMAIN} FROM sso_domains WHERE connection_id = ${connectionId}::uuid AND domain = ${domain}`);
  return row;
}

/** Marks a domain verified; the partial unique index refuses one another connection verified first. */
export async function markVerified(conn: Conn, id: string, by: 'dns' | 'operator', now: Date): Promise<DomainRow | undefined> {
  const [row] = await rows<DomainRow>(
    conn,
    sql`UPDATE sso_domains SET verified_at = COALESCE(verified_at, ${timestamptz(now)}), verified_by = COALESCE(verified_by, ${by}) WHERE id = ${id}::uuid RETURNING ${DOMAIN}`,
  );
  return row;
}

/** The connection holding a verified domain (for `?email=`). */
export async function connectionOfVerifiedDomain(conn: Conn, domain: string): Promise<ConnectionRow | undefined> {
  const [row] = await rows<ConnectionRow>(
    conn,
    sql`SELECT ${sql.raw('c.id, c.workspace_id AS "workspaceId", c.issuer, c.client_id AS "clientId", c.client_secret_sealed AS "clientSecretSealed", c.role, c.require_sso AS "requireSso", c.created_at AS "createdAt", c.updated_at AS "updatedAt"')}
        FROM sso_domains d JOIN sso_connections c ON c.id = d.connection_id WHERE d.domain = ${domain} AND d.verified_at IS NOT NULL`,
  );
  return row;
}

/** Whether a user belongs to a workspace whose connection requires SSO for a verified domain. */
export async function ssoRequiredFor(conn: Conn, userId: string, domain: string): Promise<boolean> {
  const found = await rows(
    conn,
    sql`SELECT 1 FROM sso_domains d JOIN sso_connections c ON c.id = d.connection_id
        JOIN memberships m ON m.workspace_id = c.workspace_id AND m.user_id = ${userId}::uuid
        WHERE d.domain = ${domain} AND d.verified_at IS NOT NULL AND c.require_sso LIMIT 1`,
  );
  return found.length > 0;
}

export async function findIdentity(conn: Conn, connectionId: string, issuer: string, subject: string): Promise<{ userId: string } | undefined> {
  const [row] = await rows<{ userId: string }>(
    conn,
    sql`SELECT user_id AS "userId" FROM sso_identities WHERE connection_id = ${connectionId}::uuid AND issuer = ${issuer} AND subject = ${subject}`,
  );
  return row;
}

export async function insertIdentity(
  conn: Conn,
  r: { id: string; connectionId: string; issuer: string; subject: string; userId: string },
  now: Date,
): Promise<void> {
  await conn.execute(
    sql`INSERT INTO sso_identities (id, connection_id, issuer, subject, user_id, created_at)
        VALUES (${r.id}::uuid, ${r.connectionId}::uuid, ${r.issuer}, ${r.subject}, ${r.userId}::uuid, ${timestamptz(now)})`,
  );
}

export async function insertPending(
  conn: Conn,
  r: { stateHash: Buffer; browserHash: Buffer; connectionId: string; linkUserId: string | null; expiresAt: Date },
): Promise<void> {
  await conn.execute(
    sql`INSERT INTO sso_pending (state_hash, browser_hash, connection_id, link_user_id, expires_at)
        VALUES (${r.stateHash}, ${r.browserHash}, ${r.connectionId}::uuid, ${r.linkUserId}::uuid, ${timestamptz(r.expiresAt)})`,
  );
  // Abandoned sign-ins go with the next one: expired an hour ago by the database's clock (an
  // instance whose clock runs ahead would sweep the others' sign-ins under way).
  await conn.execute(sql`DELETE FROM sso_pending WHERE expires_at < now() - interval '1 hour'`);
}

export interface PendingRow {
  browserHash: Buffer;
  connectionId: string;
  linkUserId: string | null;
  expiresAt: Date;
}

/** Takes the pending sign-in of a state (single use: whatever comes next, it is gone). */
export async function takePending(conn: Conn, stateHash: Buffer): Promise<PendingRow | undefined> {
  const [row] = await rows<PendingRow>(
    conn,
    sql`DELETE FROM sso_pending WHERE state_hash = ${stateHash}
        RETURNING browser_hash AS "browserHash", connection_id AS "connectionId", link_user_id AS "linkUserId", expires_at AS "expiresAt"`,
  );
  return row;
}
