import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { requiredScopes } from './auth.js';
import { errorResponses } from './schemas.js';
import { SCOPE_GUIDE } from '../core/scope-guide.js';
import { SCOPES } from '../core/scopes.js';
import { HEAVY_REQUESTS_DESCRIPTION } from './heavy-requests.js';

export const API_VERSION = '0.0.1';

/** The introduction of the API, in Markdown: shown at the top of /docs and carried by generated clients. */
const DESCRIPTION = `Linktrail: short links, click analytics and lead/sale attribution.

## Credentials

Every \`/api\` operation except \`/api/qr\`, sign-in and setup (and this document) needs one credential:

* an **API key** of a workspace (\`lt_\` + 43 characters), made by an owner in the workspace settings
  (\`POST /api/workspaces/{id}/keys\`) or by the operator (\`linktrail key create\`); its secret is shown once;
* a **human token** (\`ltp_\` + 43 characters), a person's token for one workspace (\`POST /api/me/tokens\`),
  acting with its scopes ∩ the person's current role;
* an **OAuth access token** (\`lto_\` + 43 characters) of an app a person connected to a workspace (authorization
  code with PKCE S256; metadata at \`/.well-known/oauth-authorization-server\`), acting there with the granted scopes ∩
  the app's scopes ∩ the person's current role; it lives an hour, its refresh token rotates;
* the **session cookie** of a signed-in person (\`POST /api/auth/login\`), for the dashboard: it counts only on
  requests from this server's own origin (another \`Origin\`, or \`Sec-Fetch-Site: cross-site\`, is no
  credential), and on workspace operations the request names its workspace with \`X-Workspace-Id\` (missing:
  400 \`workspace_required\`; one the person is not a member of: 401 \`not_a_member\`); its scopes are the role's.

Keys and tokens go in one of three forms: \`Authorization: Bearer <key>\`, the bare key as the
\`Authorization\` value, or \`X-API-Key: <key>\`. Send **one credential per request**: two different keys,
a key with the cookie, a repeated header or a comma-separated list is a 401 \`credential_conflict\` (the same
key in both headers counts as one). A missing, malformed, unknown, revoked or expired credential is a 401
(\`credential_missing\`, \`credential_malformed\`, \`credential_invalid\`, \`credential_revoked\`,
\`credential_expired\`); revocation, role changes and removals hold from the next request on, on every instance.
Account and settings operations (tagged Account and Workspace settings) take the session only — no key or token
can mint another — except \`GET /api/me\`, which also takes a human token.

Roles: \`owner\` (all fourteen scopes and the settings), \`member\` (the twelve scopes of the API, not the two
webhook scopes), \`viewer\` (the six read scopes). An owner-only operation answers anyone else 403 \`owner_required\`.

The operator API under \`/admin\` takes the server's \`ADMIN_TOKEN\` instead, as
\`Authorization: Bearer <token>\`; it answers 404 when no token is configured.

## Scopes

A key or token holds a set of scopes, each independent of the others (a write scope does not grant the
matching read). A valid key without a scope an operation needs gets a 403 whose
\`missingScopes\` names every one it lacks; each operation below says its scope (or, for the few
that need several, all of them).

| Scope | Allows |
|---|---|
${SCOPES.map((s) => `| \`${s}\` | ${SCOPE_GUIDE[s]} |`).join('\n')}

## Rate limits

A sliding 60-second window per workspace, shared by all of its keys; the size depends on the
plan. Every authenticated answer carries \`X-RateLimit-Limit\` (requests per window),
\`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` (Unix seconds at which the oldest counted
request leaves the window). Beyond the limit: 429 with a \`Retry-After\` header (seconds) and
\`retryAfter\` in the body.

${HEAVY_REQUESTS_DESCRIPTION}

## Errors

Every error has the same body, with the message in English (\`"en"\`) and Arabic (\`"ar"\`) and a
stable \`code\` for programs:

\`\`\`json
{ "error": { "en": "Invalid name: is required.", "ar": "قيمة غير صالحة في name: حقل مطلوب.", "code": "invalid_field" } }
\`\`\`

400 for invalid input (the message names the field, \`[index].field\` in bulk bodies; a
\`too_many_items\` body also carries \`limit\`, the most items the workspace takes per request), 401 for
credentials, 403 with \`missingScopes\`, 404, 413 for a body over the limit, 429 with
\`retryAfter\` (\`rate_limited\`, \`heavy_requests_busy\`), 500 (details only in the server log), and 503 with
\`Retry-After\` while the database is unavailable (\`unavailable\`) or when one request's statement ran too long
(\`query_timeout\`).

## Lists and bulk writes

Lists are ordered by createdAt, ties by insertion order, so skip/take paging visits every record
exactly once. Bulk writes are atomic: one bad item fails the request with 400 naming
\`[index].field\`, and nothing is written. Properties the API does not know are ignored.

## Guides

The product's own guides, served by this server as plain text ([all of them](/docs/guides)):
[running and testing on your own machine](/docs/guides/local-testing.md) (webhooks to localhost, Stripe),
[moving links in and out](/docs/guides/imports.md) (imports, exports, the domains of old short links) and
[deployment](/docs/guides/deploy.md).`;

