import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { ResourceDeps } from '../../core/context.js';
import type { Sealer } from '../../core/sealed.js';
import { exactJson, hasBigint } from '../../core/exact-json.js';
import type { LoginThrottle } from '../../http/login-throttle.js';
import { addSchemaOnce, errorAnswer } from '../../http/schemas.js';
import { routesPlugin } from '../../http/types.js';
import type { AnalyticsDeps } from '../analytics/service.js';
import type { LinkDeps } from '../links/service.js';
import type { Mailer } from '../mail/service.js';
import { resolveSeat, seatContext } from './access.js';
import {
  PartnerSummary,
  PayoutDetails,
  PayoutDetailsPut,
  PortalAnalyticsQuery,
  PortalCommission,
  PortalCommissionListQuery,
  PortalCustomer,
  PortalGroup,
  PortalLink,
  PortalLinkCreate,
  PortalLinkListQuery,
  PortalListQuery,
  PortalPayout,
} from './schemas.js';
import {
  portalAnalytics,
  portalCommissions,
  portalLinks,
  portalPayoutDetails,
  portalPayouts,
  portalSummary,
  type PortalAnalyticsQuery as Query,
} from './service.js';
import { createPortalLink, putPayoutDetails } from './writes.js';

export type PartnerPortalDeps = ResourceDeps & {
  links: LinkDeps;
  analytics: AnalyticsDeps;
  sealer: Sealer;
  throttle: LoginThrottle;
  mailer?: Mailer;
};

const tags = ['Partner portal'];
const PORTAL_NOTE =
  "Extension. The signed-in person's own data as a partner: a session cookie only (API keys and tokens are 401). With several programs, X-Program-Id names one (400 `program_choice_required` without it); a program they are not a partner in is 404.";
const programHeader = Type.Object({ 'x-program-id': Type.Optional(Type.String({ description: 'The program, when the person partners in several' })) });

const origin = (req: FastifyRequest) => ({ ip: req.ip, userAgent: req.headers['user-agent']?.slice(0, 500) });

