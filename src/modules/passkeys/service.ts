import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { BaseCtx } from '../../core/context.js';
import { AppError, invalid, notFound } from '../../core/errors.js';
import { sha256 } from '../../core/secret.js';
import { recordSignIn } from '../audit/service.js';
import { assertFactorNotThrottled, completeSecondStepWith, hasSecondFactor, pendingUser, recordFactorFailure, type Throttle } from '../mfa/service.js';
import { verifyCurrentPassword } from '../users/service.js';
import type { AuthenticationResponseBody, RegistrationResponseBody } from './schemas.js';
import * as store from './store.js';
import { CEREMONY_TIMEOUT_MS, CHALLENGE_TTL_MS, signedChallenge, userHandle, userHandleText, type RelyingParty } from './webauthn.js';

export interface PasskeyDeps {
  rp: RelyingParty;
  /** The password check's throttle (the same as the password sign-in's). */
  throttle?: Throttle;
}

export type Passkey = Pick<store.PasskeyRow, 'id' | 'name' | 'transports' | 'createdAt' | 'lastUsedAt'>;
const view = ({ id, name, transports, createdAt, lastUsedAt }: store.PasskeyRow): Passkey => ({ id, name, transports, createdAt, lastUsedAt });

/** Whether the account has a passkey: with one, the password alone no longer signs in (operations.md §15). */
export async function hasPasskey({ ctx, input: { userId } }: { ctx: BaseCtx; input: { userId: string } }): Promise<boolean> {
  return (await store.countPasskeys(ctx.db, userId)) > 0;
}

export async function listPasskeys({ ctx, input: { userId } }: { ctx: BaseCtx; input: { userId: string } }): Promise<Passkey[]> {
  return (await store.listPasskeys(ctx.db, userId)).map(view);
}

async function issueChallenge(ctx: BaseCtx, challenge: string, purpose: store.ChallengePurpose, userId: string | null) {
  await store.insertChallenge(ctx.db, sha256(challenge), purpose, userId, new Date(ctx.now.getTime() + CHALLENGE_TTL_MS));
}

/**
 * Registration, step one (the password first): options for the browser, whose challenge is
 * kept in the database (every instance sees it), 5 minutes, single use. A discoverable
 * credential is asked for, so the passkey can later sign in alone.
 */
export async function registrationOptions({
  ctx,
  input: { userId, password },
  deps,
}: {
  ctx: BaseCtx;
  input: { userId: string; password: string };
  deps: PasskeyDeps;
}) {
  const user = await verifyCurrentPassword({ ctx, input: { userId, password, field: 'password' }, deps });
  const existing = await store.listPasskeys(ctx.db, userId);
  const options = await generateRegistrationOptions({
    rpName: deps.rp.name,
    rpID: deps.rp.id,
    userID: userHandle(userId),
    userName: user.email,
    userDisplayName: user.name,
    timeout: CEREMONY_TIMEOUT_MS,
    attestationType: 'none',
    excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports as AuthenticatorTransport[] })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
  });
  await issueChallenge(ctx, options.challenge, 'register', userId);
  return options;
}

/** Takes the challenge a response answers, once; a 400 when it is unknown, used, expired or for something else. */
async function takeChallenge(ctx: BaseCtx, clientDataJSON: string, accept: (c: { purpose: store.ChallengePurpose; userId: string | null }) => boolean) {
  const challenge = signedChallenge(clientDataJSON);
  if (!challenge) throw invalid('response', 'passkey_response');
  const taken = await store.takeChallenge(ctx.db, sha256(challenge), ctx.now);
  if (!taken || !accept(taken)) throw invalid('response', 'passkey_challenge');
  return { challenge, ...taken };
}

/** Registration, step two: the browser's answer verified (origin, RP id, challenge) and kept. */
export async function registerPasskey({
  ctx,
  input: { userId, response, name },
  deps,
}: {
  ctx: BaseCtx;
  input: { userId: string; response: RegistrationResponseBody; name?: string };
  deps: PasskeyDeps;
}): Promise<Passkey> {
  const { challenge } = await takeChallenge(ctx, response.response.clientDataJSON, (c) => c.purpose === 'register' && c.userId === userId);
  let verified;
  try {
    verified = await verifyRegistrationResponse({
      response: response as RegistrationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: deps.rp.origin,
      expectedRPID: deps.rp.id,
      requireUserVerification: false,
    });
  } catch {
    throw invalid('response', 'passkey_not_verified');
  }
  if (!verified.verified) throw invalid('response', 'passkey_not_verified');
  const { credential } = verified.registrationInfo;
  const row = await store.insertPasskey(ctx.db, {
    userId,
    credentialId: credential.id,
    publicKey: Buffer.from(credential.publicKey),
    counter: credential.counter,
    transports: (credential.transports ?? response.response.transports ?? []).slice(0, 10),
    name: name?.trim() || 'Passkey',
    createdAt: ctx.now,
  });
  if (!row) throw invalid('response', 'passkey_exists');
  return view(row);
}

/** Removes one of the account's passkeys (the password first); another's is a 404, like an unknown one. */
export async function deletePasskey({
  ctx,
  input: { userId, id, password },
  deps,
}: {
  ctx: BaseCtx;
  input: { userId: string; id: string; password: string };
  deps: PasskeyDeps;
}) {
  await verifyCurrentPassword({ ctx, input: { userId, password, field: 'password' }, deps });
  if (!(await store.deletePasskey(ctx.db, userId, id))) throw notFound('passkey', id);
}

