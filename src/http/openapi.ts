import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { requiredScopes } from './auth.js';
import { errorResponses } from './schemas.js';
import { SCOPE_GUIDE } from '../core/scope-guide.js';
import { SCOPES } from '../core/scopes.js';

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

Roles: \`owner\` (all fourteen scopes and the settings), \`member\` (the twelve scopes of api.md, not the two
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

## Errors

Every error has the same body, with the message in English (\`"en"\`) and Arabic (\`"ar"\`) and a
stable \`code\` for programs:

\`\`\`json
{ "error": { "en": "Invalid name: is required.", "ar": "قيمة غير صالحة في name: حقل مطلوب.", "code": "invalid_field" } }
\`\`\`

400 for invalid input (the message names the field, \`[index].field\` in bulk bodies), 401 for
credentials, 403 with \`missingScopes\`, 404, 413 for a body over the limit, 429 with
\`retryAfter\`, 500 (details only in the server log) and 503 while the database is unavailable.

## Lists and bulk writes

Lists are ordered by createdAt, ties by insertion order, so skip/take paging visits every record
exactly once. Bulk writes are atomic: one bad item fails the request with 400 naming
\`[index].field\`, and nothing is written. Properties the API does not know are ignored.`;

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
            description: "A person's token (`ltp_…`, made at POST /api/me/tokens), sent like an API key; it acts in its workspace with its scopes ∩ the person's current role",
          },
          oauth2: {
            type: 'oauth2',
            description: 'An app connected by a person (operations.md §9): authorization code with PKCE (S256). Its access token (`lto_…`) is sent like an API key and acts in the consented workspace with the granted scopes ∩ the person\'s current role. Metadata: /.well-known/oauth-authorization-server',
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
        },
      },
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // BaseLayout: no top bar, so neither a Fastify logo nor a box that loads documents from elsewhere.
    uiConfig: { docExpansion: 'list', deepLinking: true, layout: 'BaseLayout' },
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

/** Gives every scoped route its security requirement, scope note (each scope it needs) and standard error answers. */
export function describeScopedRoute(route: RouteOptions): void {
  const { scope, account } = route.config ?? {};
  if (account) {
    const schema = (route.schema ??= {}) as Record<string, unknown>;
    schema.security = account === 'person' ? [{ sessionCookie: [] }, { humanToken: [] }] : account === 'optional' ? [{}, { sessionCookie: [] }] : [{ sessionCookie: [] }];
    schema.response = { 401: errorResponses[401], 429: errorResponses[429], 500: errorResponses[500], ...(schema.response as object | undefined) };
    return;
  }
  const scopes = requiredScopes(scope);
  if (!scopes.length) return;
  const schema = (route.schema ??= {}) as Record<string, unknown>;
  schema.security = [{ bearerAuth: [] }, { apiKeyHeader: [] }, { humanToken: [] }, { oauth2: [...scopes] }, { sessionCookie: [] }];
  const named = scopes.map((s) => `\`${s}\``).join(', ');
  const note = scopes.length === 1 ? `Scope: ${named}.` : `Scopes (all required): ${named}.`;
  // The automatic HEAD route shares its GET's schema object: add the note once.
  if (!String(schema.description ?? '').includes(note)) schema.description = [schema.description, note].filter(Boolean).join('\n\n');
  schema.response = { ...errorResponses, ...(schema.response as object | undefined) };
}
