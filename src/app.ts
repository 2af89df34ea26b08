import { createServer } from './http/server.js';
import type { App } from './http/types.js';
import type { ModuleParts, Wiring } from './wiring.js';

/** What buildApp adds to the shared dependencies: the request timeout (tests shorten it). */
export interface AppOptions {
  requestTimeoutMs?: number;
}

/**
 * The composition root of the HTTP side: the server's machinery given every module's credential
 * kinds and server parts, then every module's routes in the list's order, then the operator
 * routes under /admin when ADMIN_TOKEN is set.
 */
export async function buildApp(w: Wiring, parts: readonly ModuleParts[], o: AppOptions = {}): Promise<App> {
  const { config, clock } = w;
  const server = Object.assign({}, ...parts.map((p) => p.server ?? {})) as NonNullable<ModuleParts['server']>;
  // Every module's fast path, in the modules' order: the first that answers takes the request (each refuses others' requests by method or path at once).
  const fastPaths = parts.flatMap((p) => p.server?.fastPath ?? []);
  if (!server.notFoundPage) throw new Error('no module gives the not-found page (the redirect does)');
  const app = await createServer({
    baseUrl: config.baseUrl,
    trustProxy: config.trustProxy,
    logger: w.logger,
    requestTimeoutMs: o.requestTimeoutMs,
    fastPath: fastPaths.length <= 1 ? fastPaths[0] : (req, res) => fastPaths.some((answers) => answers(req, res)),
    rewriteUrl: server.rewriteUrl,
    notFoundPage: server.notFoundPage,
    ping: () => w.database.ping(),
    openApiWebhooks: server.openApiWebhooks,
    roleOf: w.roleOf,
    auth: {
      kinds: parts.flatMap((p) => p.credentials ?? []),
      limiter: w.limiter,
      clock,
      authEpochMoved: (epoch) => w.bus.observeAuthEpoch?.(epoch) ?? false,
      onAuthenticated: ({ actor }, now) => {
        if (actor.type === 'key') w.lastUsed.keys.touch(actor.keyId, now);
        else if (actor.type === 'user' && actor.tokenId) w.lastUsed.tokens.touch(actor.tokenId, now);
      },
    },
  });
  for (const p of parts) for (const routes of p.plugins ?? []) await routes.register(app);
  const { adminToken } = config;
  if (adminToken) for (const p of parts) for (const routes of p.admin?.({ prefix: '/admin', adminToken }) ?? []) await routes.register(app);
  return app;
}
