import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { baseContext } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import type { Conn } from '../../db/connect.js';
import type { LoginThrottle } from '../../http/login-throttle.js';
import { errorAnswer as err } from '../../http/schemas.js';
import { routesPlugin } from '../../http/types.js';
import { mfaCookie, pendingTokenOf } from '../../http/mfa-cookie.js';
import { isFirstParty, sessionCookie } from '../../http/cookies.js';
import { createSession } from '../sessions/service.js';
import { findUser } from '../users/service.js';
import { Options, PasskeyParam, PasskeyView, PasswordBody, RegisterBody, SignInBody, SignInOptionsBody } from './schemas.js';
import { deletePasskey, listPasskeys, registerPasskey, registrationOptions, signInOptions, signInWithPasskey, type PasskeyDeps } from './service.js';
import { relyingParty } from './webauthn.js';

export interface PasskeyRoutesDeps {
  db: Conn;
  baseUrl: string;
  sessionMaxMs: number;
  throttle: LoginThrottle;
  clock: () => Date;
  /** Tells every instance that a person's second factors changed (a workspace's requireMfa asks). */
  authChanged: () => Promise<void>;
}

const tags = ['Account'];
const session = { account: 'session' } as const;

/** Passkeys (WebAuthn, operations.md §15): registration on the account, sign-in as the second factor or alone. */
export const passkeyRoutes = routesPlugin<PasskeyRoutesDeps>('passkeys', (app, deps) => {
  const ctx = baseContext(deps);
  const rp = relyingParty(deps.baseUrl);
  const passkeyDeps = (ip: string): PasskeyDeps => ({
    rp,
    throttle: deps.throttle.forAddress(ip, deps.clock),
  });
  // A page of another site must not sign a visitor into an account (login CSRF).
  const firstParty = async (req: FastifyRequest) => {
    if (!isFirstParty(req, rp.origin)) throw new AppError('cross_site_sign_in');
  };

  app.get(
    '/api/me/passkeys',
    {
      config: session,
      schema: { operationId: 'listPasskeys', tags, summary: 'My passkeys', description: 'Oldest first.', response: { 200: Type.Array(PasskeyView) } },
    },
    async (req) => listPasskeys({ ctx: ctx(req), input: { userId: req.person!.userId } }),
  );

  app.post(
    '/api/me/passkeys/options',
    {
      config: session,
      schema: {
        operationId: 'getPasskeyRegistrationOptions',
        tags,
        summary: 'Start adding a passkey',
        description: `The password first. Answers WebAuthn registration options for @simplewebauthn/browser's startRegistration: relying party ${'`'}BASE_URL${'`'}'s host, a discoverable credential (so it can sign in alone), no attestation, the account's passkeys excluded. The challenge is kept on the server (every instance), 5 minutes, single use.`,
        body: PasswordBody,
        response: { 200: Options, 400: err('Wrong password') },
      },
    },
    async (req) => registrationOptions({ ctx: ctx(req), input: { userId: req.person!.userId, password: req.body.password }, deps: passkeyDeps(req.ip) }),
  );

  app.post(
    '/api/me/passkeys',
    {
      config: session,
      schema: {
        operationId: 'addPasskey',
        tags,
        summary: 'Add a passkey',
        description:
          'The answer of startRegistration to the options of POST /api/me/passkeys/options, verified (this origin, this relying party, that challenge, once). From then on a password sign-in asks for a second factor, and the passkey can sign in alone.',
        body: RegisterBody,
        response: { 201: PasskeyView, 400: err('Not an answer to a current challenge, not verified, or already registered') },
      },
    },
    async (req, reply) => {
      const added = await registerPasskey({ ctx: ctx(req), input: { userId: req.person!.userId, ...req.body }, deps: passkeyDeps(req.ip) });
      await deps.authChanged();
      return reply.status(201).send(added);
    },
  );

  app.delete(
    '/api/me/passkeys/:id',
    {
      config: session,
      schema: {
        operationId: 'removePasskey',
        tags,
        summary: 'Remove a passkey',
        description:
          'The password first (a session left open must not be enough to weaken sign-in). Another account’s passkey is a 404, like an unknown one. Without passkeys and without an authenticator app, the password alone signs in again.',
        params: PasskeyParam,
        body: PasswordBody,
        response: { 204: Type.Null(), 400: err('Wrong password'), 404: err('No such passkey of this account') },
      },
    },
    async (req, reply) => {
      await deletePasskey({ ctx: ctx(req), input: { userId: req.person!.userId, id: req.params.id, password: req.body.password }, deps: passkeyDeps(req.ip) });
      await deps.authChanged();
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/api/auth/passkey/options',
    {
      config: { public: true },
      onRequest: firstParty,
      schema: {
        operationId: 'getPasskeySignInOptions',
        tags,
        summary: 'Sign in with a passkey: options',
        description:
          'WebAuthn request options for startAuthentication. `secondFactor: true` after POST /api/auth/login answered `mfaRequired` with `passkey` among the methods (needs the `lt_mfa` cookie; offers that account’s passkeys). Otherwise a passkey alone: no credentials listed (the browser offers its discoverable ones), user verification required. The challenge is kept on the server, 5 minutes, single use.',
        body: SignInOptionsBody,
        security: [],
        response: { 200: Options, 401: err('No pending sign-in (secondFactor): sign in with the password again'), 403: err('Sent by a page of another site') },
      },
    },
    async (req) =>
      signInOptions({ ctx: ctx(req), input: { secondFactor: req.body.secondFactor === true, pendingToken: pendingTokenOf(req, deps.baseUrl) }, deps: { rp } }),
  );

  app.post(
    '/api/auth/passkey',
    {
      config: { public: true },
      onRequest: firstParty,
      schema: {
        operationId: 'signInWithPasskey',
        tags,
        summary: 'Sign in with a passkey',
        description:
          'The answer of startAuthentication to options of POST /api/auth/passkey/options (each challenge once). As the second factor (with the `lt_mfa` cookie) it completes the sign-in as POST /api/auth/mfa does, and a refused passkey counts as a wrong code (401 `mfa_failed`/`mfa_restart`, 429 `mfa_throttled`). Alone it must carry user verification; a refused one is 401 `passkey_failed` and counts against its account’s 20 wrong second factors an hour (429 `mfa_throttled`). Answers as a sign-in does: the session cookie and `{ user }`. The signature counter must move forward.',
        body: SignInBody,
        security: [],
        response: {
          200: Type.Object({ user: Type.Ref('User') }),
          400: err('Not an answer to a current challenge'),
          401: err('Passkey refused, or the sign-in must start again'),
          403: err('Sent by a page of another site'),
          429: err('Too many refused second factors for this account'),
        },
      },
    },
    async (req, reply) => {
      const c = ctx(req);
      const { userId } = await signInWithPasskey({
        ctx: c,
        input: { response: req.body.response, pendingToken: pendingTokenOf(req, deps.baseUrl), ip: req.ip, userAgent: req.headers['user-agent'] },
        deps: { rp },
      });
      const { token } = await createSession({ ctx: c, input: { userId, userAgent: req.headers['user-agent'], ip: req.ip, signedInBy: 'passkey' } });
      const user = await findUser({ ctx: c, input: { id: userId } });
      return reply.header('set-cookie', [sessionCookie(deps.baseUrl, token, deps.sessionMaxMs), mfaCookie(deps.baseUrl, '', 0)]).send({ user });
    },
  );
});