/** A tiny mark for the browser tab, so /docs shows neither Swagger's nor Fastify's. */
const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1f3a5f"/><path d="M10 7v18h12" fill="none" stroke="#fff" stroke-width="4" stroke-linecap="round" stroke-linejoin="round"/></svg>`;

/**
 * /docs loads only this origin's files: Swagger UI's own bundle, no validator badge, no CDN or
 * font, no inline script or style element (test/e2e/docs.test.ts renders it under this policy).
 * connect-src also names BASE_URL, where "Try it out" sends its requests.
 */
function docsCsp(baseUrl: string): string {
  const origin = new URL(baseUrl).origin;
  return [
    "default-src 'self'",
    "base-uri 'self'",
    `connect-src 'self' ${origin}`,
    "font-src 'self' data:",
    "form-action 'self'",
    "frame-ancestors 'self'",
    "img-src 'self' data:",
    "object-src 'none'",
    "script-src 'self'",
    "script-src-attr 'none'",
    "style-src 'self'",
  ].join('; ');
}

export async function registerOpenApi(app: FastifyInstance, baseUrl: string, webhooks?: Record<string, unknown>): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Linktrail API', version: API_VERSION, description: DESCRIPTION, license: { name: 'MIT', identifier: 'MIT' } },
      servers: [{ url: baseUrl }],
      ...(webhooks ? { webhooks } : {}),
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'API key (`lt_…`) as a Bearer token (the bare key is also accepted)' },
          apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'API key or human token in its own header' },
          humanToken: {
            type: 'http',
            scheme: 'bearer',
            description:
              "A person's token (`ltp_…`, made at POST /api/me/tokens), sent like an API key; it acts in its workspace with its scopes ∩ the person's current role",
          },
          oauth2: {
            type: 'oauth2',
            description:
              "An app connected by a person: authorization code with PKCE (S256). Its access token (`lto_…`) is sent like an API key and acts in the consented workspace with the granted scopes ∩ the person's current role. Metadata: /.well-known/oauth-authorization-server",
            flows: {
              authorizationCode: {
                authorizationUrl: `${baseUrl}/oauth/authorize`,
                tokenUrl: `${baseUrl}/oauth/token`,
                refreshUrl: `${baseUrl}/oauth/token`,
                scopes: Object.fromEntries(SCOPES.map((s) => [s, SCOPE_GUIDE[s]])),
              },
            },
          },
          sessionCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: baseUrl.startsWith('https:') ? '__Host-lt_session' : 'lt_session',
            description:
              "The dashboard's session (POST /api/auth/login). Counted only on first-party requests: an Origin other than this server's, or a Sec-Fetch-Site other than same-origin or none (cross-site, and same-site too: a sibling subdomain is another site's code), makes it no credential. On workspace routes the request names its workspace in X-Workspace-Id",
          },
          adminToken: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN, for the operator API under /admin' },
          embedToken: {
            type: 'http',
            scheme: 'bearer',
            description:
              "A partner's embedded page token (`lte_…`, made at POST /api/embed-tokens): a credential of the embedded referral page's operations only",
          },
          publishableKey: {
            type: 'http',
            scheme: 'bearer',
            description:
              "A workspace's publishable key (`lt_pk_…`, GET /api/tracking), public by design: only the browser-tracking operations take it, from a page of an allowed hostname; anywhere else it is a 401 publishable_key_elsewhere",
          },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // BaseLayout: no top bar, so neither a Fastify logo nor a box that loads documents from elsewhere.
    uiConfig: { docExpansion: 'list', deepLinking: true, layout: 'BaseLayout', displayOperationId: true },
    // null means no logo at all (the types only know a logo or undefined, which embeds Fastify's).
    logo: null as never,
    validatorUrl: false,
    theme: {
      title: 'Linktrail API',
      favicon: [{ filename: 'favicon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: FAVICON }],
    },
    staticCSP: docsCsp(baseUrl),
  });
}

/** Answered on every authenticated operation (src/http/auth.ts counts each request). */
const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': {
    type: 'integer',
    description: "Requests allowed in the sliding 60-second window (the workspace's plan; account operations: per person)",
  },
  'X-RateLimit-Remaining': { type: 'integer', description: 'Requests left in the window' },
  'X-RateLimit-Reset': { type: 'integer', description: 'Unix seconds at which the oldest counted request leaves the window' },
};
const RETRY_AFTER_HEADER = { 'Retry-After': { type: 'integer', description: 'Seconds to wait before trying again' } };

