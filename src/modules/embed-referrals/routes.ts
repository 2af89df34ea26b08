import { randomBytes } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuditActor } from '../../core/audit.js';
import { serviceContext, type ResourceDeps } from '../../core/context.js';
import { exactJson, hasBigint } from '../../core/exact-json.js';
import { AppError } from '../../core/errors.js';
import { ownerForMoney, rawHeaderValues, type RoleLookup } from '../../http/auth.js';
import type { RateLimiter } from '../../http/rate-limit.js';
import { addSchemaOnce, errorAnswer } from '../../http/schemas.js';
import { routesPlugin } from '../../http/types.js';
import { translate } from '../../i18n/messages.js';
import type { LinkDeps } from '../links/service.js';
import type { Mailer } from '../mail/service.js';
import { PortalCommission, PortalCustomer } from '../partner-portal/schemas.js';
import type { PartnerDeps } from '../partners/service.js';
import { embedExpiredPage, embedPage, type EmbedLang } from './pages.js';
import { CreatedEmbedToken, EmbedPayoutsInvite, EmbedReferrals, EmbedTokenCreate } from './schemas.js';
import { createEmbedToken, EMBED_REQUESTS_PER_MINUTE, embedReferrals, openEmbedToken, requestPayoutsInvite, type OpenedEmbed } from './service.js';

export type EmbedRouteDeps = ResourceDeps & {
  roleOf: RoleLookup;
  partners: PartnerDeps;
  links: LinkDeps;
  limiter: RateLimiter;
  baseUrl: string;
  mailer?: Mailer;
};

const tags = ['Partner program'];
const TOKEN_NOTE =
  'Extension. The credential is the page token of POST /api/embed-tokens as `Authorization: Bearer lte_…`, and it is a credential of these operations only (everywhere else 401); no cookie is read. An unknown or expired token, or one whose partner is no longer approved, is 401 `embed_token_invalid`; more than 60 requests a minute with one token, 429 `embed_rate_limited`.';

/** Only well-formed https origins go into the header: a stored value can never add a directive. */
const ORIGIN = /^https:\/\/[A-Za-z0-9.-]+(?::\d{1,5})?$/;

/** The page's policy: its own script and style by nonce, its API only, framed only by the program's embedding sites. */
export function embedCsp(nonce: string, embedOrigins: readonly string[]): string {
  const ancestors = embedOrigins.filter((o) => ORIGIN.test(o));
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    "img-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${ancestors.length ? ancestors.join(' ') : "'none'"}`,
  ].join('; ');
}

/** What every answer of the page and its API carries: never cached, never a referrer (the page URL holds the token). */
const unshared = (reply: FastifyReply) =>
  reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').header('x-content-type-options', 'nosniff');

