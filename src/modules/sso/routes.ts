import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { baseContext } from '../../core/context.js';
import { AppError, notFound } from '../../core/errors.js';
import type { Conn } from '../../db/connect.js';
import { adminGuard, rawHeaderValues, type RoleLookup } from '../../http/auth.js';
import { addSchemaOnce, ErrorBody, errorAnswer as err } from '../../http/schemas.js';
import { routesPlugin } from '../../http/types.js';
import { cookieValues, sessionCookie } from '../../http/cookies.js';
import { ssoConfirmPage, ssoErrorPage } from './pages.js';
import { AdminDomainParams, CallbackQuery, DomainParam, LinkBody, LinkStarted, SsoBody, SsoDomain, SsoSettings, StartQuery } from './schemas.js';
import { deleteSso, forceVerifySsoDomain, getSso, putSso, verifySsoDomain, type SsoDeps } from './service.js';
import { describeSsoStart, finishSsoSignIn, PENDING_TTL_MS, startSsoSignIn } from './sign-in.js';

export interface SsoRoutesDeps {
  db: Conn;
  clock: () => Date;
  sessionMaxMs: number;
  roleOf: RoleLookup;
  sso: SsoDeps;
}

const tags = ['Single sign-on'];
const page = (description: string) => ({ description, content: { 'text/html': { schema: Type.String() } } });
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SIGN_IN = '/app';

/** The browser's side of a sign-in (HttpOnly, 10 minutes; Lax so the provider's redirect back carries it). */
const cookieName = (baseUrl: string) => (baseUrl.startsWith('https:') ? '__Host-lt_sso' : 'lt_sso');
function ssoCookie(baseUrl: string, value: string, maxAgeMs: number): string {
  const secure = baseUrl.startsWith('https:') ? '; Secure' : '';
  return `${cookieName(baseUrl)}=${value}; Path=/; HttpOnly; SameSite=Lax${secure}; Max-Age=${Math.floor(maxAgeMs / 1000)}`;
}

/** The confirmation form is one or two short fields. */
const START_FORM_LIMIT = 4 * 1024;

/** workspace (an id) or email names the connection; anything else none. */
function startInput(q: { workspace?: string; email?: string }): { workspaceId: string } | { email: string } {
  if (q.workspace && UUID_RE.test(q.workspace)) return { workspaceId: q.workspace.toLowerCase() };
  if (q.email) return { email: q.email.trim() };
  throw new AppError('sso_unavailable');
}

/**
 * A form posted by this origin's own page: Sec-Fetch-Site says so, or — in a browser without
 * Fetch Metadata — the Origin header does (every browser sends it with a form post).
 */
function postedFromHere(req: FastifyRequest, origin: string): boolean {
  const site = req.headers['sec-fetch-site'];
  const from = req.headers.origin;
  if (site !== undefined) return site === 'same-origin' && (from === undefined || from === 'null' || from === origin);
  return from === origin;
}

const START_NOTE =
  "Login CSRF: a sign-in starts only from this service's own pages. A GET whose `Sec-Fetch-Site` is `same-origin` (the sign-in page's \"Sign in with SSO\") goes straight to the provider; any other GET — a link or redirect from another site, a URL typed or opened from an e-mail (`none`), a browser without Fetch Metadata — answers 200 with a page (English and Arabic) naming the workspace and its provider's host, whose one button posts the same `workspace` or `email` to POST /api/auth/sso from this origin. The page is never framed (CSP frame-ancestors 'none', X-Frame-Options DENY).";

const OWNER_NOTE =
  'Owner, with the session only (API keys and tokens cannot change who may sign in): the workspace is the one X-Workspace-Id names; a member or viewer gets 403 `owner_required`, someone else 404.';

