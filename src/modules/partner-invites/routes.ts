import { Type } from '@sinclair/typebox';
import { baseContext, serviceContext, type ResourceDeps } from '../../core/context.js';
import { AppError, invalid } from '../../core/errors.js';
import { isFirstParty, sessionCookie } from '../../http/cookies.js';
import { ownerForMoney, type RoleLookup } from '../../http/auth.js';
import { errorAnswer } from '../../http/schemas.js';
import { routesPlugin } from '../../http/types.js';
import type { Mailer } from '../mail/service.js';
import type { PartnerDeps } from '../partners/service.js';
import { createSession } from '../sessions/service.js';
import {
  AcceptedPartnerInvite,
  CreatedPartnerInvite,
  PartnerInviteAccept,
  PartnerInviteCreate,
  PartnerInviteDescription,
  PartnerInviteLookup,
} from './schemas.js';
import { acceptPartnerInvite, createPartnerInvites, describePartnerInvite } from './service.js';

export type PartnerInviteRouteDeps = ResourceDeps & {
  roleOf: RoleLookup;
  partners: PartnerDeps;
  baseUrl: string;
  sessionMaxMs: number;
  authChanged: () => Promise<void>;
  mailer?: Mailer;
};

const tags = ['Partner program'];

/** Invitations of partners to their portal (operations.md §18 "Invitations"). */
export const partnerInviteRoutes = routesPlugin<PartnerInviteRouteDeps>('partner-invites', (app, deps) => {
  app.post(
    '/api/partner-invites',
    {
      // Accepting approves the partner: by a person, an owner's act as approving is (§18 Scopes).
      config: { scope: ['partnersWrite', 'programsWrite'] as const },
      preHandler: ownerForMoney(deps.roleOf),
      schema: {
        operationId: 'createPartnerInvites',
        tags,
        summary: 'Invite partners to their portal',
        description:
          "Extension. By session, human token or OAuth grant only an owner (accepting approves the partner: 403 `owner_required`). Each partner must have an e-mail and not be rejected, banned or archived (400 naming the entry); one someone already signs in as is 409 `partner_claimed`. A partner's pending invitation is replaced. Each `url` is shown only here, valid 7 days, once; with SMTP_URL it is also mailed to the partner's e-mail.",
        body: PartnerInviteCreate,
        response: { 201: Type.Array(CreatedPartnerInvite), 409: errorAnswer('partner_claimed, or program_required (no program yet)') },
      },
    },
    async (req, reply) => {
      const actor = req.principal!.actor;
      const made = await createPartnerInvites({
        ctx: serviceContext(deps, req),
        deps: { baseUrl: deps.baseUrl, mailer: deps.mailer },
        input: { items: req.body, invitedBy: actor.type === 'key' ? null : actor.userId },
      });
      return reply.status(201).send(made);
    },
  );

  const ctx = baseContext(deps);
  app.post(
    '/api/partner-invites/lookup',
    {
      config: { account: 'optional' },
      schema: {
        operationId: 'lookupPartnerInvite',
        tags,
        summary: 'What a partner invitation is for',
        description:
          'Extension. For the accept page: the program, the partner and the invited address of a pending invitation (400 `invite_invalid` for a used, replaced, expired or unknown token). The token in the body, not the URL, so it stays out of access logs.',
        body: PartnerInviteLookup,
        response: { 200: PartnerInviteDescription },
      },
    },
    async (req) => describePartnerInvite({ ctx: ctx(req), input: { token: req.body.token } }),
  );

  app.post(
    '/api/partner-invites/accept',
    {
      config: { account: 'optional' },
      schema: {
        operationId: 'acceptPartnerInvite',
        tags,
        summary: 'Accept a partner invitation',
        description:
          "Extension. Signed in (the session cookie): becomes the partner with this account, whose e-mail must be the invited one. Not signed in, with `name` and `password`: creates the account under the invited e-mail and signs it in (the cookie). The partner's `userId` is set and an invited or pending partner approved. 409 `partner_claimed` when someone already signs in as this partner; 400 `invite_invalid` for a used, replaced, expired or unknown token.",
        body: PartnerInviteAccept,
        response: { 200: AcceptedPartnerInvite, 409: errorAnswer('partner_claimed') },
      },
    },
    async (req, reply) => {
      const now = deps.clock();
      const { token, name, password } = req.body;
      const meta = { ip: req.ip, userAgent: req.headers['user-agent'] };
      if (req.person) {
        const { partner } = await acceptPartnerInvite({ ctx: ctx(req, now), deps: deps.partners, input: { token, userId: req.person.userId, ...meta } });
        await deps.authChanged();
        return { partner };
      }
      if (name === undefined || password === undefined) throw invalid(name === undefined ? 'name' : 'password', 'required');
      // It signs the browser in: never for a page of another site (login CSRF).
      if (!isFirstParty(req, new URL(deps.baseUrl).origin)) throw new AppError('cross_site_sign_in');
      const { partner, user } = await acceptPartnerInvite({
        ctx: ctx(req, now),
        deps: deps.partners,
        input: { token, newAccount: { name, password }, ...meta },
      });
      const created = await createSession({ ctx: ctx(req, now), input: { userId: user.id, userAgent: req.headers['user-agent'], ip: req.ip } });
      return reply.header('set-cookie', sessionCookie(deps.baseUrl, created.token, deps.sessionMaxMs)).send({ partner });
    },
  );
});