/** The partner portal's API (operations.md §18 "Partner portal"): everything scoped to the seat's workspace and partner. */
export const partnerPortalRoutes = routesPlugin<PartnerPortalDeps>('partner-portal', (app, deps) => {
  for (const s of [PortalCustomer, PortalLink, PortalGroup, PortalCommission, PortalPayout, PayoutDetails, PartnerSummary]) addSchemaOnce(app, s);
  const seated = { config: { account: 'session' as const }, preHandler: resolveSeat(deps) };
  const ctx = (req: FastifyRequest) => seatContext(deps, req);
  const seat = (req: FastifyRequest) => req.partnerSeat!;
  const notFound = errorAnswer('not_found: not a partner in this program (or in any)');
  const unchosen = errorAnswer('program_choice_required (several programs and no X-Program-Id), or a field of the request');

  app.get(
    '/api/partner',
    {
      ...seated,
      schema: {
        operationId: 'getPartnerPortal',
        tags,
        summary: 'Who I am in the program',
        description: `${PORTAL_NOTE} The partner's name, status and referral key, the program's rules for their links, and their earnings of all time per currency.`,
        headers: programHeader,
        response: { 200: Type.Ref('PartnerSummary'), 400: unchosen, 404: notFound },
      },
    },
    async (req, reply) => {
      const summary = await portalSummary({ ctx: ctx(req), input: seat(req) });
      return hasBigint(summary) ? reply.type('application/json; charset=utf-8').serializer(exactJson).send(summary) : summary;
    },
  );

  app.get(
    '/api/partner/links',
    {
      ...seated,
      schema: {
        operationId: 'listPartnerPortalLinks',
        tags,
        summary: 'My links',
        description: `${PORTAL_NOTE} The partner's links, newest first by default, with all-time clicks, leads and sales; X-Total-Count tells how many.`,
        headers: programHeader,
        querystring: PortalLinkListQuery,
        response: { 200: { ...Type.Array(Type.Ref('PortalLink')), headers: { 'X-Total-Count': { type: 'integer' } } }, 400: unchosen, 404: notFound },
      },
    },
    async (req, reply) => {
      const { links, total } = await portalLinks({
        ctx: ctx(req),
        deps: deps.links,
        input: { ...seat(req), ...(req.query as { take: number; skip: number; sort: 'asc' | 'desc' }) },
      });
      return reply.header('x-total-count', total).send(links);
    },
  );

  app.post(
    '/api/partner/links',
    {
      ...seated,
      schema: {
        operationId: 'createPartnerPortalLink',
        tags,
        summary: 'Make a link',
        description: `${PORTAL_NOTE} One link to a URL under one of the program's link prefixes (scheme, host and port equal, the path at a \`/\` boundary, no user info; else 400 naming \`url\`), with a title and UTM values only. An approved partner only (403 \`partner_not_approved\`); at most the program's maxPartnerLinks besides the default link (409 \`partner_link_limit\`).`,
        headers: programHeader,
        body: PortalLinkCreate,
        response: {
          201: Type.Ref('PortalLink'),
          403: errorAnswer('partner_not_approved'),
          400: unchosen,
          404: notFound,
          409: errorAnswer('partner_link_limit'),
        },
      },
    },
    async (req, reply) => {
      const body = req.body;
      const id = await createPortalLink({
        ctx: ctx(req),
        deps: deps.links,
        input: { seat: seat(req), origin: origin(req), url: body.url, title: body.title, utm: body.utm as Record<string, string> | undefined },
      });
      const { links } = await portalLinks({ ctx: ctx(req), deps: deps.links, input: { ...seat(req), take: 1, skip: 0, sort: 'desc' } });
      const made = links.find((l) => l.id === id)!;
      return reply.status(201).send(made);
    },
  );

  app.get(
    '/api/partner/analytics',
    {
      ...seated,
      schema: {
        operationId: 'getPartnerPortalAnalytics',
        tags,
        summary: 'My figures',
        description: `${PORTAL_NOTE} Clicks, leads, sales and revenue of the partner's links only, grouped (a timeseries in UTC days or months by default, with the earnings of each bucket), read as GET /api/analytics reads them. Bot clicks are never counted.`,
        headers: programHeader,
        querystring: PortalAnalyticsQuery,
        response: { 200: Type.Array(Type.Ref('PortalGroup')), 400: unchosen, 404: notFound },
      },
    },
    async (req, reply) => {
      const groups = await portalAnalytics({ ctx: ctx(req), deps: deps.analytics, input: { ...seat(req), ...(req.query as Query) } });
      return hasBigint(groups) ? reply.type('application/json; charset=utf-8').serializer(exactJson).send(groups) : groups;
    },
  );

  app.get(
    '/api/partner/commissions',
    {
      ...seated,
      schema: {
        operationId: 'listPartnerPortalCommissions',
        tags,
        summary: 'My commissions',
        description: `${PORTAL_NOTE} The partner's commissions, newest first by default; each customer by first name and last initial, a masked e-mail, their country and when they came.`,
        headers: programHeader,
        querystring: PortalCommissionListQuery,
        response: { 200: Type.Array(Type.Ref('PortalCommission')), 400: unchosen, 404: notFound },
      },
    },
    async (req) => portalCommissions({ ctx: ctx(req), input: { ...seat(req), ...(req.query as { take: number; skip: number; sort: 'asc' | 'desc' }) } }),
  );

  app.get(
    '/api/partner/payouts',
    {
      ...seated,
      schema: {
        operationId: 'listPartnerPortalPayouts',
        tags,
        summary: 'My payouts',
        description: `${PORTAL_NOTE} What each payout paid or pays the partner, newest first by default.`,
        headers: programHeader,
        querystring: PortalListQuery,
        response: { 200: Type.Array(Type.Ref('PortalPayout')), 400: unchosen, 404: notFound },
      },
    },
    async (req, reply) => {
      const payouts = await portalPayouts({ ctx: ctx(req), input: { ...seat(req), ...(req.query as { take: number; skip: number; sort: 'asc' | 'desc' }) } });
      return hasBigint(payouts) ? reply.type('application/json; charset=utf-8').serializer(exactJson).send(payouts) : payouts;
    },
  );

  app.get(
    '/api/partner/payout-details',
    {
      ...seated,
      schema: {
        operationId: 'getPartnerPortalPayoutDetails',
        tags,
        summary: 'My payout details',
        description: `${PORTAL_NOTE} The method, the destination masked, the account holder and when they last changed; the whole details are never shown again.`,
        headers: programHeader,
        response: { 200: Type.Ref('PayoutDetails'), 400: unchosen, 404: notFound },
      },
    },
    async (req) => portalPayoutDetails({ ctx: ctx(req), sealer: deps.sealer, input: seat(req) }),
  );

  app.put(
    '/api/partner/payout-details',
    {
      ...seated,
      schema: {
        operationId: 'putPartnerPortalPayoutDetails',
        tags,
        summary: 'Set my payout details',
        description: `${PORTAL_NOTE} Sealed with the server's SECRET; written only by the partner's own session. Needs the account's password in \`password\`, or a passkey or single sign-on sign-in of this session in the last 5 minutes (403 \`reauthentication_required\`; a wrong password is 400 and counts as a failed sign-in). Refused with 409 \`payout_in_progress\` while a pending payout includes the partner. The account and the old and new payout addresses are mailed; payouts leave details changed in the last 7 days out unless the owner names the partner.`,
        headers: programHeader,
        body: PayoutDetailsPut,
        response: {
          200: Type.Ref('PayoutDetails'),
          403: errorAnswer('reauthentication_required'),
          400: unchosen,
          404: notFound,
          409: errorAnswer('payout_in_progress'),
        },
      },
    },
    async (req) => {
      const now = deps.clock();
      const { password, ...details } = req.body;
      return putPayoutDetails({
        ctx: ctx(req),
        deps: {
          sealer: deps.sealer,
          mailer: deps.mailer,
          throttle: {
            before: (email) => deps.throttle.before(email, req.ip, now.getTime()),
            failed: (email) => deps.throttle.failed(email, req.ip, now.getTime()),
          },
        },
        input: { seat: seat(req), origin: origin(req), details, password },
      });
    },
  );
});
