import { Type } from '@sinclair/typebox';
import { baseContext } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import type { Conn } from '../../db/connect.js';
import { adminGuard } from '../../http/auth.js';
import { ErrorBody, errorAnswer as err } from '../../http/schemas.js';
import { routesPlugin } from '../../http/types.js';
import type { Mailer } from '../mail/service.js';
import { OperatorResetLink, OperatorResetRequest, ResetConfirm, ResetRequest } from './schemas.js';
import { confirmReset, mailResetLink, operatorResetLink } from './service.js';

export interface PasswordResetDeps {
  db: Conn;
  baseUrl: string;
  clock: () => Date;
  /** Absent without SMTP_URL: no reset mail (the operator makes links). */
  mailer?: Mailer;
  /** Every instance forgets cached sessions (the reset ends them all). */
  authChanged: () => Promise<void>;
}

const tags = ['Account'];

/** Password reset (operations.md §15): a mailed single-use link, or the operator's. */
export const passwordResetRoutes = routesPlugin<PasswordResetDeps>('password-reset', (app, deps) => {
  const ctx = baseContext(deps);

  app.post(
    '/api/auth/password-reset',
    {
      config: { public: true },
      schema: {
        operationId: 'requestPasswordReset',
        tags,
        summary: 'Mail a password reset link',
        description:
          'Answers 202 with an empty body at once, the same whatever the address: the account is looked up after the answer. An account gets a single-use link valid one hour, at most 3 mails per address an hour. Without mail on the server (no SMTP_URL): 400 `password_reset_unavailable` for every address (the operator makes links: `linktrail users reset-link EMAIL`).',
        body: ResetRequest,
        security: [],
        response: {
          202: { description: 'Accepted (whether or not the address is an account’s); no body' },
          400: err('No mail on this server, or not an email address'),
        },
      },
    },
    async (req, reply) => {
      const mailer = deps.mailer;
      if (!mailer) throw new AppError('password_reset_unavailable');
      reply.status(202).send();
      // After the answer: its content and timing say nothing of the address.
      setImmediate(() => {
        mailResetLink({ ctx: ctx(req), input: { email: req.body.email }, deps: { mailer, baseUrl: deps.baseUrl } }).catch((e: unknown) =>
          req.log.error({ err: e }, 'password reset mail'),
        );
      });
      return reply;
    },
  );

  app.post(
    '/api/auth/password-reset/confirm',
    {
      config: { public: true },
      schema: {
        operationId: 'confirmPasswordReset',
        tags,
        summary: 'Set a new password with a reset link',
        description:
          'Uses the link up (with any other open link of the account), sets the password and ends every session of the account, on every instance; signs nobody in (the next sign-in asks for the password, and the second factor when there is one). 400 `reset_token_invalid` (field token) for a link unknown, used or expired; the password rules of sign-up apply.',
        body: ResetConfirm,
        security: [],
        response: { 204: Type.Null(), 400: err('A link unknown, used or expired, or a password refused') },
      },
    },
    async (req, reply) => {
      await confirmReset({ ctx: ctx(req), input: req.body });
      await deps.authChanged();
      return reply.status(204).send(null);
    },
  );
});

/** The operator's reset link (`linktrail users reset-link EMAIL`); register with prefix `/admin`. */
export const passwordResetAdminRoutes = routesPlugin<PasswordResetDeps & { adminToken: string }>(
  'password-reset-admin',
  (app, deps) => {
    app.addHook('onRequest', adminGuard(deps.adminToken));
    const ctx = baseContext(deps);
    app.post(
      '/users/reset-link',
      {
        schema: {
          operationId: 'adminCreateResetLink',
          tags: ['Operator'],
          security: [{ adminToken: [] }],
          summary: 'Make a password reset link for a user',
          description:
            'For servers without mail (or a person whose mail does not arrive): a single-use link valid one hour, to hand over by other means. 404 when no user has that email.',
          body: OperatorResetRequest,
          response: { 201: OperatorResetLink, 401: Type.Ref(ErrorBody), 404: Type.Ref(ErrorBody) },
        },
      },
      async (req, reply) => {
        const link = await operatorResetLink({ ctx: ctx(req), input: { email: req.body.email }, deps: { baseUrl: deps.baseUrl } });
        return reply.status(201).send({ ...link, expiresAt: link.expiresAt.toISOString() });
      },
    );
  },
  { isolated: true },
);
