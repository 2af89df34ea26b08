import type { BaseCtx } from '../../core/context.js';
import { AppError, invalid } from '../../core/errors.js';
import { recordSignIn, type SignInMethod } from '../audit/service.js';
import type { Sealer } from '../../core/sealed.js';
import { secretFormat, sha256 } from '../../core/secret.js';
import { withTransaction } from '../../core/transaction.js';
import { verifyCurrentPassword, type User } from '../users/service.js';
import { looksLikeRecoveryCode, newRecoveryCode, normalizeRecoveryCode, RECOVERY_CODE_COUNT } from './recovery-codes.js';
import * as store from './store.js';
import { matchingStep, newSeed, otpauthUrl } from './totp.js';

/** operations.md §15: a pending login lives 5 minutes and takes 5 wrong codes; an account 20 an hour. */
export const PENDING_TTL_MS = 5 * 60_000;
export const PENDING_MAX_FAILURES = 5;
export const ACCOUNT_MAX_FAILURES_PER_HOUR = 20;
/** The account's wrong answers are counted over the last hour. */
const FAILURE_WINDOW_MS = 3600_000;

export type Throttle = { before(email: string): Promise<void>; failed(email: string): Promise<void> };
export interface MfaDeps {
  sealer: Sealer;
  throttle?: Throttle;
}

const pendingFormat = secretFormat('');

/** What the account page shows: whether TOTP is on, and how many recovery codes are left. */
export async function mfaStatus({ ctx, input: { userId } }: { ctx: BaseCtx; input: { userId: string } }) {
  const totp = await store.findTotp(ctx.db, userId);
  const on = Boolean(totp?.confirmedAt);
  return { totp: on, recoveryCodesLeft: on ? await store.recoveryCodesLeft(ctx.db, userId) : 0 };
}

/** Whether a login must be completed by a second factor. */
export async function hasSecondFactor({ ctx, input: { userId } }: { ctx: BaseCtx; input: { userId: string } }): Promise<boolean> {
  return Boolean((await store.findTotp(ctx.db, userId))?.confirmedAt);
}

/** Enrolment, step one (the password first): a new seed, shown once, until a code confirms it. */
export async function startTotp({ ctx, input: { userId, password }, deps }: { ctx: BaseCtx; input: { userId: string; password: string }; deps: MfaDeps }) {
  const user = await verifyCurrentPassword({ ctx, input: { userId, password, field: 'password' }, deps });
  const seed = newSeed();
  if (!(await store.startTotp(ctx.db, userId, deps.sealer.seal('totp-seed', seed), ctx.now))) throw invalid('password', 'totp_already_enabled');
  return { secret: seed, otpauthUrl: otpauthUrl(seed, user.email) };
}

/** Enrolment, step two: a code of the new seed turns it on and makes the ten recovery codes. */
export async function confirmTotp({ ctx, input: { userId, code }, deps }: { ctx: BaseCtx; input: { userId: string; code: string }; deps: MfaDeps }) {
  const totp = await store.findTotp(ctx.db, userId);
  if (!totp || totp.confirmedAt) throw invalid('code', totp ? 'totp_already_enabled' : 'totp_not_started');
  const step = matchingStep(deps.sealer.open('totp-seed', totp.seedSealed), code.trim(), ctx.now.getTime());
  if (step === undefined) throw invalid('code', 'mfa_code_wrong');
  return withTransaction(ctx.db, async (tx) => {
    if (!(await store.useStep(tx, userId, step, ctx.now))) throw invalid('code', 'mfa_code_wrong');
    return { recoveryCodes: await replaceCodes(tx, userId) };
  });
}

/** A new set of recovery codes (the old ones stop working); the password first. */
export async function renewRecoveryCodes({
  ctx,
  input: { userId, password },
  deps,
}: {
  ctx: BaseCtx;
  input: { userId: string; password: string };
  deps: MfaDeps;
}) {
  await verifyCurrentPassword({ ctx, input: { userId, password, field: 'password' }, deps });
  if (!(await hasSecondFactor({ ctx, input: { userId } }))) throw invalid('password', 'totp_not_enabled');
  return { recoveryCodes: await withTransaction(ctx.db, (tx) => replaceCodes(tx, userId)) };
}

/** Turns TOTP off: the password and a current code (or a recovery code). */
export async function disableTotp({
  ctx,
  input: { userId, password, code },
  deps,
}: {
  ctx: BaseCtx;
  input: { userId: string; password: string; code: string };
  deps: MfaDeps;
}) {
  await verifyCurrentPassword({ ctx, input: { userId, password, field: 'password' }, deps });
  if (!(await hasSecondFactor({ ctx, input: { userId } }))) throw invalid('code', 'totp_not_enabled');
  await withTransaction(ctx.db, async (tx) => {
    if (!(await useCode({ ...ctx, db: tx }, userId, code, deps.sealer))) throw invalid('code', 'mfa_code_wrong');
    await store.deleteTotp(tx, userId);
  });
}

async function replaceCodes(tx: BaseCtx['db'], userId: string): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await store.replaceRecoveryCodes(
    tx,
    userId,
    codes.map((c) => sha256(normalizeRecoveryCode(c))),
  );
  return codes;
}

/** A TOTP code of a step not used before, or an unused recovery code; each works once. */
async function useCode(ctx: BaseCtx, userId: string, code: string, sealer: Sealer): Promise<boolean> {
  const trimmed = code.trim();
  if (looksLikeRecoveryCode(trimmed)) return store.useRecoveryCode(ctx.db, userId, sha256(normalizeRecoveryCode(trimmed)), ctx.now);
  const totp = await store.findTotp(ctx.db, userId);
  if (!totp?.confirmedAt) return false;
  const step = matchingStep(sealer.open('totp-seed', totp.seedSealed), trimmed, ctx.now.getTime());
  return step !== undefined && store.useStep(ctx.db, userId, step);
}