/** OpenID Connect single sign-on per workspace (operations.md §15). */
export const ssoRoutes = routesPlugin<SsoRoutesDeps>('sso', (app, deps) => {
  addSchemaOnce(app, Type.Object(SsoDomain.properties, { $id: 'SsoDomain' }));
  addSchemaOnce(app, SsoSettings);
  const ctx = baseContext(deps);
  const settings = Type.Ref(SsoSettings);

  /** The workspace of X-Workspace-Id, which the signed-in person must own. */
  const ownedWorkspace = async (req: FastifyRequest): Promise<string> => {
    const named = rawHeaderValues(req, 'x-workspace-id');
    if (named.length === 0) throw new AppError('workspace_required');
    const id = named[0]!.trim().toLowerCase();
    const role = named.length === 1 && UUID_RE.test(id) ? await deps.roleOf(req.person!.userId, id) : undefined;
    if (role === undefined) throw notFound('workspace', id.slice(0, 100));
    if (role !== 'owner') throw new AppError('owner_required');
    return id;
  };
  const owner = { account: 'session' } as const;
  const ownerErrors = {
    400: err('Missing X-Workspace-Id, or a bad value'),
    403: err('Not an owner of the workspace'),
    404: err('Not a workspace of yours, or no connection'),
  };

  app.get(
    '/api/sso',
    {
      config: owner,
      schema: {
        operationId: 'getSso',
        tags,
        summary: 'The single sign-on connection',
        description: `Never the client secret. 404 \`sso_not_configured\` when there is none. ${OWNER_NOTE}`,
        response: { 200: settings, ...ownerErrors },
      },
    },
    async (req) => getSso({ ctx: ctx(req), input: { workspaceId: await ownedWorkspace(req) }, deps: deps.sso }),
  );

  app.put(
    '/api/sso',
    {
      config: owner,
      schema: {
        operationId: 'configureSso',
        tags,
        summary: 'Set up single sign-on',
        description: `Makes or replaces the workspace's OpenID Connect connection (one per workspace). The issuer's discovery document is read first, through the outbound guard: an issuer at a private address outside SSO_ALLOWED_CIDRS is 400 \`sso_issuer_blocked\`, one that does not answer as an OpenID provider of that exact issuer 400 \`sso_issuer_unreachable\`; nothing is saved then. The client secret is sealed with SECRET and never shown again (leave it out to keep it). Domains already verified stay verified; new ones wait for their TXT record (or the operator). ${OWNER_NOTE}`,
        body: SsoBody,
        response: { 200: settings, ...ownerErrors },
      },
    },
    async (req) => putSso({ ctx: ctx(req), input: { ...req.body, workspaceId: await ownedWorkspace(req) }, deps: deps.sso }),
  );

  app.delete(
    '/api/sso',
    {
      config: owner,
      schema: {
        operationId: 'removeSso',
        tags,
        summary: 'Remove single sign-on',
        description: `The connection, its domains and the identities it linked go; the people it made stay, with their memberships. ${OWNER_NOTE}`,
        response: { 204: Type.Null(), ...ownerErrors },
      },
    },
    async (req, reply) => {
      await deleteSso({ ctx: ctx(req), input: { workspaceId: await ownedWorkspace(req) } });
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/api/sso/domains/:domain/verify',
    {
      config: owner,
      schema: {
        operationId: 'verifySsoDomain',
        tags,
        summary: 'Verify a single sign-on domain by its TXT record',
        description: `Looks up the TXT record \`_linktrail.<domain>\` (the server's resolver, or DNS_SERVERS): holding the domain's \`txtValue\`, the domain is verified and admits sign-ins. Otherwise 400 \`sso_txt_missing\`, \`sso_txt_mismatch\` or \`sso_dns_failed\`; 400 \`sso_domain_taken\` when another workspace's connection verified it first. ${OWNER_NOTE}`,
        params: DomainParam,
        response: { 200: settings, ...ownerErrors },
      },
    },
    async (req) => verifySsoDomain({ ctx: ctx(req), input: { workspaceId: await ownedWorkspace(req), domain: req.params.domain }, deps: deps.sso }),
  );

  app.post(
    '/api/me/sso/link',
    {
      config: { account: 'session' },
      schema: {
        operationId: 'linkSsoIdentity',
        tags,
        summary: 'Link single sign-on to my account',
        description:
          "For a person whose e-mail already had an account when their workspace's provider first signed them in (that sign-in was refused with `sso_link_required`). Starts the same flow as GET /api/auth/sso in link mode: the answer is the provider's authorization URL (go there) and sets the lt_sso cookie; back at the callback, the identity is linked to this account — only if the provider signs in this account's own e-mail — and the membership is made if missing. 404 `sso_unavailable` when the workspace has no connection.",
        body: LinkBody,
        response: { 200: LinkStarted, 404: err('No single sign-on for that workspace'), 502: err('The identity provider cannot be reached') },
      },
    },
    async (req, reply) => {
      const started = await startSsoSignIn({ ctx: ctx(req), input: { workspaceId: req.body.workspaceId, linkUserId: req.person!.userId }, deps: deps.sso });
      return reply.header('set-cookie', ssoCookie(deps.sso.baseUrl, started.browserSecret, PENDING_TTL_MS)).send({ authorizationUrl: started.url });
    },
  );

  const showError = (reply: FastifyReply, e: unknown) => {
    if (!(e instanceof AppError)) throw e;
    const status =
      e.code === 'sso_provider_down'
        ? 502
        : ['sso_state_invalid', 'sso_unavailable', 'sso_cancelled', 'sso_callback_malformed'].includes(e.code) || !e.code.startsWith('sso_')
          ? 400
          : 403;
    return html(reply, e.code === 'cross_site_sign_in' ? 403 : status, ssoErrorPage(e, SIGN_IN));
  };
  const html = (reply: FastifyReply, status: number, body: string) =>
    reply
      .status(status)
      .header('cache-control', 'no-store')
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
      .header('x-frame-options', 'DENY')
      .type('text/html; charset=utf-8')
      .send(body);

  /** The pending sign-in and its lt_sso cookie, then 302 to the provider. */
  const toProvider = async (req: FastifyRequest, reply: FastifyReply, input: { workspaceId: string } | { email: string }) => {
    const started = await startSsoSignIn({ ctx: ctx(req), input, deps: deps.sso });
    return reply
      .status(302)
      .header('set-cookie', ssoCookie(deps.sso.baseUrl, started.browserSecret, PENDING_TTL_MS))
      .header('cache-control', 'no-store')
      .header('location', started.url)
      .send();
  };
  const origin = new URL(deps.sso.baseUrl).origin;

  app.get(
    '/api/auth/sso',
    {
      config: { public: true },
      // A browser navigation: even a malformed query gets a page, not JSON.
      attachValidation: true,
      schema: {
        operationId: 'startSsoSignIn',
        tags,
        summary: 'Sign in with single sign-on',
        description: `A browser navigation (the sign-in page's "Sign in with SSO"): \`workspace\` (its id) or \`email\` (a work e-mail whose verified domain names the workspace) → 302 to the provider's authorization endpoint (code flow, PKCE S256, \`state\`, \`nonce\`, scope \`openid email\`), with an HttpOnly lt_sso cookie binding this browser to the sign-in (10 minutes, single use; stored hashed in the database so any instance finishes it; the callback refuses a sign-in whose cookie this browser does not hold). ${START_NOTE} Problems are pages in English and Arabic, never JSON: 400 \`sso_unavailable\` (no connection for it), 502 \`sso_provider_down\`.`,
        querystring: StartQuery,
        security: [],
        response: {
          200: page('Started elsewhere than this service’s own pages: the confirmation page'),
          302: { description: 'To the identity provider', type: 'null' },
          400: page('No single sign-on for that workspace or e-mail'),
          502: page('The identity provider cannot be reached'),
        },
      },
    },
    async (req, reply) => {
      try {
        if (req.validationError) throw new AppError('sso_unavailable');
        const input = startInput(req.query);
        if (req.headers['sec-fetch-site'] === 'same-origin') return await toProvider(req, reply, input);
        const about = await describeSsoStart({ ctx: ctx(req), input });
        const [field, value] = 'workspaceId' in input ? (['workspace', input.workspaceId] as const) : (['email', input.email] as const);
        return html(reply, 200, ssoConfirmPage({ ...about, field, value, action: '/api/auth/sso', signInPath: SIGN_IN }));
      } catch (e) {
        return showError(reply, e);
      }
    },
  );

  // The confirmation page's button: its own context, which alone parses forms.
  app.register(async (forms) => {
    forms.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: START_FORM_LIMIT }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
    // A browser's form: even a body it cannot read (another type, too large) gets a page, not JSON.
    forms.setErrorHandler((err: { statusCode?: number }, _req, reply) =>
      err.statusCode === 413
        ? html(reply, 413, ssoErrorPage(new AppError('body_too_large'), SIGN_IN))
        : err instanceof AppError && err.code === 'publishable_key_elsewhere'
          ? html(reply, 401, ssoErrorPage(err, SIGN_IN))
          : html(reply, 400, ssoErrorPage(new AppError('sso_form_unreadable'), SIGN_IN)),
    );
    forms.withTypeProvider<TypeBoxTypeProvider>().post(
      '/api/auth/sso',
      {
        config: { public: true },
        bodyLimit: START_FORM_LIMIT,
        attachValidation: true,
        schema: {
          operationId: 'confirmSsoSignIn',
          tags,
          summary: 'Sign in with single sign-on, confirmed',
          description: `The button of the page GET /api/auth/sso shows when another site (or no page) started the sign-in: a form (application/x-www-form-urlencoded, at most 4 KB) with \`workspace\` or \`email\`, posted from this origin (\`Sec-Fetch-Site: same-origin\`, or without Fetch Metadata an \`Origin\` of BASE_URL) → 302 to the provider with the lt_sso cookie, as GET /api/auth/sso from the sign-in page. Posted by another site: the 403 page \`cross_site_sign_in\`. ${START_NOTE}`,
          body: StartQuery,
          consumes: ['application/x-www-form-urlencoded'],
          security: [],
          response: {
            302: { description: 'To the identity provider', type: 'null' },
            400: page('No single sign-on for that workspace or e-mail (`sso_unavailable`), or a body that is not such a form (`sso_form_unreadable`)'),
            401: page('A publishable key sent as a credential (publishable_key_elsewhere)'),
            403: page('Posted by a page of another site'),
            413: page('A body over 4 KB'),
            502: page('The identity provider cannot be reached'),
          },
        },
      },
      async (req, reply) => {
        try {
          if (!postedFromHere(req, origin)) throw new AppError('cross_site_sign_in');
          if (req.validationError) throw new AppError('sso_unavailable');
          return await toProvider(req, reply, startInput(req.body));
        } catch (e) {
          return showError(reply, e);
        }
      },
    );
  });

  app.get(
    '/api/auth/sso/callback',
    {
      config: { public: true },
      attachValidation: true,
      schema: {
        operationId: 'completeSsoSignIn',
        tags,
        summary: 'Single sign-on callback',
        description:
          "Where the provider sends the browser back (BASE_URL/api/auth/sso/callback, to register at the provider). The pending sign-in of `state` is taken (single use) and must belong to this browser (lt_sso); the code is exchanged with the PKCE verifier and the client secret; the ID token's signature (the provider's JWKS), issuer, audience, expiry and nonce are checked; `email_verified` must be true and the e-mail's domain a verified domain of the connection. The identity is (iss, sub) of that connection: known, its person is signed in; new, a person with that e-mail and a membership with the connection's role are made — unless an account has that e-mail already (403 page `sso_link_required`: that person signs in the usual way and links it, POST /api/me/sso/link). Success: the session cookie, as POST /api/auth/login sets it, and 302 to the dashboard. Sign-in through the provider does not ask for this service's second factor (the provider authenticated the person). A callback with `error=access_denied` (the person cancelled at the provider) is the 400 page `sso_cancelled`, one with neither `code` nor `error` the 400 page `sso_callback_malformed`; either still uses its pending sign-in up. Every refusal is a page in English and Arabic.",
        querystring: CallbackQuery,
        security: [],
        response: {
          302: { description: 'Signed in: to the dashboard', type: 'null' },
          400: page(
            'The sign-in expired, was used, or belongs to another browser (`sso_state_invalid`); was cancelled at the provider (`error=access_denied`: `sso_cancelled`); or the provider sent back neither a code nor an error (`sso_callback_malformed`)',
          ),
          403: page('Refused: the ID token, the e-mail or its domain, or an existing account'),
          502: page('The identity provider cannot be reached'),
        },
      },
    },
    async (req, reply) => {
      const clear = ssoCookie(deps.sso.baseUrl, '', 0);
      try {
        if (req.validationError) throw new AppError('sso_state_invalid');
        const query = new URLSearchParams(Object.entries(req.query).filter((e): e is [string, string] => typeof e[1] === 'string'));
        const browserSecret = cookieValues(req, cookieName(deps.sso.baseUrl))[0];
        const done = await finishSsoSignIn({
          ctx: ctx(req),
          input: { query, browserSecret, userAgent: req.headers['user-agent'], ip: req.ip },
          deps: deps.sso,
        });
        const to = done.mode === 'linked' ? `${SIGN_IN}/account?sso=linked` : SIGN_IN;
        return reply
          .status(302)
          .header('set-cookie', [sessionCookie(deps.sso.baseUrl, done.token, deps.sessionMaxMs), clear])
          .header('cache-control', 'no-store')
          .header('location', to)
          .send();
      } catch (e) {
        void reply.header('set-cookie', clear);
        return showError(reply, e);
      }
    },
  );
});

