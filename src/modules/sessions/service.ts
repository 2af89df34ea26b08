import type { BaseCtx } from '../../core/context.js';
import { newId } from '../../db/ids.js';
import { AppError, notFound } from '../../core/errors.js';
import { sameHash, secretFormat, sha256 } from '../../core/secret.js';
import type { SecondFactorCheck } from '../../http/auth.js';
import type { CredentialCache } from '../../infra/credential-cache.js';
import type { Conn } from '../../db/connect.js';
import type { Workspace } from '../../core/workspace.js';
import { toUser, type Role, type User } from '../users/service.js';
import { visitorHashToday } from '../clicks/service.js';
import * as store from './store.js';

/** operations.md §7: 24 h idle, 7 days in all, unless configured (SESSION_IDLE, SESSION_MAX). */
export interface SessionLimits {
  idleMs: number;
  maxMs: number;
}

/** What the session credential (credential.ts) is given: the limits, the session and membership caches, the batched last-seen writes. */
export interface SessionCredentialDeps {
  db: Conn;
  baseUrl: string;
  limits: SessionLimits;
  sessions: CredentialCache<SessionFound>;
  memberships: CredentialCache<{ role: Role; workspace: Workspace }>;
  touch: (sessionId: string, at: Date) => void;
  pendingSeen: (sessionId: string) => Date | undefined;
  hasSecondFactor: SecondFactorCheck;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = { idleMs: 24 * 3600_000, maxMs: 7 * 24 * 3600_000 };

/** 256 random bits in base64url; only its SHA-256 is stored. */
const format = secretFormat('');
export const newSessionToken = (): string => format.generate().value;
export const hashSessionToken = sha256;

export interface Session {
  id: string;
  createdAt: Date;
  lastSeenAt: Date;
  userAgent: string | null;
}

const toSession = (row: store.SessionRow): Session => ({ id: row.id, createdAt: row.createdAt, lastSeenAt: row.lastSeenAt, userAgent: row.userAgent });

/**
 * A new session (made at every login): the token for the cookie, shown to nobody else. The
 * address and agent it came from are kept only as today's visitor hash (§14, the clicks' own:
 * clicks' service), for the fraud rule `sameVisitor` (operations.md §18): a partner whose user
 * signed in from the visitor of a click on its day clicked their own link.
 */
export async function createSession({
  ctx,
  input: { userId, userAgent, ip, signedInBy },
}: {
  ctx: BaseCtx;
  input: { userId: string; userAgent: string | undefined; ip?: string; signedInBy?: 'passkey' | 'sso' };
}): Promise<{ session: Session; token: string }> {
  const { db, now } = ctx;
  if (ip) {
    const { day, hash } = await visitorHashToday({ ctx, input: { ip, userAgent: userAgent ?? '' } });
    await store.recordSignInVisitor(db, userId, day, hash);
  }
  const token = newSessionToken();
  const row = await store.insertSession(db, {
    id: newId(),
    userId,
    tokenHash: hashSessionToken(token),
    userAgent: userAgent?.slice(0, 500) ?? null,
    createdAt: now,
    lastSeenAt: now,
    signedInBy: signedInBy ?? null,
  });
  return { session: toSession(row), token };
}

/**
 * Whether the user signed in from visitor `hash` (a click's, clicks' service) on the UTC `day`
 * (kept for today and yesterday): an expression of the statement of the commission a conversion earns.
 */
export { signedInFromVisitorSql } from './store.js';

/**
 * Whether this live session was signed in by a passkey or single sign-on at most `withinMs` ago:
 * such a sign-in stands in for the password before a sensitive change (operations.md §18).
 */
export async function recentStrongSignIn({ ctx, input }: { ctx: BaseCtx; input: { sessionId: string; withinMs: number } }): Promise<boolean> {
  const row = await store.findSession(ctx.db, input.sessionId);
  if (!row || row.revokedAt || !row.signedInBy) return false;
  return ctx.now.getTime() - row.createdAt.getTime() <= input.withinMs;
}

/** Deletes the sign-in visitors of the days before yesterday (the sessions module's maintenance job). */
export function forgetSignInVisitors({ ctx }: { ctx: BaseCtx }): Promise<number> {
  return store.forgetSignInVisitors(ctx.db);
}

export type SessionFound = { session: store.SessionRow; user: store.UserRow };

/**
 * The session and user behind a cookie value, or a 401: unknown, revoked, idle past
 * `idleMs` or older than `maxMs`. `lookup` may put a cache in front of the one indexed query;
 * last use is recorded at most once a minute, through `touch` (batched writes) when given.
 */
export async function resolveSession({
  ctx: { db, now },
  input: { token },
  deps: { limits, lookup = (_key, load) => load(), touch, pendingSeen },
}: {
  ctx: BaseCtx;
  input: { token: string };
  deps: {
    limits: SessionLimits;
    lookup?: (hashHex: string, load: () => Promise<SessionFound | undefined>) => Promise<SessionFound | undefined>;
    touch?: (sessionId: string, at: Date) => void;
    /** A use this instance recorded but has not written yet: newer than the row just loaded. */
    pendingSeen?: (sessionId: string) => Date | undefined;
  };
}): Promise<{ session: Session; user: User }> {
  if (!format.isWellFormed(token)) throw new AppError('credential_invalid');
  const hash = hashSessionToken(token);
  const found = await lookup(hash.toString('hex'), () => store.findSessionByHash(db, hash));
  if (!found || !sameHash(found.session.tokenHash, hash)) throw new AppError('credential_invalid');
  const { session, user } = found;
  if (session.revokedAt) throw new AppError('credential_revoked');
  const pending = pendingSeen?.(session.id);
  if (pending && pending > session.lastSeenAt) session.lastSeenAt = pending;
  const t = now.getTime();
  if (t - session.lastSeenAt.getTime() > limits.idleMs || t - session.createdAt.getTime() > limits.maxMs) throw new AppError('credential_expired');
  if (t - session.lastSeenAt.getTime() > 60_000) {
    // The cached row is this instance's memory of the last use; the database catches up.
    session.lastSeenAt = now;
    if (touch) touch(session.id, now);
    else await store.touchSession(db, session.id, now);
  }
  return { session: toSession(session), user: toUser(user) };
}

export async function listSessions({ ctx, input: { userId } }: { ctx: BaseCtx; input: { userId: string } }): Promise<Session[]> {
  return (await store.sessionsOf(ctx.db, userId)).map(toSession);
}

export async function revokeSession({ ctx, input: { userId, id } }: { ctx: BaseCtx; input: { userId: string; id: string } }): Promise<void> {
  if (!(await store.revokeSession(ctx.db, userId, id, ctx.now))) throw notFound('session', id);
}

/** Ends every session of the user except `except` (a password change). */
export function revokeOtherSessions({ ctx, input: { userId, except } }: { ctx: BaseCtx; input: { userId: string; except?: string } }): Promise<number> {
  return store.revokeOtherSessions(ctx.db, userId, except, ctx.now);
}

/** Writes a batch of last uses (collected by infra/last-used.ts) in one statement. */
export function recordSessionsSeen({ ctx, input }: { ctx: Pick<BaseCtx, 'db'>; input: { id: string; at: Date }[] }): Promise<void> {
  return store.touchSessions(ctx.db, input);
}
