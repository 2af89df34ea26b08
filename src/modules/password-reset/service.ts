import type { BaseCtx } from '../../core/context.js';
import { invalid, notFound } from '../../core/errors.js';
import { secretFormat, sha256 } from '../../core/secret.js';
import { withTransaction } from '../../core/transaction.js';
import type { Conn } from '../../db/connect.js';
import { newId } from '../../db/ids.js';
import { queueMail, type Mailer } from '../mail/service.js';
import { revokeOtherSessions } from '../sessions/service.js';
import { findUserByEmail, setPassword } from '../users/service.js';
import { resetMail } from './mail.js';
import * as store from './store.js';

/** operations.md §15: a reset link is valid one hour, once; at most 3 mails per address an hour. */
export const RESET_TTL_MS = 3600_000;
export const RESETS_PER_HOUR = 3;

/** 256 random bits in base64url; only its SHA-256 is stored. */
const format = secretFormat('');

const resetUrl = (baseUrl: string, token: string) => `${baseUrl.replace(/\/+$/, '')}/app/reset-password?token=${token}`;

/**
 * A new link for the user, made in one transaction with `then` (the mail); with `cap`, none when
 * that many were made in the last hour (counted under a lock on the user, so requests at the
 * same moment cannot all pass the count).
 */
async function newReset(ctx: BaseCtx, userId: string, baseUrl: string, o: { cap?: number; then?: (tx: Conn, url: string) => Promise<void> } = {}) {
  const token = format.generate().value;
  const url = resetUrl(baseUrl, token);
  const expiresAt = new Date(ctx.now.getTime() + RESET_TTL_MS);
  const made = await withTransaction(ctx.db, async (tx) => {
    await store.lockUserResets(tx, userId);
    if (o.cap !== undefined && (await store.countResetsSince(tx, userId, new Date(ctx.now.getTime() - RESET_TTL_MS))) >= o.cap) return false;
    await store.insertReset(tx, { id: newId(), userId, tokenHash: sha256(token), expiresAt, createdAt: ctx.now });
    await o.then?.(tx, url);
    return true;
  });
  return made ? { url, expiresAt } : undefined;
}

/**
 * Mails a reset link to `email` if it is an account's and fewer than 3 were made for it in the
 * last hour; otherwise does nothing. The caller has already answered (the same 202 whatever the
 * address, at the same moment), so nothing here can tell an address apart.
 */
export async function mailResetLink({
  ctx,
  input: { email },
  deps,
}: {
  ctx: BaseCtx;
  input: { email: string };
  deps: { mailer: Mailer; baseUrl: string };
}): Promise<void> {
  const user = await findUserByEmail({ ctx, input: { email } });
  if (!user) return;
  const made = await newReset(ctx, user.id, deps.baseUrl, {
    cap: RESETS_PER_HOUR,
    then: (tx, url) => queueMail(tx, deps.mailer, 'password-reset', resetMail(user.email, url)),
  });
  if (made) deps.mailer.wake();
}

/** The operator's link for a user (`linktrail users reset-link EMAIL`), for servers without mail. */
export async function operatorResetLink({ ctx, input: { email }, deps }: { ctx: BaseCtx; input: { email: string }; deps: { baseUrl: string } }) {
  const user = await findUserByEmail({ ctx, input: { email } });
  if (!user) throw notFound('user', email);
  return { userId: user.id, ...(await newReset(ctx, user.id, deps.baseUrl))! };
}

/**
 * Sets the password with a reset link: the link is used up (with any other open link of the
 * user) and every session of the user ends, in one transaction; nobody is signed in.
 */
export async function confirmReset({ ctx, input: { token, password } }: { ctx: BaseCtx; input: { token: string; password: string } }): Promise<void> {
  if (!format.isWellFormed(token)) throw invalid('token', 'reset_token_invalid');
  await withTransaction(ctx.db, async (tx) => {
    const userId = await store.claimReset(tx, sha256(token), ctx.now);
    if (!userId) throw invalid('token', 'reset_token_invalid');
    await setPassword({ ctx: { db: tx, now: ctx.now }, input: { userId, password } });
    await revokeOtherSessions({ ctx: { db: tx, now: ctx.now }, input: { userId } });
  });
}

/**
 * Periodic maintenance: a link is useless once expired, and the hourly cap counts only the last
 * hour, so links made over a day ago (by the database's clock) are deleted (used or not).
 */
export async function forgetOldResets({ ctx }: { ctx: BaseCtx }): Promise<void> {
  await store.deleteOldResets(ctx.db, 24 * RESET_TTL_MS);
}
