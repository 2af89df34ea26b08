import type { BaseCtx } from '../../core/context.js';
import { emailKey } from '../../core/email.js';
import { AppError, invalid } from '../../core/errors.js';
import { recordSignIn, type SignInOutcome } from '../audit/service.js';
import { sameHash, secretFormat, sha256 } from '../../core/secret.js';
import type { LoginThrottle } from '../../http/login-throttle.js';
import { withTransaction } from '../../core/transaction.js';
import { beginSecondStep, hasSecondFactor } from '../mfa/service.js';
import { hasPasskey } from '../passkeys/service.js';
import { createSession } from '../sessions/service.js';
import { passwordSignInRefused } from '../sso/service.js';
import { decoyHash, verifyPassword } from '../users/service.js';
import * as users from '../users/service.js';
import * as workspaces from '../workspaces/service.js';
import * as store from './store.js';

const setupCodes = secretFormat('');
const hashCode = sha256;

/**
 * While no user exists, a one-time setup code for the log line at start (operations.md §7);
 * undefined once someone has an account. Each instance that starts adds its own.
 */
export async function issueSetupCode({ ctx }: { ctx: BaseCtx }): Promise<string | undefined> {
  if (await users.anyUser({ ctx })) return undefined;
  const code = setupCodes.generate().value;
  await store.insertSetupCode(ctx.db, hashCode(code));
  return code;
}

/** True while nobody has an account: the dashboard then says where the setup URL is (operations.md §14). */
export async function setupNeeded({ ctx }: { ctx: BaseCtx }): Promise<boolean> {
  return !(await users.anyUser({ ctx }));
}

export interface NewAccount {
  email: string;
  name: string;
  password: string;
}

/**
 * The first user, a workspace they own and a session, in one transaction. The setup codes are
 * locked first, so of two setups at once the second finds no code and is refused.
 */
export async function completeSetup({
  ctx,
  input: { code, account, workspaceName, userAgent, ip },
}: {
  ctx: BaseCtx;
  input: { code: string; account: NewAccount; workspaceName: string; userAgent?: string; ip?: string };
}) {
  return withTransaction(ctx.db, async (tx) => {
    const txCtx = { db: tx, now: ctx.now };
    const given = hashCode(code);
    const codes = await store.lockSetupCodes(tx);
    const known = codes.some((h) => sameHash(h, given));
    if (!known || (await users.anyUser({ ctx: txCtx }))) throw invalid('code', 'setup_code');
    const user = await users.createUser({ ctx: txCtx, input: account });
    // The first workspace belongs to whoever runs the server: every feature, no plan limits in the way.
    const workspace = await workspaces.createWorkspace({ ctx: txCtx, input: { name: workspaceName, plan: 'enterprise' } });
    await users.addMember({ ctx: txCtx, input: { workspaceId: workspace.id, userId: user.id, role: 'owner' } });
    await store.clearSetupCodes(tx);
    const { token } = await createSession({ ctx: txCtx, input: { userId: user.id, userAgent, ip } });
    return { user, workspace, token };
  });
}

/** Open sign-up (ALLOW_SIGNUP=true): an account, a free workspace it owns, and a session. */
export async function signUp({
  ctx,
  input: { account, workspaceName, userAgent, ip },
}: {
  ctx: BaseCtx;
  input: { account: NewAccount; workspaceName: string; userAgent?: string; ip?: string };
}) {
  return withTransaction(ctx.db, async (tx) => {
    const txCtx = { db: tx, now: ctx.now };
    const user = await users.createUser({ ctx: txCtx, input: account });
    const workspace = await workspaces.createWorkspace({ ctx: txCtx, input: { name: workspaceName } });
    await users.addMember({ ctx: txCtx, input: { workspaceId: workspace.id, userId: user.id, role: 'owner' } });
    const { token } = await createSession({ ctx: txCtx, input: { userId: user.id, userAgent, ip } });
    return { user, workspace, token };
  });
}

/**
 * Email and password to a new session. An unknown email costs the same argon2 verification as
 * a wrong password (against a decoy hash) and gets the same answer; failures are throttled per
 * account and address, never by locking the account.
 */
export async function logIn({
  ctx,
  input: { email, password, address, userAgent },
  deps: { throttle },
}: {
  ctx: BaseCtx;
  input: { email: string; password: string; address: string; userAgent?: string };
  deps: { throttle: LoginThrottle };
}) {
  const { now } = ctx;
  // One throttle per mailbox, however its address is written (core/email.ts).
  const account = emailKey(email);
  await throttle.before(account, address, now.getTime());
  const found = await users.findCredentials({ ctx, input: { email } });
  const matches = await verifyPassword(found?.passwordHash ?? (await decoyHash()), password);
  // operations.md §15: every attempt of a known person goes into their security log and their workspaces' audit logs.
  const signIn = (outcome: SignInOutcome) => recordSignIn({ ctx, input: { userId: found!.user.id, method: 'password', outcome, ip: address, userAgent } });
  if (!found || !matches) {
    await throttle.failed(account, address, now.getTime());
    if (found) await signIn('failed');
    throw new AppError('login_failed');
  }
  await throttle.succeeded(account, address);
  // operations.md §15 "Require SSO": the right password still does not sign such a member in.
  if (await passwordSignInRefused({ ctx, input: { userId: found.user.id, email: found.user.email } })) throw new AppError('sso_required');
  // operations.md §15: with a second factor the password only opens the second step.
  // A passkey is a second factor too, even without an authenticator app.
  const totp = await hasSecondFactor({ ctx, input: { userId: found.user.id } });
  const passkey = await hasPasskey({ ctx, input: { userId: found.user.id } });
  if (totp || passkey) {
    const { token: pending, methods } = await beginSecondStep({ ctx, input: { userId: found.user.id } });
    await signIn('second_factor_required');
    return { user: found.user, pending, methods: [...(totp ? methods : []), ...(passkey ? ['passkey'] : [])] };
  }
  const { token } = await createSession({ ctx, input: { userId: found.user.id, userAgent, ip: address } });
  await signIn('succeeded');
  return { user: found.user, token };
}
