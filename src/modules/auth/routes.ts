import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { baseContext } from '../../core/context.js';
import type { Conn } from '../../db/connect.js';
import { AppError } from '../../core/errors.js';
import type { LoginThrottle } from '../../http/login-throttle.js';
import { addSchemaOnce, errorAnswer as err } from '../../http/schemas.js';
import { routesPlugin } from '../../http/types.js';
import { clearedSessionCookie, isFirstParty, sessionCookie } from '../../http/cookies.js';
import { revokeSession } from '../sessions/service.js';
import { User } from '../users/schemas.js';
import { Workspace } from '../workspaces/schemas.js';
import { AccountCreated, LoginBody, SetupBody, SetupStatus, SignedIn, SignupBody } from './schemas.js';
import { completeSetup, logIn, setupNeeded, signUp } from './service.js';
import { mfaCookie } from '../../http/mfa-cookie.js';
import { MfaRequired } from '../mfa/schemas.js';
import { PENDING_TTL_MS } from '../mfa/service.js';

export interface AuthRoutesDeps {
  db: Conn;
  baseUrl: string;
  sessionMaxMs: number;
  allowSignup: boolean;
  throttle: LoginThrottle;
  clock: () => Date;
  /** Every instance forgets cached sessions (logout must hold on all of them at once). */
  authChanged: () => Promise<void>;
}

const tags = ['Account'];

/** Sign-in, sign-out, first-user setup and open sign-up (operations.md §7). */
export const authRoutes = routesPlugin<AuthRoutesDeps>('auth', (app, deps) => {
  addSchemaOnce(app, User);
  addSchemaOnce(app, Workspace);
  const origin = new URL(deps.baseUrl).origin;
  const setCookie = (reply: FastifyReply, token: string) => reply.header('set-cookie', sessionCookie(deps.baseUrl, token, deps.sessionMaxMs));
  // A page of another site must not sign a visitor into an account (login CSRF).
  const firstParty = async (req: FastifyRequest) => {
    if (!isFirstParty(req, origin)) throw new AppError('cross_site_sign_in');
  };
  const userAgent = (req: FastifyRequest) => req.headers['user-agent'];
  const ctx = baseContext(deps);

  app.post(
    '/api/auth/login',
    {
      config: { public: true },
      onRequest: firstParty,
      schema: {
        operationId: 'signIn',
        tags,
        summary: 'Sign in',
        description:
          'Email and password to a new session (with two-factor on, to the second step: `{ mfaRequired: true, methods }`, no session cookie, and an HttpOnly `lt_mfa` cookie for POST /api/auth/mfa, 5 minutes, one sign-in): the answer sets the session cookie (`__Host-lt_session` on https, else `lt_session`; HttpOnly, SameSite=Lax, Path=/). A wrong email or password is the same 401 either way. Repeated failures are slowed down and then refused for a while (429 with retryAfter) per account and address; the account itself is never locked.',
        body: LoginBody,
        security: [],
        response: {
          200: Type.Union([SignedIn, MfaRequired]),
          401: err('Wrong email or password'),
          403: err(
            'Sent by a page of another site (`cross_site_sign_in`), or the account must sign in with single sign-on (`sso_required`: a member of a workspace that requires SSO for the e-mail’s verified domain)',
          ),
          429: err('Too many failed attempts (retryAfter)'),
        },
      },
    },
    async (req, reply) => {
      const signedIn = await logIn({ ctx: ctx(req), input: { ...req.body, address: req.ip, userAgent: userAgent(req) }, deps: { throttle: deps.throttle } });
      if ('pending' in signedIn)
        return reply.header('set-cookie', mfaCookie(deps.baseUrl, signedIn.pending!, PENDING_TTL_MS)).send({ mfaRequired: true, methods: signedIn.methods! });
      return setCookie(reply, signedIn.token).send({ user: signedIn.user });
    },
  );

  app.post(
    '/api/auth/logout',
    {
      config: { account: 'session' },
      schema: {
        operationId: 'signOut',
        tags,
        summary: 'Sign out',
        description: 'Ends this session at once, on every instance, and clears the cookie.',
        security: [{ sessionCookie: [] }],
        response: { 204: Type.Null() },
      },
    },
    async (req, reply) => {
      await revokeSession({ ctx: ctx(req), input: { userId: req.person!.userId, id: req.person!.sessionId! } });
      await deps.authChanged();
      return reply.header('set-cookie', clearedSessionCookie(deps.baseUrl)).status(204).send(null);
    },
  );

  app.get(
    '/api/setup',
    {
      config: { public: true },
      schema: {
        operationId: 'getSetupState',
        tags,
        summary: 'Whether the first user is still to be created',
        description:
          'Public, so the sign-in page can say where the setup URL is (the log or terminal of the server) while nobody has an account. Tells nothing else: never the code.',
        security: [],
        response: { 200: SetupStatus },
      },
    },
    async () => ({ needed: await setupNeeded({ ctx: ctx(undefined) }) }),
  );

  app.post(
    '/api/setup',
    {
      config: { public: true },
      onRequest: firstParty,
      schema: {
        operationId: 'completeSetup',
        tags,
        summary: 'Create the first user',
        description:
          'Only while no user exists, with the code of the setup URL the server logs at start: creates the first user, a workspace they own (plan enterprise: the person running the server) and a session (the cookie). Any later call is a 400.',
        body: SetupBody,
        security: [],
        response: { 201: AccountCreated, 403: err('Sent by a page of another site (`cross_site_sign_in`)') },
      },
    },
    async (req, reply) => {
      const { code, workspaceName, ...account } = req.body;
      const { user, workspace, token } = await completeSetup({ ctx: ctx(req), input: { code, account, workspaceName, userAgent: userAgent(req), ip: req.ip } });
      return setCookie(reply, token).status(201).send({ user, workspace });
    },
  );

  if (deps.allowSignup) {
    app.post(
      '/api/auth/signup',
      {
        config: { public: true },
        onRequest: firstParty,
        schema: {
          operationId: 'signUp',
          tags,
          summary: 'Create an account (ALLOW_SIGNUP=true only)',
          description: 'An account, a workspace it owns on the free plan, and a session (the cookie).',
          body: SignupBody,
          security: [],
          response: { 201: AccountCreated, 403: err('Sent by a page of another site (`cross_site_sign_in`)') },
        },
      },
      async (req, reply) => {
        const { workspaceName, ...account } = req.body;
        const { user, workspace, token } = await signUp({ ctx: ctx(req), input: { account, workspaceName, userAgent: userAgent(req), ip: req.ip } });
        return setCookie(reply, token).status(201).send({ user, workspace });
      },
    );
  }
});