type ResponseSchemas = Record<string, object>;

/** A response entry with these headers added (new objects: entries such as errorResponses are shared). */
function withHeaders(entry: object, headers: Record<string, unknown>): object {
  const own = (entry as { headers?: Record<string, unknown> }).headers;
  return { ...entry, headers: { ...headers, ...own } };
}

/**
 * Every operation's contract, made once here rather than in each route: its security and scope
 * note, the failures any route of its kind can answer (a body can be malformed or too large,
 * the database can be away), the rate-limit headers of authenticated answers and Retry-After
 * on 429 and 503.
 */
export function describeRoute(route: RouteOptions): void {
  if ((route.schema as { hide?: boolean } | undefined)?.hide) return;
  const methods = ([] as string[]).concat(route.method);
  if (methods.every((m) => m === 'HEAD')) return;
  const schema = (route.schema ??= {}) as Record<string, unknown>;
  // The automatic HEAD route shares its GET's schema object: describe it once.
  if ((schema as { [DESCRIBED]?: boolean })[DESCRIBED]) return;
  Object.defineProperty(schema, DESCRIBED, { value: true });
  const authenticated = describeCredentials(route, schema);
  const takesInput = Boolean(schema.body || schema.querystring || schema.params) || methods.some((m) => m !== 'GET' && m !== 'DELETE');
  const general: ResponseSchemas = {
    // A route that takes no credential still refuses a publishable key (http/auth.ts).
    ...(authenticated
      ? {}
      : {
          401: {
            ...errorResponses[401],
            description: 'publishable_key_elsewhere: a publishable key (lt_pk_…) was sent, which only the browser-tracking operations take',
          },
        }),
    ...(takesInput ? { 400: errorResponses[400] } : {}),
    ...(route.url.includes(':') ? { 404: errorResponses[404] } : {}),
    ...(methods.some((m) => m === 'POST' || m === 'PUT' || m === 'PATCH') ? { 413: errorResponses[413] } : {}),
    500: errorResponses[500],
    503: errorResponses[503],
  };
  const response: ResponseSchemas = { ...general, ...(schema.response as ResponseSchemas | undefined) };
  for (const [status, entry] of Object.entries(response)) {
    const retry = status === '429' || status === '503' ? RETRY_AFTER_HEADER : {};
    // A 401 carries them too when a credential counted was revoked meanwhile (resolved again).
    const limits = authenticated ? RATE_LIMIT_HEADERS : {};
    response[status] = withHeaders(entry, { ...limits, ...retry });
  }
  schema.response = response;
}

const DESCRIBED = Symbol('described');

/** Security requirement, scope note and credential failures; true when the route is rate-limited. */
function describeCredentials(route: RouteOptions, schema: Record<string, unknown>): boolean {
  const { scope, account, sessionOnly, publishableKey } = route.config ?? {};
  // The browser-tracking routes check their publishable key themselves, and count it in their own window.
  if (publishableKey) {
    schema.response = { 401: errorResponses[401], 403: errorResponses[403], 429: errorResponses[429], ...(schema.response as object | undefined) };
    return true;
  }
  if (account) {
    schema.security =
      account === 'person' ? [{ sessionCookie: [] }, { humanToken: [] }] : account === 'optional' ? [{}, { sessionCookie: [] }] : [{ sessionCookie: [] }];
    // A workspace's settings: another role than the one needed is 403 (owner_required, or mfa_required).
    const role = route.config?.workspaceRole
      ? {
          403: {
            ...errorResponses[403],
            description: 'Not allowed for your role here (owner_required), or the workspace requires two-factor sign-in (mfa_required)',
          },
        }
      : {};
    schema.response = { 401: errorResponses[401], ...role, 429: errorResponses[429], ...(schema.response as object | undefined) };
    return true;
  }
  const scopes = requiredScopes(scope);
  if (!scopes.length) return false;
  schema.security = sessionOnly
    ? [{ sessionCookie: [] }]
    : [{ bearerAuth: [] }, { apiKeyHeader: [] }, { humanToken: [] }, { oauth2: [...scopes] }, { sessionCookie: [] }];
  const named = scopes.map((s) => `\`${s}\``).join(', ');
  const note = scopes.length === 1 ? `Scope: ${named}.` : `Scopes (all required): ${named}.`;
  schema.description = [schema.description, note].filter(Boolean).join('\n\n');
  // 400 even without input: a session request must name its workspace (workspace_required).
  schema.response = {
    400: errorResponses[400],
    401: errorResponses[401],
    403: errorResponses[403],
    429: errorResponses[429],
    ...(schema.response as object | undefined),
  };
  return true;
}