/** After the password: the pending login the `lt_mfa` cookie names (its token; only the hash kept). */
export async function beginSecondStep({ ctx, input: { userId } }: { ctx: BaseCtx; input: { userId: string } }) {
  const token = pendingFormat.generate().value;
  await store.insertPending(ctx.db, sha256(token), userId, new Date(ctx.now.getTime() + PENDING_TTL_MS));
  return { token, methods: ['totp', 'recovery_code'] as const };
}

/**
 * The second step: a code for the pending login. A wrong one counts against the login (at the
 * fifth the password step starts again) and the account (20 an hour, then 429 for the hour).
 * Returns the user id to sign in.
 */
export async function completeSecondStep({
  ctx,
  input: { pendingToken, code, ip, userAgent },
  deps,
}: {
  ctx: BaseCtx;
  input: { pendingToken: string | undefined; code: string; ip?: string; userAgent?: string };
  deps: MfaDeps;
}): Promise<string> {
  const method = looksLikeRecoveryCode(code.trim()) ? 'recovery_code' : 'totp';
  return completeSecondStepWith({
    ctx,
    input: { pendingToken, signIn: { method, ip, userAgent } },
    deps: { check: (c, userId) => useCode(c, userId, code, deps.sealer) },
  });
}

/**
 * The second step with any factor: `check` says whether the factor given is right for the
 * pending login's user (a code here, a passkey in the passkeys module); a wrong one counts the
 * same way as a wrong code. With `signIn`, the outcome is recorded (audit module's recordSignIn).
 */
export async function completeSecondStepWith({
  ctx,
  input: { pendingToken, signIn },
  deps: { check },
}: {
  ctx: BaseCtx;
  input: { pendingToken: string | undefined; signIn?: { method: SignInMethod; ip?: string; userAgent?: string } };
  deps: { check: (ctx: BaseCtx, userId: string) => Promise<boolean> };
}): Promise<string> {
  if (!pendingToken || !pendingFormat.isWellFormed(pendingToken)) throw new AppError('mfa_restart');
  const hash = sha256(pendingToken);
  const outcome = await withTransaction(ctx.db, async (tx) => {
    const pending = await store.findPending(tx, hash, ctx.now);
    if (!pending) return { kind: 'restart' } as const;
    if ((await store.failuresSince(tx, pending.userId, new Date(ctx.now.getTime() - FAILURE_WINDOW_MS))) >= ACCOUNT_MAX_FAILURES_PER_HOUR)
      return { kind: 'throttled', userId: pending.userId } as const;
    if (await check({ ...ctx, db: tx }, pending.userId)) {
      await store.deletePending(tx, hash);
      return { kind: 'ok', userId: pending.userId } as const;
    }
    const failures = await store.recordFailure(tx, hash, pending.userId, ctx.now);
    if (failures >= PENDING_MAX_FAILURES) await store.deletePending(tx, hash);
    return { kind: 'wrong', left: Math.max(0, PENDING_MAX_FAILURES - failures), userId: pending.userId } as const;
  });
  // operations.md §15: the second step's outcome goes into the person's security log and their workspaces' audit logs.
  if (outcome.kind !== 'restart' && signIn) {
    await recordSignIn({ ctx, input: { userId: outcome.userId, outcome: outcome.kind === 'ok' ? 'succeeded' : 'failed', ...signIn } });
  }
  if (outcome.kind === 'ok') return outcome.userId;
  if (outcome.kind === 'throttled') throw new AppError('mfa_throttled');
  if (outcome.kind === 'restart' || outcome.left === 0) throw new AppError('mfa_restart');
  throw new AppError('mfa_failed', { attemptsLeft: outcome.left });
}

/** The user a live pending login (the `lt_mfa` cookie) waits for; mfa_restart when there is none. */
export async function pendingUser({ ctx, input: { pendingToken } }: { ctx: BaseCtx; input: { pendingToken: string | undefined } }): Promise<string> {
  const pending = pendingToken && pendingFormat.isWellFormed(pendingToken) ? await store.findPending(ctx.db, sha256(pendingToken), ctx.now) : undefined;
  if (!pending) throw new AppError('mfa_restart');
  return pending.userId;
}

/**
 * The periodic maintenance: forgets the wrong answers no count reads any more — past a day, the
 * window's 24 times, so that an instance whose clock is behind the database's still counts its hour.
 */
export async function forgetOldFailures({ ctx }: { ctx: BaseCtx }): Promise<void> {
  await store.deleteOldFailures(ctx.db, 24 * FAILURE_WINDOW_MS);
}

/** A factor used alone (a passkey without the password) shares the account's 20 wrong answers an hour. */
export async function assertFactorNotThrottled({ ctx, input: { userId } }: { ctx: BaseCtx; input: { userId: string } }): Promise<void> {
  if ((await store.failuresSince(ctx.db, userId, new Date(ctx.now.getTime() - FAILURE_WINDOW_MS))) >= ACCOUNT_MAX_FAILURES_PER_HOUR)
    throw new AppError('mfa_throttled');
}

export async function recordFactorFailure({ ctx, input: { userId } }: { ctx: BaseCtx; input: { userId: string } }): Promise<void> {
  await store.recordAccountFailure(ctx.db, userId, ctx.now);
}

export type { User };
