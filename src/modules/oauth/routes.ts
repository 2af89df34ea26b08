import type { FastifyReply, FastifyRequest } from 'fastify';
import { baseContext } from '../../core/context.js';
import type { Conn } from '../../db/connect.js';
import { SCOPES } from '../../core/scopes.js';
import { routesPlugin } from '../../http/types.js';
import { clientSecretMatches, findClient } from '../oauth-apps/service.js';
import { isFirstParty } from '../../http/cookies.js';
import { authorizeErrorPage } from './pages.js';
import {
  authorizeTarget,
  checkAuthorizeParams,
  eligibleWorkspaces,
  exchangeCode,
  issueCode,
  OAuthError,
  refresh,
  revoke,
  type AuthorizeRequest,
  type Client,
} from './service.js';

export interface OauthRoutesDeps {
  db: Conn;
  baseUrl: string;
  clock: () => Date;
  authChanged: () => Promise<void>;
  /** The person signed in on this browser, read without the first-party rule (top-level navigations). */
  signedIn: (request: FastifyRequest, now: Date) => Promise<{ userId: string; sessionId: string } | undefined>;
}

type Params = Record<string, string | undefined>;

/** A form or query as single values; a parameter sent twice is an invalid request (RFC 6749 §3.1). */
function single(source: unknown): Params {
  if (!source || typeof source !== 'object') return {};
  const out: Params = {};
  for (const [k, v] of Object.entries(source as Record<string, unknown>)) {
    if (Array.isArray(v)) throw new OAuthError('invalid_request', `${k} is repeated`);
    if (typeof v === 'string') out[k] = v;
  }
  return out;
}

/**
 * The error page (the consent and sign-in pages are the dashboard's, /app/oauth/consent and
 * /app): no script, no frame, no form.
 */
const html = (reply: FastifyReply, status: number, body: string) =>
  reply
    .code(status)
    .header('cache-control', 'no-store')
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'none'; frame-ancestors 'none'")
    .header('x-frame-options', 'DENY')
    .type('text/html; charset=utf-8')
    .send(body);

/** Back to the app with an error (RFC 6749 §4.1.2.1). */
function redirectError(reply: FastifyReply, redirectUri: string, e: OAuthError, state: string | undefined) {
  const to = new URL(redirectUri);
  to.searchParams.set('error', e.error);
  to.searchParams.set('error_description', e.description);
  if (state !== undefined) to.searchParams.set('state', state);
  return reply.code(302).header('location', to.href).header('cache-control', 'no-store').send();
}

/** Forms are small; each form route declares it too, since a route's own limit would override its parser's. */
const FORM_LIMIT = 16 * 1024;

const AUTHORIZE_PARAMS = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method'] as const;

