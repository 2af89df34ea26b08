import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { newId } from '../../db/ids.js';
import type { App } from '../../http/app.js';
import { notFoundHandler } from '../../http/errors.js';
import type { RateLimiter } from '../../http/rate-limit.js';
import { isShortId } from '../links/short-id.js';
import { attributionScript } from './attribution-script.js';
import type { ClickQueue } from './clicks.js';
import { withTracking } from './destination.js';
import type { LinkCache } from './link-cache.js';
import { cloakedPage, expiredPage, notFoundPage, passwordPage, previewPage } from './pages.js';
import type { PasswordGate } from './password-gate.js';
import { osOf, resolveDestination, type RedirectLink } from './resolve.js';
import { countryFromHeader, type CountryLookup } from './visitor.js';

export interface RedirectDeps {
  shortLinkBaseUrl: string;
  clickIdParam: string;
  countryHeader: string | undefined;
  cache: LinkCache;
  clicks: ClickQueue;
  gate: PasswordGate;
  lookupCountry: CountryLookup;
  limiter: RateLimiter;
  clock: () => Date;
}

// Slack, X, Facebook, LinkedIn, WhatsApp, Discord, Telegram and friends fetch links to unfurl them.
const PREVIEW_BOT =
  /slackbot|slack-imgproxy|twitterbot|facebookexternalhit|facebot|linkedinbot|whatsapp|discordbot|telegrambot|skypeuripreview|pinterest|redditbot|embedly|iframely|vkshare|mastodon|bluesky|cardyb|google-pagerenderer|applebot/i;

const PASSWORD_ATTEMPTS_PER_MINUTE = 10;

const html = (reply: FastifyReply, status: number, body: string) =>
  reply.code(status).header('cache-control', 'private, no-store').type('text/html; charset=utf-8').send(body);

/** The visitor side: short links, their pages and the attribution script. */
export function registerRedirectRoutes(app: App, d: RedirectDeps): void {
  const prefix = new URL(d.shortLinkBaseUrl).pathname.replace(/\/+$/, '');
  const script = attributionScript(d.clickIdParam);

  app.get('/attribution.js', { schema: { hide: true }, logLevel: 'warn' }, async (req, reply) => {
    void reply.header('etag', script.etag).header('cache-control', 'public, max-age=3600');
    if (req.headers['if-none-match'] === script.etag) return reply.code(304).send();
    return reply.type('application/javascript; charset=utf-8').send(script.body);
  });

  // Password form posts: urlencoded, small.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 4096 }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  const findLink = (req: FastifyRequest<{ Params: { shortId: string } }>) => d.cache.get(req.params.shortId);

  const params = Type.Object({ shortId: Type.String() });

  app.get<{ Params: { shortId: string } }>(
    `${prefix}/:shortId`,
    { schema: { hide: true, params }, logLevel: 'warn' },
    async (req, reply) => {
      if (!isShortId(req.params.shortId)) return notFoundHandler(req, reply);
      const link = await findLink(req);
      if (!link) return html(reply, 404, notFoundPage());
      const ua = req.headers['user-agent'] ?? '';
      const nowMs = d.clock().getTime();
      const trusted = countryFromHeader(req.headers, d.countryHeader);
      const visitor = {
        os: osOf(ua),
        // An IP lookup only when the link targets by country; otherwise the click writer does it.
        country: trusted ?? (link.geo ? d.lookupCountry(req.ip) : undefined),
        unlocked: link.passwordSealed ? d.gate.unlocked(link, req.headers.cookie) : true,
      };
      const decision = resolveDestination(link, visitor, nowMs);
      if (decision.kind === 'password') return html(reply, 401, passwordPage(link, `${prefix}/${link.shortId}`));
      if (decision.kind === 'expired') {
        if (decision.to) return reply.code(302).header('location', decision.to).header('cache-control', 'private, no-store').send();
        return html(reply, 410, expiredPage(link));
      }
      if (PREVIEW_BOT.test(ua) && (link.title || link.description || link.image)) {
        return html(reply, 200, previewPage(link, `${d.shortLinkBaseUrl}/${link.shortId}`));
      }
      const clickId = newId();
      const destination = withTracking(decision.to, link.utm, d.clickIdParam, clickId);
      if (req.method !== 'HEAD') await recordClick(d, req, link, clickId, nowMs, visitor.country);
      if (decision.cloaked) return html(reply, 200, cloakedPage(link, destination));
      return reply.code(302).header('location', destination).header('cache-control', 'private, no-store').send();
    },
  );

  app.post<{ Params: { shortId: string }; Body: { password?: unknown } }>(
    `${prefix}/:shortId`,
    { schema: { hide: true, params }, logLevel: 'warn' },
    async (req, reply) => {
      if (!isShortId(req.params.shortId)) return notFoundHandler(req, reply);
      const link = await findLink(req);
      if (!link) return html(reply, 404, notFoundPage());
      const self = `${prefix}/${link.shortId}`;
      if (!link.passwordSealed) return reply.code(303).header('location', self).send();
      const attempts = await d.limiter.hit(`pw:${link.id}:${req.ip}`, PASSWORD_ATTEMPTS_PER_MINUTE, d.clock().getTime());
      if (!attempts.allowed) {
        void reply.header('retry-after', String(attempts.retryAfter));
        return html(reply, 429, passwordPage(link, self, 'too_many'));
      }
      const attempt = typeof req.body?.password === 'string' ? req.body.password : '';
      if (!d.gate.matches(link, attempt)) return html(reply, 401, passwordPage(link, self, 'wrong'));
      return reply.code(303).header('set-cookie', d.gate.cookie(link, self)).header('location', self).send();
    },
  );
}

function recordClick(d: RedirectDeps, req: FastifyRequest, link: RedirectLink, id: string, at: number, country: string | undefined) {
  return d.clicks.enqueue({
    id,
    workspaceId: link.workspaceId,
    linkId: link.id,
    partnerId: link.partnerId,
    at,
    ip: req.ip,
    userAgent: req.headers['user-agent'] ?? '',
    referer: req.headers.referer,
    country,
  });
}
