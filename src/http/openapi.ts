import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { errorResponses } from './schemas.js';

export const API_VERSION = '0.0.1';

const DESCRIPTION = `Linktrail: short links, click analytics and lead/sale attribution.

* Every /api operation needs an API key: \`Authorization: Bearer <key>\`, the bare key as the
  \`Authorization\` value, or \`X-API-Key: <key>\`. One credential per request.
* Errors: \`{ "error": { "en", "ar", "code" } }\`, plus \`missingScopes\` on 403 and
  \`retryAfter\` on 429 (with a \`Retry-After\` header).
* Rate limit: a sliding 60-second window per workspace, shared by all of its keys.
  Authenticated answers carry \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and
  \`X-RateLimit-Reset\` (Unix seconds at which the oldest counted request leaves the window).
* Lists are ordered by createdAt, ties by insertion order, so skip/take paging visits every
  record exactly once. Bulk writes are atomic: one bad item fails the request with 400 naming
  \`[index].field\`, and nothing is written.`;

export async function registerOpenApi(app: FastifyInstance, baseUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Linktrail API', version: API_VERSION, description: DESCRIPTION, license: { name: 'MIT', identifier: 'MIT' } },
      servers: [{ url: baseUrl }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'API key as a Bearer token (the bare key is also accepted)' },
          apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          adminToken: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN, for the operator API under /admin' },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });
}

/** Gives every scoped route its security requirement, scope note and standard error answers. */
export function describeScopedRoute(route: RouteOptions): void {
  const scope = route.config?.scope;
  if (!scope) return;
  const schema = (route.schema ??= {}) as Record<string, unknown>;
  schema.security = [{ bearerAuth: [] }, { apiKeyHeader: [] }];
  const note = `Scope: \`${scope}\`.`;
  // The automatic HEAD route shares its GET's schema object: add the note once.
  if (!String(schema.description ?? '').includes(note)) schema.description = [schema.description, note].filter(Boolean).join('\n\n');
  schema.response = { ...errorResponses, ...(schema.response as object | undefined) };
}
