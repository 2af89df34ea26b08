import { routesPlugin } from '../../http/types.js';
import { loadWebFiles, WEB_ROOT } from './files.js';

export interface DashboardDeps {
  baseUrl: string;
  shortLinkBaseUrl: string;
  /** Where the built dashboard is (default dist/web). */
  root?: string;
  /**
   * The origin of the app an OAuth consent goes back to, or undefined unless the app is known
   * and the redirect URI is one it registered (the consent page's form-action, below).
   */
  consentFormTarget?: (clientId: string, redirectUri: string) => Promise<string | undefined>;
}

// The dashboard needs nothing from another origin and runs no inline script (operations.md §10).
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

// Error answers outside /api are HTML pages, as the visitor side's are.
const page404 = (text: string) => `<!doctype html><html lang="en"><meta charset="utf-8"><title>Not found</title><h1>Not found</h1><p>${text}</p>\n`;
const NOT_BUILT = page404('The dashboard is not built: run <code>npm run build</code> (it makes dist/web).');
const NO_ASSET = page404('There is no such file.');

/**
 * The web application under /app: hashed assets cached for a year, every other /app path
 * answered with index.html (the client-side router reads the path), never cached. Files
 * are read once at start; without a build the pages answer 404 with a short HTML page.
 */
export const dashboardRoutes = routesPlugin<DashboardDeps>('dashboard', (app, d) => {
  const files = loadWebFiles(d.root ?? WEB_ROOT);
  const index = files.get('index.html');

  // Without a path of its own the short links own `/`; with the same origin, `/` is the dashboard's.
  if (d.shortLinkBaseUrl === d.baseUrl) {
    app.get('/', { schema: { hide: true } }, async (_req, reply) => reply.code(302).header('location', '/app').header('cache-control', 'no-cache').send());
  }

  const page = { schema: { hide: true }, logLevel: 'warn' } as const;
  app.get('/app', page, async (_req, reply) => {
    reply.header('content-security-policy', DASHBOARD_CSP).header('x-content-type-options', 'nosniff').header('referrer-policy', 'same-origin');
    if (!index) return reply.code(404).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(NOT_BUILT);
    return reply.header('cache-control', 'no-cache').type(index.type).send(index.body);
  });
  /**
   * The consent page's form (a real POST to /oauth/authorize) is answered by a redirect to the
   * app's callback, and browsers apply form-action to that redirect: the page may name the
   * callback's origin — taken from the registered URI, never from the request unchecked.
   */
  const consentCsp = async (query: unknown): Promise<string> => {
    const q = (query ?? {}) as Record<string, unknown>;
    if (!d.consentFormTarget || typeof q.client_id !== 'string' || typeof q.redirect_uri !== 'string') return DASHBOARD_CSP;
    const target = await d.consentFormTarget(q.client_id, q.redirect_uri);
    return target ? DASHBOARD_CSP.replace("form-action 'self'", `form-action 'self' ${target}`) : DASHBOARD_CSP;
  };

  app.get<{ Params: { '*': string } }>('/app/*', page, async (req, reply) => {
    const path = req.params['*'];
    const csp = path.replace(/\/+$/, '') === 'oauth/consent' ? await consentCsp(req.query) : DASHBOARD_CSP;
    reply.header('content-security-policy', csp).header('x-content-type-options', 'nosniff').header('referrer-policy', 'same-origin');
    if (path.startsWith('assets/')) {
      const file = files.get(path);
      if (!file) return reply.code(404).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(NO_ASSET);
      // Vite names every asset after its content's hash: a changed file is a new URL.
      return reply.header('cache-control', 'public, max-age=31536000, immutable').type(file.type).send(file.body);
    }
    if (!index) return reply.code(404).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(NOT_BUILT);
    return reply.header('cache-control', 'no-cache').type(index.type).send(index.body);
  });
});