/** The OAuth 2.1 authorization server (operations.md §9). Isolated: it parses forms. */
export const oauthRoutes = routesPlugin<OauthRoutesDeps>(
  'oauth',
  (app, deps) => {
    const ctx = baseContext(deps);
    const origin = new URL(deps.baseUrl).origin;
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT }, (_req, body, done) => {
      const params = new URLSearchParams(body as string);
      const out: Record<string, string | string[]> = {};
      for (const [k, v] of params) out[k] = k in out ? [out[k] as string, v].flat() : v;
      done(null, out);
    });
    // Token and revocation answers are JSON errors of RFC 6749 §5.2, never the API's error body.
    app.setErrorHandler((err, _req, reply) => {
      const e =
        err instanceof OAuthError
          ? err
          : new OAuthError('invalid_request', (err as { statusCode?: number }).statusCode === 413 ? 'the body is too large' : 'the request could not be read');
      void reply.code(e.status).header('cache-control', 'no-store').header('pragma', 'no-cache').send({ error: e.error, error_description: e.description });
    });

    app.get('/.well-known/oauth-authorization-server', { schema: { hide: true } }, async (_req, reply) => {
      void reply.header('cache-control', 'public, max-age=3600');
      return {
        issuer: deps.baseUrl,
        authorization_endpoint: `${deps.baseUrl}/oauth/authorize`,
        token_endpoint: `${deps.baseUrl}/oauth/token`,
        revocation_endpoint: `${deps.baseUrl}/oauth/revoke`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        scopes_supported: [...SCOPES],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      };
    });

    const REFUSED = {
      unknown_client: 'The app is unknown (its client_id is not registered here).',
      unregistered_redirect_uri: 'The app asked to return to an address it has not registered.',
    };

    /** Parses an authorize request from a query or form: a page, a redirect with an error, or the checked request. */
    async function authorizeRequest(reply: FastifyReply, q: Params): Promise<AuthorizeRequest | undefined> {
      const known = await authorizeTarget({ ctx: ctx(undefined), input: { clientId: q.client_id, redirectUri: q.redirect_uri } });
      if ('refused' in known) {
        await html(reply, 400, authorizeErrorPage(REFUSED[known.refused]));
        return undefined;
      }
      try {
        return checkAuthorizeParams(known.client, known.redirectUri, q);
      } catch (e) {
        if (!(e instanceof OAuthError)) throw e;
        await redirectError(reply, known.redirectUri, e, q.state);
        return undefined;
      }
    }

    app.get('/oauth/authorize', { schema: { hide: true } }, async (req, reply) => {
      let q: Params;
      try {
        q = single(req.query);
      } catch {
        return html(reply, 400, authorizeErrorPage('A parameter of the request is repeated.'));
      }
      const request = await authorizeRequest(reply, q);
      if (!request) return reply;
      // The request again, from its parameters alone: percent-encoded ASCII, fit for a Location.
      const query = new URLSearchParams(AUTHORIZE_PARAMS.filter((k) => q[k] !== undefined).map((k): [string, string] => [k, q[k]!])).toString();
      const person = await deps.signedIn(req, deps.clock());
      // Not signed in: the dashboard's sign-in, which comes back here (checked again) after it.
      // Signed in: the dashboard's consent page, whose form posts to the route below.
      const to = person ? `/app/oauth/consent?${query}` : `/app?next=${encodeURIComponent(`/oauth/authorize?${query}`)}`;
      return reply.code(302).header('location', to).header('cache-control', 'no-store').send();
    });

    app.post('/oauth/authorize', { bodyLimit: FORM_LIMIT, schema: { hide: true } }, async (req, reply) => {
      // A consent is given only by this origin's own page: another site's form is refused.
      if (!isFirstParty(req, origin)) return html(reply, 403, authorizeErrorPage('The consent must come from this site.'));
      let q: Params;
      try {
        q = single(req.body);
      } catch {
        return html(reply, 400, authorizeErrorPage('A parameter of the request is repeated.'));
      }
      const request = await authorizeRequest(reply, q);
      if (!request) return reply;
      const now = deps.clock();
      const person = await deps.signedIn(req, now);
      if (!person) return html(reply, 401, authorizeErrorPage('You are not signed in any more; start again from the app.'));
      if (q.decision !== 'allow')
        return redirectError(reply, request.redirectUri, new OAuthError('access_denied', 'the user denied the request'), request.state);
      const allowed = await eligibleWorkspaces({ ctx: ctx(req, now), input: { userId: person.userId, scopes: request.scopes } });
      if (!q.workspaceId || !allowed.some((w) => w.id === q.workspaceId)) {
        return redirectError(reply, request.redirectUri, new OAuthError('access_denied', 'no workspace of the user allows these scopes'), request.state);
      }
      const code = await issueCode({ ctx: ctx(req, now), input: { request, userId: person.userId, workspaceId: q.workspaceId } });
      const to = new URL(request.redirectUri);
      to.searchParams.set('code', code);
      if (request.state !== undefined) to.searchParams.set('state', request.state);
      return reply.code(302).header('location', to.href).header('cache-control', 'no-store').send();
    });

    /** The client of a token or revocation request: Basic, client_secret_post, or a public client's client_id. */
    async function authenticateClient(req: FastifyRequest, body: Params): Promise<Client> {
      const header = req.headers.authorization;
      let id = body.client_id;
      let secret = body.client_secret;
      if (header !== undefined) {
        const m = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header);
        if (!m) throw new OAuthError('invalid_client', 'unsupported client authentication');
        if (secret !== undefined) throw new OAuthError('invalid_request', 'use one client authentication method');
        const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
        const colon = decoded.indexOf(':');
        const form = (s: string) => {
          try {
            return decodeURIComponent(s.replace(/\+/g, ' '));
          } catch {
            throw new OAuthError('invalid_client', 'malformed Basic credentials');
          }
        };
        if (colon < 0) throw new OAuthError('invalid_client', 'malformed Basic credentials');
        const basicId = form(decoded.slice(0, colon));
        if (id !== undefined && id !== basicId) throw new OAuthError('invalid_request', 'client_id differs from the authenticated client');
        id = basicId;
        secret = form(decoded.slice(colon + 1));
      }
      const client = id ? await findClient({ ctx: ctx(req), input: { clientId: id } }) : undefined;
      if (!client) throw new OAuthError('invalid_client', 'unknown client');
      if (client.confidential ? !(secret !== undefined && clientSecretMatches(client, secret)) : secret !== undefined) {
        throw new OAuthError('invalid_client', client.confidential ? 'wrong or missing client secret' : 'a public client has no secret');
      }
      return client;
    }

    app.post('/oauth/token', { bodyLimit: FORM_LIMIT, schema: { hide: true } }, async (req, reply) => {
      void reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      const body = single(req.body);
      let client: Client;
      try {
        client = await authenticateClient(req, body);
      } catch (e) {
        if (e instanceof OAuthError && e.error === 'invalid_client' && req.headers.authorization)
          void reply.header('www-authenticate', 'Basic realm="linktrail"');
        throw e;
      }
      const now = deps.clock();
      const tokenDeps = { authChanged: deps.authChanged };
      if (body.grant_type === 'authorization_code') {
        return exchangeCode({
          ctx: ctx(req, now),
          input: { client, code: body.code, redirectUri: body.redirect_uri, verifier: body.code_verifier },
          deps: tokenDeps,
        });
      }
      if (body.grant_type === 'refresh_token')
        return refresh({ ctx: ctx(req, now), input: { client, token: body.refresh_token, scope: body.scope }, deps: tokenDeps });
      throw new OAuthError(
        body.grant_type ? 'unsupported_grant_type' : 'invalid_request',
        body.grant_type ? `grant_type ${body.grant_type} is not supported` : 'grant_type is required',
      );
    });

    app.post('/oauth/revoke', { bodyLimit: FORM_LIMIT, schema: { hide: true } }, async (req, reply) => {
      const body = single(req.body);
      const client = await authenticateClient(req, body);
      await revoke({ ctx: ctx(req), input: { client, token: body.token }, deps: { authChanged: deps.authChanged } });
      return reply.code(200).header('cache-control', 'no-store').send();
    });
  },
  { isolated: true },
);