/**
 * Sign-in options. The second step of a password sign-in offers the pending login's passkeys
 * (user verification preferred: the password was the first factor); a passkey alone offers
 * none (the browser lists the discoverable ones) and requires user verification.
 */
export async function signInOptions({
  ctx,
  input: { secondFactor, pendingToken },
  deps,
}: {
  ctx: BaseCtx;
  input: { secondFactor: boolean; pendingToken?: string };
  deps: PasskeyDeps;
}) {
  if (!secondFactor) {
    const options = await generateAuthenticationOptions({ rpID: deps.rp.id, allowCredentials: [], userVerification: 'required', timeout: CEREMONY_TIMEOUT_MS });
    await issueChallenge(ctx, options.challenge, 'sign_in', null);
    return options;
  }
  const userId = await pendingUser({ ctx, input: { pendingToken } });
  const passkeys = await store.listPasskeys(ctx.db, userId);
  if (passkeys.length === 0) throw invalid('secondFactor', 'passkey_none');
  const options = await generateAuthenticationOptions({
    rpID: deps.rp.id,
    allowCredentials: passkeys.map((p) => ({ id: p.credentialId, transports: p.transports as AuthenticatorTransport[] })),
    userVerification: 'preferred',
    timeout: CEREMONY_TIMEOUT_MS,
  });
  await issueChallenge(ctx, options.challenge, 'second_factor', userId);
  return options;
}

/**
 * Whether the assertion is a valid signature of `userId`'s passkey over the challenge, with a
 * counter that moved forward (a cloned authenticator replays an old one); records the use.
 */
async function assertionValid(
  ctx: BaseCtx,
  userId: string,
  response: AuthenticationResponseBody,
  challenge: string,
  requireUserVerification: boolean,
  deps: PasskeyDeps,
): Promise<boolean> {
  const passkey = await store.findByCredentialId(ctx.db, response.id);
  if (!passkey || passkey.userId !== userId) return false;
  if (response.response.userHandle !== undefined && response.response.userHandle !== userHandleText(userId)) return false;
  try {
    const { verified, authenticationInfo } = await verifyAuthenticationResponse({
      response: response as AuthenticationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: deps.rp.origin,
      expectedRPID: deps.rp.id,
      credential: {
        id: passkey.credentialId,
        publicKey: new Uint8Array(passkey.publicKey) as Uint8Array<ArrayBuffer>,
        counter: passkey.counter,
        transports: passkey.transports as AuthenticatorTransport[],
      },
      requireUserVerification,
    });
    return verified && (await store.recordUse(ctx.db, passkey.id, passkey.counter, authenticationInfo.newCounter, ctx.now));
  } catch {
    return false;
  }
}

/**
 * Sign-in with a passkey; answers the user id to open a session for. The challenge says which
 * kind: the second step of the pending login the `lt_mfa` cookie names (a wrong passkey counts
 * like a wrong code), or a passkey alone (user verification required; a wrong one counts
 * against its account's 20 an hour).
 */
export async function signInWithPasskey({
  ctx,
  input: { response, pendingToken, ip, userAgent },
  deps,
}: {
  ctx: BaseCtx;
  input: { response: AuthenticationResponseBody; pendingToken?: string; ip?: string; userAgent?: string };
  deps: PasskeyDeps;
}): Promise<{ userId: string }> {
  // operations.md §15: each attempt of a known person goes into their security log and workspaces' audit logs.
  const signIn = { method: 'passkey' as const, ip, userAgent };
  const taken = await takeChallenge(ctx, response.response.clientDataJSON, (c) => c.purpose !== 'register');
  if (taken.purpose === 'second_factor') {
    const userId = await completeSecondStepWith({
      ctx,
      input: { pendingToken, signIn },
      deps: {
        check: (c, pendingUserId) =>
          Promise.resolve(pendingUserId === taken.userId && assertionValid(c, pendingUserId, response, taken.challenge, false, deps)),
      },
    });
    return { userId };
  }
  const passkey = await store.findByCredentialId(ctx.db, response.id);
  if (!passkey) throw new AppError('passkey_failed');
  await assertFactorNotThrottled({ ctx, input: { userId: passkey.userId } });
  if (!(await assertionValid(ctx, passkey.userId, response, taken.challenge, true, deps))) {
    await recordFactorFailure({ ctx, input: { userId: passkey.userId } });
    await recordSignIn({ ctx, input: { userId: passkey.userId, outcome: 'failed', ...signIn } });
    throw new AppError('passkey_failed');
  }
  await recordSignIn({ ctx, input: { userId: passkey.userId, outcome: 'succeeded', ...signIn } });
  return { userId: passkey.userId };
}

/** Whether the person has a second factor of either kind, an authenticator app or a passkey: what a workspace's requireMfa asks (operations.md §15). */
export async function hasAnySecondFactor({ ctx, input }: { ctx: BaseCtx; input: { userId: string } }): Promise<boolean> {
  const [totp, passkey] = await Promise.all([hasSecondFactor({ ctx, input }), hasPasskey({ ctx, input })]);
  return totp || passkey;
}
