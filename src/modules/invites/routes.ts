import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { baseContext, type PeopleDeps } from '../../core/context.js';
import { AppError, invalid } from '../../core/errors.js';
import { DeletedIds, errorAnswer } from '../../http/schemas.js';
import { routesPlugin } from '../../http/types.js';
import { isFirstParty, sessionCookie } from '../../http/cookies.js';
import { createSession } from '../sessions/service.js';
import { WorkspaceParam } from '../workspaces/schemas.js';
import { AcceptedInvite, CreatedInvite, InviteAccept, InviteCreate, InviteDescription, InviteLookup, InviteParam, InviteView } from './schemas.js';
import type { Mailer } from '../mail/service.js';
import { acceptInvite, createInvite, describeInvite, listInvites, revokeInvite } from './service.js';

export interface InviteRoutesDeps extends PeopleDeps {
  baseUrl: string;
  sessionMaxMs: number;
  /** Present when the server sends mail (SMTP_URL). */
  mailer?: Mailer;
}

const tags = ['Workspace settings'];
const owner = { account: 'session', workspaceRole: 'owner' } as const;

/** Invitations to a workspace (operations.md §7): owners send them, anyone with the link accepts. */
export const inviteRoutes = routesPlugin<InviteRoutesDeps>('invites', (app, deps) => {
  const ctx = baseContext(deps);

  app.get(
    '/api/workspaces/:id/invites',
    {
      config: owner,
      schema: {
        operationId: 'listInvites',
        tags,
        summary: 'Pending invitations',
        description: 'Owner only; without their tokens.',
        params: WorkspaceParam,
        response: { 200: Type.Array(InviteView) },
      },
    },
    async (req) => listInvites({ ctx: ctx(req), input: { workspaceId: req.params.id } }),
  );

  app.post(
    '/api/workspaces/:id/invites',
    {
      config: owner,
      schema: {
        operationId: 'createInvite',
        tags,
        summary: 'Invite someone',
        description:
          'Owner only. The `url` carries the token: shown only here, valid 7 days, usable once. A new invitation to the same address replaces the pending one.',
        params: WorkspaceParam,
        body: InviteCreate,
        response: { 201: CreatedInvite },
      },
    },
    async (req, reply) => {
      const invite = await createInvite({
        ctx: ctx(req),
        input: { workspaceId: req.params.id, email: req.body.email, role: req.body.role, invitedBy: req.person!.userId },
        deps: { baseUrl: deps.baseUrl, mailer: deps.mailer },
      });
      return reply.status(201).send(invite);
    },
  );

  app.delete(
    '/api/workspaces/:id/invites/:inviteId',
    { config: owner, schema: { operationId: 'revokeInvite', tags, summary: 'Withdraw an invitation', params: InviteParam, response: { 200: DeletedIds } } },
    async (req) => {
      await revokeInvite({ ctx: ctx(req), input: { workspaceId: req.params.id, id: req.params.inviteId } });
      return { deletedIds: [req.params.inviteId] };
    },
  );

  app.post(
    '/api/invites/lookup',
    {
      config: { account: 'optional' },
      schema: {
        operationId: 'lookupInvite',
        tags,
        summary: 'What an invitation is for',
        description:
          'For the accept page: the workspace, the inviter and the role of a pending invitation (400 `invite_invalid` for a used, withdrawn, expired or unknown token). The token in the body, not the URL, so it stays out of access logs. Extension.',
        body: InviteLookup,
        response: { 200: InviteDescription },
      },
    },
    async (req) => describeInvite({ ctx: ctx(req), input: { token: req.body.token } }),
  );

  app.post(
    '/api/invites/accept',
    {
      config: { account: 'optional' },
      schema: {
        operationId: 'acceptInvite',
        tags,
        summary: 'Accept an invitation',
        description:
          'Signed in (the session cookie): joins with this account, whose email must be the invited one. Not signed in, with `name` and `password`: creates the account under the invited email and signs it in (the cookie).',
        body: InviteAccept,
        response: {
          201: AcceptedInvite,
          403: errorAnswer('The invitation is for another email than the signed-in account, or the workspace requires two-factor sign-in'),
        },
      },
    },
    async (req, reply) => {
      const now = deps.clock();
      const { token, name, password } = req.body;
      if (req.person) {
        const { member } = await acceptInvite({
          ctx: ctx(req, now),
          input: { token, userId: req.person.userId, ip: req.ip, userAgent: req.headers['user-agent'] },
        });
        await deps.authChanged();
        return reply.status(201).send(member);
      }
      if (name === undefined || password === undefined) throw invalid(name === undefined ? 'name' : 'password', 'required');
      // It signs the browser in: never for a page of another site (login CSRF).
      if (!isFirstParty(req, new URL(deps.baseUrl).origin)) throw new AppError('cross_site_sign_in');
      const { member, user } = await acceptInvite({
        ctx: ctx(req, now),
        input: { token, newAccount: { name, password }, ip: req.ip, userAgent: req.headers['user-agent'] },
      });
      const created = await createSession({ ctx: ctx(req, now), input: { userId: user.id, userAgent: req.headers['user-agent'], ip: req.ip } });
      return withCookie(reply, deps, created.token).status(201).send(member);
    },
  );
});

const withCookie = (reply: FastifyReply, deps: InviteRoutesDeps, token: string) =>
  reply.header('set-cookie', sessionCookie(deps.baseUrl, token, deps.sessionMaxMs));
