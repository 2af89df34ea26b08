import type { Conn } from '../../db/connect.js';
import { AppError, invalid } from '../../core/errors.js';
import { sameHash, secretFormat, sha256 } from '../../core/secret.js';
import type { LoginThrottle } from '../../http/login-throttle.js';
import { withTransaction } from '../../core/transaction.js';
import { createSession } from '../sessions/service.js';
import { decoyHash, verifyPassword } from '../users/password.js';
import * as users from '../users/service.js';
import * as workspaces from '../workspaces/service.js';
import * as store from './store.js';

const setupCodes = secretFormat('');
const hashCode = sha256;

/**
 * While no user exists, a one-time setup code for the log line at start (operations.md §7);
 * undefined once someone has an account. Each instance that starts adds its own.
 */
export async function issueSetupCode({ db }: { db: Conn }): Promise<string | undefined> {
  if (await users.anyUser({ db })) return undefined;
  const code = setupCodes.generate().value;
  await store.insertSetupCode(db, hashCode(code));
  return code;
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
export async function completeSetup({ db, code, account, workspaceName, now, userAgent }: { db: Conn; code: string; account: NewAccount; workspaceName: string; now: Date; userAgent?: string }) {
  return withTransaction(db, async (tx) => {
    const given = hashCode(code);
    const codes = await store.lockSetupCodes(tx);
    const known = codes.some((h) => sameHash(h, given));
    if (!known || (await users.anyUser({ db: tx }))) throw invalid('code', 'setup_code');
    const user = await users.createUser({ db: tx, input: account });
    // The first workspace belongs to whoever runs the server: every feature, no plan limits in the way.
    const workspace = await workspaces.createWorkspace({ db: tx, input: { name: workspaceName, plan: 'enterprise' } });
    await users.addMember({ db: tx, workspaceId: workspace.id, userId: user.id, role: 'owner' });
    await store.clearSetupCodes(tx);
    const { token } = await createSession({ db: tx, userId: user.id, userAgent, now });
    return { user, workspace, token };
  });
}

/** Open sign-up (ALLOW_SIGNUP=true): an account, a free workspace it owns, and a session. */
export async function signUp({ db, account, workspaceName, now, userAgent }: { db: Conn; account: NewAccount; workspaceName: string; now: Date; userAgent?: string }) {
  return withTransaction(db, async (tx) => {
    const user = await users.createUser({ db: tx, input: account });
    const workspace = await workspaces.createWorkspace({ db: tx, input: { name: workspaceName } });
    await users.addMember({ db: tx, workspaceId: workspace.id, userId: user.id, role: 'owner' });
    const { token } = await createSession({ db: tx, userId: user.id, userAgent, now });
    return { user, workspace, token };
  });
}

/**
 * Email and password to a new session. An unknown email costs the same argon2 verification as
 * a wrong password (against a decoy hash) and gets the same answer; failures are throttled per
 * account and address, never by locking the account.
 */
export async function logIn({ db, throttle, email, password, address, now, userAgent }: { db: Conn; throttle: LoginThrottle; email: string; password: string; address: string; now: Date; userAgent?: string }) {
  const account = email.toLowerCase();
  await throttle.before(account, address, now.getTime());
  const found = await users.findCredentials({ db, email });
  const matches = await verifyPassword(found?.passwordHash ?? (await decoyHash()), password);
  if (!found || !matches) {
    await throttle.failed(account, address, now.getTime());
    throw new AppError('login_failed');
  }
  await throttle.succeeded(account, address);
  const { token } = await createSession({ db, userId: found.user.id, userAgent, now });
  return { user: found.user, token };
}
