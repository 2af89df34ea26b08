import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Ctx, ResourceDeps } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import { errorAnswer } from '../../http/schemas.js';
import { routesPlugin } from '../../http/types.js';
import { trackLead, trackSale, type ConversionDeps } from '../conversions/service.js';
import { clientIp } from '../redirect/service.js';
import { preflight, publishableKeyGuard, type GuardDeps } from './guard.js';
import { ClickAnswer, ClickInput, ClientLeadInput, ClientSaleInput } from './schemas.js';
import { LeadEvent, SaleEvent } from '../conversions/schemas.js';
import { recordViaClick, type ClickDeps } from './service.js';

export type ClientTrackingDeps = ResourceDeps & {
  guard: GuardDeps;
  click: ClickDeps;
  conversions: ConversionDeps;
  trustProxy: boolean;
  /** Whether some workspace allows this hostname (preflights), cached. */
  allows: (hostname: string) => Promise<boolean>;
};

const CREDENTIAL =
  'The publishable key (`Authorization: Bearer lt_pk_…`) from a page whose Origin is one of the allowed hostnames (else 403 origin_not_allowed); CORS: the answer allows that origin, never with credentials. ' +
  "Counted in the site's own window (CLIENT_TRACKING_PER_MINUTE, default ten times the plan's figure; X-RateLimit-* describe it) and per visitor address (60 a minute), never in the API's. " +
  "With Redis each window is two minutes' counters, the rolling minute estimated from them (the last minute's count weighed by its part still inside the 60 s, rounded up): exact for a burst within a minute; traffic bunched at the end of one minute and of the next can pass up to twice the window in a rolling minute (at worst). X-RateLimit-Reset is then the end of the current minute.";

const failures = {
  401: errorAnswer('No publishable key, or not a working one'),
  403: errorAnswer('origin_not_allowed: the page is not on an allowed hostname'),
  429: errorAnswer('rate_limited (the site) or visitor_rate_limited (this visitor)'),
};

/** Attribution from the browser: the three routes a publishable key may call, and their preflights. */
export const clientTrackingRoutes = routesPlugin<ClientTrackingDeps>('client-tracking', (app, deps) => {
  app.addSchema(ClickAnswer);
  const tags = ['Conversions'];
  const guard = publishableKeyGuard(deps.guard);
  const answerPreflight = preflight(deps.allows);
  const siteCtx = (req: FastifyRequest): Ctx => ({ db: deps.db, workspace: req.clientSite!.workspace, now: deps.clock() });
  // Every visitor of every site comes here: one log line each would be the redirect's volume (as its route, warnings only).
  const route = { config: { publishableKey: true }, onRequest: guard, logLevel: 'warn' as const };
  const security = [{ publishableKey: [] }];

  for (const url of ['/api/track/click', '/api/track/lead/client', '/api/track/sale/client']) {
    app.options(url, { config: { publishableKey: true }, schema: { hide: true }, logLevel: 'warn' }, answerPreflight);
  }

  app.post(
    '/api/track/click',
    {
      ...route,
      schema: {
        operationId: 'trackClick',
        tags,
        summary: 'Record a click from the site itself',
        description:
          "Extension. For a partner link that lands on the site (`?via=<referralKey>`, an approved partner's: the click goes on their default link) or a short id of the workspace; no match (unknown, pending or banned alike) is 400 unknown_via. " +
          'Recorded as a redirect records a click (trigger via), counted everywhere clicks are. The same visitor on the same link within an hour gets the same click id and no second click. ' +
          CREDENTIAL,
        security,
        body: ClickInput,
        response: { 200: Type.Ref(ClickAnswer), ...failures },
      },
    },
    async (req) =>
      recordViaClick({
        ctx: siteCtx(req),
        deps: deps.click,
        input: req.body,
        visitor: { ip: clientIp(req.headers, req.socket.remoteAddress, deps.trustProxy), headers: req.headers },
      }),
  );

  app.post(
    '/api/track/lead/client',
    {
      ...route,
      schema: {
        operationId: 'trackLeadFromBrowser',
        tags,
        summary: 'Track a lead from a browser',
        description:
          "Extension. POST /api/track/lead's body, reported by a page: the lead's source is client. A commission it earns is held (clientEvent) unless the program sets trustClientEvents; it never counts as the customer's latest lead for a later sale. " +
          CREDENTIAL,
        security,
        body: ClientLeadInput,
        response: { 200: Type.Ref(LeadEvent), ...failures },
      },
    },
    async (req) => trackLead({ ctx: siteCtx(req), deps: deps.conversions, input: req.body, source: 'client' }),
  );

  app.post(
    '/api/track/sale/client',
    {
      ...route,
      schema: {
        operationId: 'trackSaleFromBrowser',
        tags,
        summary: 'Track a sale from a browser',
        description:
          "Extension. POST /api/track/sale's body, reported by a page, when the workspace's tracking settings allow it (clientSales; else 403 client_sales_off): the sale's source is client, and a commission it earns is held (clientEvent) unless the program sets trustClientEvents. " +
          CREDENTIAL,
        security,
        body: ClientSaleInput,
        response: { 200: Type.Ref(SaleEvent), ...failures, 403: errorAnswer('origin_not_allowed, or client_sales_off') },
      },
    },
    async (req) => {
      if (!req.clientSite!.clientSales) throw new AppError('client_sales_off');
      return trackSale({ ctx: siteCtx(req), deps: deps.conversions, input: req.body, source: 'client' });
    },
  );
});