/** Embedded referrals (operations.md §18): the token, the page, and the page's API. */
export const embedReferralRoutes = routesPlugin<EmbedRouteDeps>('embed-referrals', (app, deps) => {
  addSchemaOnce(app, PortalCustomer);
  addSchemaOnce(app, PortalCommission);
  addSchemaOnce(app, EmbedReferrals);
  const base = (now = deps.clock()) => ({ db: deps.db, now, analyticsDb: deps.analyticsDb });

  app.post(
    '/api/embed-tokens',
    {
      // Setting a partner approved is an owner's act by a person (§18 Scopes), as is showing their earnings elsewhere.
      config: { scope: ['partnersWrite', 'programsWrite'] as const },
      preHandler: ownerForMoney(deps.roleOf),
      schema: {
        operationId: 'createEmbedToken',
        tags,
        summary: "A token for a partner's embedded referral page",
        description:
          "Extension. For one partner: `partnerId`, or `tenantId` (your product's id of the user) with `name` and `email` — the partner holding that tenant id, or a new one made now, approved in the default group (the same tenant id always ends as one partner, concurrent requests included). The partner must be approved (400). By session, human token or OAuth grant only an owner (403 `owner_required`). Answers the page URL to put in an iframe on one of the program's `embedOrigins` (the page refuses every other framing site) and its token: valid 2 hours, shown only here.",
        body: EmbedTokenCreate,
        response: { 201: CreatedEmbedToken, 409: errorAnswer('program_required (no program yet)') },
      },
    },
    async (req, reply) => {
      const ctx = serviceContext(deps, req);
      const issuedBy: AuditActor = req.auditIntent?.actor ?? actorOf(req);
      const made = await createEmbedToken({ ctx, deps: { baseUrl: deps.baseUrl, partners: deps.partners }, input: { ...req.body, issuedBy } });
      return reply.status(201).send(made);
    },
  );

  /** The token of `Authorization: Bearer …`, opened, and counted against its own window. */
  const opened = async (req: FastifyRequest, reply: FastifyReply): Promise<OpenedEmbed> => {
    unshared(reply);
    const lines = rawHeaderValues(req, 'authorization');
    const m = lines.length === 1 ? /^Bearer\s+(\S+)\s*$/i.exec(lines[0]!) : null;
    const found = await openEmbedToken({ ctx: base(), input: { token: m?.[1] } });
    const d = await deps.limiter.hit(`embed:${found.token.id}`, EMBED_REQUESTS_PER_MINUTE, found.ctx.now.getTime());
    if (!d.allowed) throw new AppError('embed_rate_limited', { retryAfter: d.retryAfter }, { retryAfter: d.retryAfter });
    return found;
  };
  const security = [{ embedToken: [] }];
  const unauthorized = errorAnswer('embed_token_invalid: no token, or an unknown or expired one');
  const limited = errorAnswer('embed_rate_limited');

  app.get(
    '/api/embed/referrals',
    {
      config: { public: true },
      schema: {
        operationId: 'getEmbedReferrals',
        tags,
        summary: "The embedded page's figures",
        description: `${TOKEN_NOTE} The token's partner only: their name, the program, their link, their clicks, leads and sales and earnings of all time, their latest commissions (customers masked), and what the page may offer for payouts.`,
        security,
        response: { 200: Type.Ref('EmbedReferrals'), 401: unauthorized, 429: limited },
      },
    },
    async (req, reply) => {
      const data = await embedReferrals({
        deps: { links: deps.links, baseUrl: deps.baseUrl, mails: deps.mailer !== undefined },
        input: await opened(req, reply),
      });
      return hasBigint(data) ? reply.type('application/json; charset=utf-8').serializer(exactJson).send(data) : data;
    },
  );

  app.post(
    '/api/embed/referrals/payouts-invite',
    {
      config: { public: true },
      schema: {
        operationId: 'requestEmbedPayoutsInvite',
        tags,
        summary: 'Set up payouts: mail the partner an invitation',
        description: `${TOKEN_NOTE} Mails the token's partner an invitation to the partner portal, where payout details are given (as POST /api/partner-invites does; it replaces a pending one). 409 \`embed_email_required\` when no e-mail is known, \`embed_mail_unavailable\` when the server sends no mail, \`partner_claimed\` when they already have an account; 429 \`embed_invite_recent\` within 15 minutes of the last one asked from these pages. No body.`,
        security,
        response: {
          201: EmbedPayoutsInvite,
          401: unauthorized,
          409: errorAnswer('embed_email_required, embed_mail_unavailable or partner_claimed'),
          429: limited,
        },
      },
    },
    async (req, reply) => {
      const found = await opened(req, reply);
      const made = await requestPayoutsInvite({
        deps: { baseUrl: deps.baseUrl, mailer: deps.mailer },
        input: { opened: found, ip: req.ip, userAgent: req.headers['user-agent'] },
      });
      return reply.status(201).send(made);
    },
  );

  // The page itself: a browser navigation, so never JSON. Its query (the token) is never logged:
  // the request line is logged without it (http/server.ts), and nothing here logs the URL.
  app.get('/embed/referrals', { config: { public: true }, schema: { hide: true } }, async (req, reply) => {
    const query = req.query as { token?: unknown; lang?: unknown };
    const lang: EmbedLang = query.lang === 'ar' ? 'ar' : 'en';
    unshared(reply).type('text/html; charset=utf-8');
    try {
      const found = await openEmbedToken({ ctx: base(), input: { token: typeof query.token === 'string' ? query.token : undefined } });
      const nonce = randomBytes(16).toString('base64');
      return reply.header('content-security-policy', embedCsp(nonce, found.program.embedOrigins)).send(embedPage(lang, nonce));
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'embed_token_invalid') throw err;
      return reply
        .code(401)
        .header('content-security-policy', "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
        .send(embedExpiredPage(lang, translate('embed_token_invalid')));
    }
  });
});

/** The issuer when the request carries no audit intent (never for this audited route; a fallback for the type). */
function actorOf(req: FastifyRequest): AuditActor {
  const a = req.principal!.actor;
  if (a.type === 'key') return { kind: 'key', id: a.keyId };
  if (a.type === 'app') return { kind: 'app', id: a.appId, userId: a.userId };
  return a.tokenId ? { kind: 'token', id: a.tokenId, userId: a.userId } : { kind: 'user', id: a.userId, userId: a.userId };
}