const adminErrors = { 400: Type.Ref(ErrorBody), 401: Type.Ref(ErrorBody), 404: Type.Ref(ErrorBody) };

/** The operator's side (prefix `/admin`; its own guard). */
export const ssoAdminRoutes = routesPlugin<{ db: Conn; clock: () => Date; adminToken: string; sso: Pick<SsoDeps, 'baseUrl'> }>(
  'sso-admin',
  (app, deps) => {
    const ctx = baseContext(deps);
    addSchemaOnce(app, Type.Object(SsoDomain.properties, { $id: 'SsoDomain' }));
    addSchemaOnce(app, SsoSettings);
    app.addHook('onRequest', adminGuard(deps.adminToken));
    app.post(
      '/workspaces/:id/sso/domains/:domain/verify',
      {
        schema: {
          operationId: 'adminVerifySsoDomain',
          tags: ['Operator'],
          security: [{ adminToken: [] }],
          summary: 'Verify a single sign-on domain without its TXT record',
          description:
            "The operator vouches for the domain: it admits sign-ins through the workspace's provider (400 `sso_domain_taken` when another workspace verified it first).",
          params: AdminDomainParams,
          response: { 200: Type.Ref(SsoSettings), ...adminErrors },
        },
      },
      async (req) => forceVerifySsoDomain({ ctx: ctx(req), input: { workspaceId: req.params.id, domain: req.params.domain }, deps: deps.sso }),
    );
  },
  { isolated: true },
);
