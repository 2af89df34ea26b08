import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyReply, type RouteOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { authenticate, authorizeWorkspaceRole, type AuthDeps, type RoleLookup } from './auth.js';
import { AppError } from '../core/errors.js';
import { closeIfBodyPending, errorBody, errorHandler, isApiPath, notFoundHandlerWith } from './errors.js';
import { withApiPrefix } from './api-prefix.js';
import { describeRoute, registerOpenApi } from './openapi.js';
import { registerGuides } from './guides.js';
import { ErrorBody } from './schemas.js';
import { registerJsonBody } from './json-body.js';
import { rejectUnstorableText } from './text-safety.js';
import type { App } from './types.js';
import { buildSerializer } from './serialization.js';
import { buildValidator } from './validation.js';
import { HeavyGate, registerHeavyGate } from './heavy-requests.js';

/** The server's shared machinery; it knows no module: the composition root (src/app.ts) registers them. */
export interface ServerOptions {
  baseUrl: string;
  trustProxy: boolean;
  logger: FastifyBaseLogger;
  requestTimeoutMs?: number;
  /** Answers what it can before Fastify (the redirect hot path); false hands the request on. */
  fastPath?: (req: IncomingMessage, res: ServerResponse) => boolean;
  /** A module's own rewrite, tried before the un-prefixed API forms (claimed hosts); undefined: none. */
  rewriteUrl?: (req: IncomingMessage) => string | undefined;
  /** The HTML page visitors get for paths that are neither API nor short link. */
  notFoundPage: () => string;
  auth: AuthDeps;
  /** A person's role in a workspace, for routes that declare `workspaceRole`. */
  roleOf: RoleLookup;
  /** Throws while the database cannot be reached (`/readyz`). */
  ping: () => Promise<unknown>;
  /** The OpenAPI document's top-level `webhooks` (the requests the service sends out). */
  openApiWebhooks?: Record<string, unknown>;
}

const routeTables = new WeakMap<object, RouteOptions[]>();

/** Every route the app registered, with its config (scope): the table the scope tests walk. */
export function routeTable(app: App): readonly RouteOptions[] {
  return routeTables.get(app) ?? [];
}

// Up to 10,000 items per bulk request: a realistic rich link (300-character URLs, tags, a few
// geo entries, utm, title, description) is ~3.8 KB as JSON, so 10,000 of them ~38 MB. The
// work a body can cause is bounded by json-body.ts, not by this size.
const BODY_LIMIT = 64 * 1024 * 1024;
/**
 * Routes anyone may call (no credential checked before the body is read: sign-in, sign-up,
 * password reset, inbound webhooks…) read at most this much. The 64 MB above is for callers
 * already authenticated and counted against a workspace's window; a stranger's 31 MB login
 * would otherwise be buffered and scanned in full. Fastify refuses a larger Content-Length
 * before reading anything and stops a chunked body at the first byte past the limit (413
 * `body_too_large`, `Connection: close`, so the rest is never read). A route may declare its own
 * `bodyLimit` (the Stripe webhook: 1 MB; form routes: less).
 */
export const PUBLIC_BODY_LIMIT = 64 * 1024;

/** Whether a route is read before any credential is checked (operator routes check theirs in onRequest). */
function needsNoCredential(route: RouteOptions): boolean {
  const { scope, account } = route.config ?? {};
  return !scope && (!account || account === 'optional') && !/^\/admin(?:\/|$)/.test(route.url);
}

export async function createServer(deps: ServerOptions): Promise<App> {
  const requestTimeout = deps.requestTimeoutMs ?? 30_000;
  const lifecycle = { closing: false };
  const notFound = notFoundHandlerWith(deps.notFoundPage);
  const app = Fastify({
    loggerInstance: deps.logger,
    // One line per request (in onResponse) instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,128}$/.test(given) ? given : randomUUID();
    },
    trustProxy: deps.trustProxy,
    bodyLimit: BODY_LIMIT,
    requestTimeout,
    // Our own server: cached short links that simply forward are answered before Fastify
    // (the hot path); everything else goes to Fastify's handler.
    serverFactory: (handler) => {
      const fast = deps.fastPath ?? (() => false);
      return createHttpServer(
        {
          // A client that trickles its request is cut off (408) instead of holding a socket.
          // Node checks only every connectionsCheckingInterval; headersTimeout must not exceed it.
          requestTimeout,
          headersTimeout: requestTimeout,
          connectionsCheckingInterval: Math.max(250, Math.min(1000, Math.ceil(requestTimeout / 4))),
          keepAliveTimeout: 72_000,
        },
        (req, res) => {
          // Once closing, everything goes through Fastify, which answers 503 with
          // `Connection: close`, so keep-alive visitors let the server finish closing.
          if (lifecycle.closing || !fast(req, res)) handler(req, res);
        },
      );
    },
    schemaController: { compilersFactory: { buildValidator: buildValidator as never, buildSerializer: buildSerializer as never } },
    routerOptions: { ignoreTrailingSlash: true },
    // Errors the router raises before any route runs still answer with the standard body.
    frameworkErrors: (error, request, reply) => {
      if (error.code === 'FST_ERR_MAX_PARAM_LENGTH' || !isApiPath(request.url)) return notFound(request, reply as never);
      void (reply as unknown as FastifyReply).status(400).send(errorBody(new AppError('bad_request', { detail: 'the request path is malformed' })));
    },
    // api.md General rule 1: `/links`, `/track/lead`… are the `/api/…` operations themselves.
    rewriteUrl: (req) => deps.rewriteUrl?.(req) ?? withApiPrefix(req.url ?? '/'),
  }).withTypeProvider<TypeBoxTypeProvider>();

  // JSON only: any other content type is a 400 rather than a body parsed as text.
  app.removeContentTypeParser('text/plain');
  registerJsonBody(app, BODY_LIMIT);
  app.addHook('preClose', async () => {
    lifecycle.closing = true;
  });
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFound);
  app.addSchema(ErrorBody);
  const routes: RouteOptions[] = [];
  routeTables.set(app, routes);
  app.addHook('onRoute', (route) => {
    if (route.bodyLimit === undefined && needsNoCredential(route)) route.bodyLimit = PUBLIC_BODY_LIMIT;
    describeRoute(route);
    routes.push(route);
  });
  app.addHook('onSend', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      {
        method: request.method,
        url: request.url.split('?')[0],
        statusCode: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
        workspaceId: request.principal?.workspace.id,
      },
      'request completed',
    );
  });
  await registerOpenApi(app, deps.baseUrl, deps.openApiWebhooks);
  registerGuides(app);

  app.addHook('preValidation', rejectUnstorableText);

  // A path no route serves reads no body: Fastify would parse it (under the 64 MB limit) before
  // its not-found handler runs. The answer comes first; a body still on its way closes the connection.
  app.addHook('onRequest', async (request, reply) => {
    if (!request.is404) return;
    closeIfBodyPending(request, reply as never);
    notFound(request, reply as never);
    return reply;
  });

  app.addHook('onRequest', authenticate(deps.auth));
  app.addHook('preHandler', authorizeWorkspaceRole(deps.roleOf));
  registerHeavyGate(app, new HeavyGate());

  app.get('/api/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    try {
      await deps.ping();
      return { status: 'ready' };
    } catch {
      return reply.status(503).send({ status: 'unavailable' });
    }
  });
  return app;
}
