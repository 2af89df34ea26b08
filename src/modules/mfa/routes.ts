import { Type } from '@sinclair/typebox';
import { baseContext } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import type { Sealer } from '../../core/sealed.js';
import type { Conn } from '../../db/connect.js';
import type { LoginThrottle } from '../../http/login-throttle.js';
import { errorAnswer as err } from '../../http/schemas.js';
import { routesPlugin } from '../../http/types.js';
import { isFirstParty, sessionCookie } from '../../http/cookies.js';
import { createSession } from '../sessions/service.js';
import { findUser } from '../users/service.js';
import { mfaCookie, pendingTokenOf } from '../../http/mfa-cookie.js';
import { CodeBody, DisableBody, MfaStatus, PasswordBody, RecoveryCodes, TotpStarted } from './schemas.js';
import { completeSecondStep, confirmTotp, disableTotp, mfaStatus, renewRecoveryCodes, startTotp } from './service.js';

export interface MfaRoutesDeps {
  db: Conn;
  baseUrl: string;
  sessionMaxMs: number;
  sealer: Sealer;
  throttle: LoginThrottle;
  clock: () => Date;
  /** Turning a second factor on or off changes what the person may do in workspaces that require one: every instance forgets what it cached. */
  authChanged: () => Promise<void>;
}

const tags = ['Account'];
const session = { account: 'session' } as const;

/** Two-factor sign-in with TOTP and recovery codes (operations.md §15). */
export const mfaRoutes = routesPlugin<MfaRoutesDeps>('mfa', (app, deps) => {
  const ctx = baseContext(deps);
  const origin = new URL(deps.baseUrl).origin;
  const mfaDeps = (ip: string) => ({
    sealer: deps.sealer,
    throttle: deps.throttle.forAddress(ip, deps.clock),
  });

  app.get(
    '/api/me/mfa',
    { config: session, schema: { operationId: 'getTwoFactor', tags, summary: 'My second factors', response: { 200: MfaStatus } } },
    async (req) => mfaStatus({ ctx: ctx(req), input: { userId: req.person!.userId } }),
  );

  app.post(
    '/api/me/mfa/totp',
    {
      config: session,
      schema: {
        operationId: 'startTotpEnrollment',
        tags,
        summary: 'Start two-factor sign-in with an authenticator app',
        description:
          'The password first. Answers a new seed (RFC 6238: SHA-1, 6 digits, 30 s; 20 bytes), sealed with SECRET on the server; nothing changes at sign-in until POST /api/me/mfa/totp/confirm. Asking again before confirming replaces the seed; with two-factor on, a 400.',
        body: PasswordBody,
        response: { 200: TotpStarted, 400: err('Wrong password, or two-factor already on') },
      },
    },
    async (req) => startTotp({ ctx: ctx(req), input: { userId: req.person!.userId, password: req.body.password }, deps: mfaDeps(req.ip) }),
  );

  app.post(
    '/api/me/mfa/totp/confirm',
    {
      config: session,
      schema: {
        operationId: 'confirmTotpEnrollment',
        tags,
        summary: 'Turn two-factor sign-in on with a first code',
        description: 'A current code of the new seed turns it on and answers ten single-use recovery codes (shown once, stored hashed).',
        body: CodeBody,
        response: { 200: RecoveryCodes, 400: err('Not a current code, or nothing to confirm') },
      },
    },
    async (req) => {
      const confirmed = await confirmTotp({ ctx: ctx(req), input: { userId: req.person!.userId, code: req.body.code }, deps: mfaDeps(req.ip) });
      await deps.authChanged();
      return confirmed;
    },
  );

  app.post(
    '/api/me/mfa/recovery-codes',
    {
      config: session,
      schema: {
        operationId: 'regenerateRecoveryCodes',
        tags,
        summary: 'New recovery codes',
        description: 'The password first; the earlier set stops working.',
        body: PasswordBody,
        response: { 200: RecoveryCodes },
      },
    },
    async (req) => renewRecoveryCodes({ ctx: ctx(req), input: { userId: req.person!.userId, password: req.body.password }, deps: mfaDeps(req.ip) }),
  );

  app.delete(
    '/api/me/mfa/totp',
    {
      config: session,
      schema: {
        operationId: 'removeTotp',
        tags,
        summary: 'Turn two-factor sign-in off',
        description: 'The password and a current code (or a recovery code).',
        body: DisableBody,
        response: { 204: Type.Null() },
      },
    },
    async (req, reply) => {
      await disableTotp({ ctx: ctx(req), input: { userId: req.person!.userId, ...req.body }, deps: mfaDeps(req.ip) });
      await deps.authChanged();
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/api/auth/mfa',
    {
      config: { public: true },
      onRequest: async (req) => {
        if (!isFirstParty(req, origin)) throw new AppError('cross_site_sign_in');
      },
      schema: {
        operationId: 'completeSignInWithTotp',
        tags,
        summary: 'Sign in, second step',
        description:
          'After POST /api/auth/login answered `mfaRequired`: a code of the authenticator app (the current or the previous 30-second step, each once) or an unused recovery code, with the `lt_mfa` cookie that answer set. Answers as a sign-in does (the session cookie and `{ user }`). A wrong code is 401 `mfa_failed` with the attempts left; the fifth, or a pending sign-in older than 5 minutes, is 401 `mfa_restart` (sign in with the password again); 20 wrong codes an hour for one account are 429 `mfa_throttled`.',
        body: CodeBody,
        security: [],
        response: {
          200: Type.Object({ user: Type.Ref('User') }),
          401: err('Wrong code, or the sign-in must start again'),
          403: err('Sent by a page of another site'),
          429: err('Too many wrong codes for this account'),
        },
      },
    },
    async (req, reply) => {
      const c = ctx(req);
      const userId = await completeSecondStep({
        ctx: c,
        input: { pendingToken: pendingTokenOf(req, deps.baseUrl), code: req.body.code, ip: req.ip, userAgent: req.headers['user-agent'] },
        deps: { sealer: deps.sealer },
      });
      const { token } = await createSession({ ctx: c, input: { userId, userAgent: req.headers['user-agent'], ip: req.ip } });
      const user = await findUser({ ctx: c, input: { id: userId } });
      return reply.header('set-cookie', [sessionCookie(deps.baseUrl, token, deps.sessionMaxMs), mfaCookie(deps.baseUrl, '', 0)]).send({ user });
    },
  );
});
