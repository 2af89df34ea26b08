import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requiredScopes } from '../../src/http/auth.js';
import { routeTable } from '../../src/http/server.js';
import { SCOPE_GUIDE } from '../../src/core/scope-guide.js';
import { SCOPES } from '../../src/core/scopes.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

/** api.md "Versioning" and operations.md §1: the OpenAPI 3.1 document and the docs page. */
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t?.close();
});

interface Operation {
  security?: Record<string, string[]>[];
  responses?: Record<string, { $ref?: string; content?: Record<string, { schema?: { $ref?: string } }> }>;
  parameters?: { in: string; name: string; required?: boolean }[];
  description?: string;
}

interface OpenApiDoc {
  openapi: string;
  info: { version: string; title: string; description?: string };
  paths: Record<string, Record<string, Operation>>;
  components: {
    securitySchemes: Record<string, { type: string; scheme?: string; in?: string; name?: string }>;
    schemas: Record<string, { type?: string; properties?: Record<string, { type?: string; properties?: Record<string, unknown> }> }>;
  };
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

async function fetchDoc(): Promise<OpenApiDoc> {
  const res = await t.inject({ method: 'GET', url: '/api/openapi.json' });
  expect(res.statusCode).toBe(200);
  return res.json<OpenApiDoc>();
}

/** The /api operations of the document that need a key (public routes of the app excluded). */
async function scopedOperations(o: { sessionOnly?: boolean } = {}): Promise<{ path: string; method: string; op: Operation; scopes: readonly string[] }[]> {
  const doc = await fetchDoc();
  const scopesOf = new Map<string, readonly string[]>();
  for (const r of routeTable(t.runtime.app)) {
    const scopes = requiredScopes(r.config?.scope);
    if (!scopes.length || (r.config?.sessionOnly === true) !== (o.sessionOnly ?? false)) continue;
    const path = (r.url ?? '').replace(/:([A-Za-z_]\w*)/g, '{$1}');
    for (const m of Array.isArray(r.method) ? r.method : [r.method]) scopesOf.set(`${String(m).toLowerCase()} ${path}`, scopes);
  }
  const out: { path: string; method: string; op: Operation; scopes: readonly string[] }[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!path.startsWith('/api/')) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const scopes = scopesOf.get(`${method} ${path}`);
      if (scopes) out.push({ path, method, op, scopes });
    }
  }
  return out;
}

describe('GET /api/openapi.json', () => {
  it('answers without a credential, as JSON', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/openapi.json' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });

  it('is an OpenAPI 3.1 document with version 0.0.1', async () => {
    const doc = await fetchDoc();
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info.version).toBe('0.0.1');
    expect(doc.info.title.trim()).not.toBe('');
  });

  it('passes the OpenAPI schema validator, and all its references resolve', async () => {
    const doc = await fetchDoc();
    const validator = new Validator();
    const result = await validator.validate(doc as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(() => validator.resolveRefs()).not.toThrow();
  });

  it('declares a bearer scheme and an X-API-Key header scheme', async () => {
    const { securitySchemes } = (await fetchDoc()).components;
    const schemes = Object.values(securitySchemes);
    expect(schemes.some((s) => s.type === 'http' && s.scheme?.toLowerCase() === 'bearer')).toBe(true);
    expect(schemes.some((s) => s.type === 'apiKey' && s.in === 'header' && s.name?.toLowerCase() === 'x-api-key')).toBe(true);
  });

  it('has the ErrorBody schema: error {en, ar, code}, missingScopes, retryAfter', async () => {
    const { schemas } = (await fetchDoc()).components;
    const errorBody = schemas.ErrorBody;
    expect(errorBody).toBeDefined();
    const props = errorBody!.properties!;
    expect(Object.keys(props.error!.properties ?? {})).toEqual(expect.arrayContaining(['en', 'ar', 'code']));
    expect(props.missingScopes).toBeDefined();
    expect(props.retryAfter).toBeDefined();
  });

  it('documents every scoped /api route the app serves', async () => {
    const doc = await fetchDoc();
    const missing: string[] = [];
    for (const r of routeTable(t.runtime.app)) {
      if (!requiredScopes(r.config?.scope).length) continue;
      const path = (r.url ?? '').replace(/:([A-Za-z_]\w*)/g, '{$1}');
      for (const m of Array.isArray(r.method) ? r.method : [r.method]) {
        const method = String(m).toLowerCase();
        if (method === 'head') continue;
        if (!doc.paths[path]?.[method]) missing.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('gives every /api operation a key security requirement and the 400/401/403/429/500 answers', async () => {
    const doc = await fetchDoc();
    const ops = await scopedOperations();
    expect(ops.length).toBeGreaterThan(0);
    const problems: string[] = [];
    for (const { path, method, op } of ops) {
      const where = `${method.toUpperCase()} ${path}`;
      if (!op.security?.length) problems.push(`${where}: no security`);
      for (const requirement of op.security ?? []) {
        for (const name of Object.keys(requirement)) if (!doc.components.securitySchemes[name]) problems.push(`${where}: unknown scheme ${name}`);
      }
      for (const status of ['400', '401', '403', '429', '500']) {
        const response = op.responses?.[status];
        if (!response) {
          problems.push(`${where}: no ${status}`);
          continue;
        }
        const ref = response.$ref ?? response.content?.['application/json']?.schema?.$ref;
        if (ref !== '#/components/schemas/ErrorBody' && !(response.$ref ?? '').startsWith('#/components/responses/')) {
          problems.push(`${where}: ${status} is not the ErrorBody`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('names every operation with a unique operationId (generated clients and the SDK use them)', async () => {
    const doc = await fetchDoc();
    const seen = new Map<string, string>();
    const problems: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of METHODS) {
        const op = item[method] as (Operation & { operationId?: string }) | undefined;
        if (!op) continue;
        const where = `${method.toUpperCase()} ${path}`;
        if (!op.operationId || !/^[a-z][A-Za-z]+$/.test(op.operationId)) problems.push(`${where}: operationId ${op.operationId}`);
        else if (seen.has(op.operationId)) problems.push(`${where}: ${op.operationId} also names ${seen.get(op.operationId)}`);
        else seen.set(op.operationId, where);
      }
    }
    expect(problems).toEqual([]);
    expect(seen.get('listLinks')).toBe('GET /api/links');
    expect(seen.get('trackSale')).toBe('POST /api/track/sale');
  });

  it('declares the rate-limit headers on every answer of an authenticated operation (a 401 too: a credential revoked after it was counted), and Retry-After on its 429 and 503', async () => {
    const problems: string[] = [];
    for (const { path, method, op } of await scopedOperations()) {
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        const headers = Object.keys((response as { headers?: object }).headers ?? {});
        const expected = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', ...(status === '429' || status === '503' ? ['Retry-After'] : [])];
        for (const h of expected) if (!headers.includes(h)) problems.push(`${method.toUpperCase()} ${path} ${status}: no ${h}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('offers the oauth2 scheme (authorization code with PKCE endpoints, the fourteen scopes) on each /api operation, asking for the scopes it needs', async () => {
    const doc = await fetchDoc();
    const scheme = doc.components.securitySchemes.oauth2 as unknown as {
      type: string;
      flows: { authorizationCode: { authorizationUrl: string; tokenUrl: string; scopes: Record<string, string> } };
    };
    expect(scheme.type).toBe('oauth2');
    expect(scheme.flows.authorizationCode.authorizationUrl).toBe('https://lt.test/oauth/authorize');
    expect(scheme.flows.authorizationCode.tokenUrl).toBe('https://lt.test/oauth/token');
    expect(Object.keys(scheme.flows.authorizationCode.scopes).sort()).toEqual([...SCOPES].sort());
    for (const { path, method, op, scopes } of await scopedOperations()) {
      expect(op.security, `${method} ${path}`).toContainEqual({ oauth2: scopes });
    }
  });

  it('offers only the session cookie on the scoped operations only a session may call (sessionOnly)', async () => {
    const only = await scopedOperations({ sessionOnly: true });
    expect(only.map(({ method, path }) => `${method} ${path}`)).toEqual(
      expect.arrayContaining(['post /api/integrations/stripe', 'delete /api/integrations/stripe']),
    );
    for (const { path, method, op } of only) expect(op.security, `${method} ${path}`).toEqual([{ sessionCookie: [] }]);
  });

  it('lets each /api operation be called with either the bearer or the X-API-Key scheme', async () => {
    const doc = await fetchDoc();
    const bearerNames = Object.entries(doc.components.securitySchemes)
      .filter(([, s]) => s.type === 'http' && s.scheme?.toLowerCase() === 'bearer')
      .map(([n]) => n);
    const apiKeyNames = Object.entries(doc.components.securitySchemes)
      .filter(([, s]) => s.type === 'apiKey' && s.name?.toLowerCase() === 'x-api-key')
      .map(([n]) => n);
    for (const { path, method, op } of await scopedOperations()) {
      const names = (op.security ?? []).flatMap((r) => Object.keys(r));
      expect(
        names.some((n) => bearerNames.includes(n)),
        `${method} ${path}`,
      ).toBe(true);
      expect(
        names.some((n) => apiKeyNames.includes(n)),
        `${method} ${path}`,
      ).toBe(true);
    }
  });

  it('names each scope an /api operation needs, once', async () => {
    for (const { path, method, op, scopes } of await scopedOperations()) {
      for (const scope of scopes) {
        expect((SCOPES as readonly string[]).includes(scope)).toBe(true);
        const mentions = (op.description ?? '').split(scope).length - 1;
        expect(mentions, `${method.toUpperCase()} ${path} ${scope}: ${JSON.stringify(op.description)}`).toBe(1);
      }
    }
  });

  it('marks the common list parameters (id, take, skip, sort) as optional', async () => {
    const wrong: string[] = [];
    let seen = 0;
    for (const { path, method, op } of await scopedOperations()) {
      for (const p of op.parameters ?? []) {
        if (p.in !== 'query' || !['id', 'take', 'skip', 'sort'].includes(p.name)) continue;
        seen++;
        if (p.required === true) wrong.push(`${method.toUpperCase()} ${path} ?${p.name}`);
      }
    }
    expect(seen).toBeGreaterThan(0);
    expect(wrong).toEqual([]);
  });
});

describe('GET /docs', () => {
  it('answers 200 with an HTML page', async () => {
    const res = await t.inject({ method: 'GET', url: '/docs' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toMatch(/<html/i);
  });

  /** The page, under both of its addresses, and every file it links to. */
  async function docsFiles(): Promise<{ url: string; body: string; headers: Record<string, unknown> }[]> {
    const files: { url: string; body: string; headers: Record<string, unknown> }[] = [];
    for (const page of ['/docs', '/docs/']) {
      const res = await t.inject({ method: 'GET', url: page });
      files.push({ url: page, body: res.body, headers: res.headers });
      for (const [, ref] of res.body.matchAll(/\b(?:src|href)="([^"]*)"/g)) {
        const url = new URL(ref!, `https://lt.test${page}`);
        expect(url.origin, `${page} links to ${ref}`).toBe('https://lt.test');
        const linked = await t.inject({ method: 'GET', url: url.pathname });
        expect(linked.statusCode, url.pathname).toBe(200);
        files.push({ url: url.pathname, body: linked.body, headers: linked.headers });
      }
    }
    return files;
  }

  it('is titled Linktrail API, not Swagger UI', async () => {
    for (const page of ['/docs', '/docs/']) {
      const html = (await t.inject({ method: 'GET', url: page })).body;
      expect(html).toMatch(/<title>Linktrail API<\/title>/);
      expect(html).not.toMatch(/Swagger UI|favicon-(16|32)x/);
    }
  });

  it('loads nothing from another origin: the page, its initializer and its styles name no other origin', async () => {
    const files = await docsFiles();
    const names = files.map((f) => f.url);
    expect(names).toContain('/docs/static/swagger-initializer.js');
    for (const { url, body } of files) {
      if (url.endsWith('.html') || url === '/docs' || url === '/docs/') {
        expect(body, url).not.toMatch(/https?:\/\/|\/\/[a-z]/i);
      } else if (url.endsWith('swagger-initializer.js')) {
        // Code only: a comment naming a web page loads nothing.
        const code = body.replace(/^\s*\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
        expect(code, url).not.toMatch(/https?:\/\//);
        expect(code).toMatch(/validatorUrl: null/);
        // No Fastify logo swapped into a top bar.
        expect(code).not.toMatch(/data:image|img\.src/);
      } else if (url.endsWith('.css')) {
        for (const [, ref] of body.matchAll(/url\(\s*["']?([^"')]*)/g)) expect(ref, `${url}: url(${ref})`).toMatch(/^(data:|\.{0,2}\/?[\w./-]+$)/);
        expect(body, url).not.toMatch(/@import/);
      }
    }
  });

  it('sends a Content-Security-Policy that allows this origin only', async () => {
    for (const { url, headers } of await docsFiles()) {
      const csp = String(headers['content-security-policy'] ?? '');
      expect(csp, url).toMatch(/default-src 'self'/);
      const sources = csp.split(';').flatMap((d) => d.trim().split(/\s+/).slice(1));
      // Only keywords, data: for inline images and fonts, and this service's own base URL (Try it out).
      for (const source of sources) expect(source, `${url}: ${csp}`).toMatch(/^('[a-z-]+'|data:|https:\/\/lt\.test)$/);
      expect(csp).toMatch(/object-src 'none'/);
      expect(csp).toMatch(/frame-ancestors 'self'/);
    }
  });

  it('introduces the API in info.description: credentials, every scope with what it allows, rate-limit headers, errors in en/ar', async () => {
    const doc = await fetchDoc();
    const text = doc.info.description ?? '';
    expect(text).toMatch(/Authorization: Bearer/);
    expect(text).toMatch(/X-API-Key/);
    expect(text).toMatch(/bare key/i);
    for (const scope of SCOPES) {
      const line = text.split('\n').find((l) => l.includes(`\`${scope}\``));
      expect(line, scope).toBeDefined();
      expect(line).toContain(SCOPE_GUIDE[scope]);
    }
    for (const header of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After']) expect(text).toContain(header);
    expect(text).toMatch(/"en"/);
    expect(text).toMatch(/"ar"/);
    expect(text).toMatch(/Arabic/);
    for (const code of ['credential_missing', 'credential_conflict', 'missingScopes', 'retryAfter']) expect(text).toContain(code);
    // The credentials of today (issue 12), and nothing that does not exist yet.
    for (const words of [/human token/i, /session cookie/i, /X-Workspace-Id/, /ltp_/, /owner_required/, /not_a_member/]) expect(text).toMatch(words);
    for (const words of [/OAuth access token/, /lto_/, /\/\.well-known\/oauth-authorization-server/, /PKCE/]) expect(text).toMatch(words);
    // The same text is what /docs shows.
    const docsJson = (await t.inject({ method: 'GET', url: '/docs/json' })).json<OpenApiDoc>();
    expect(docsJson.info.description).toBe(text);
  });
});
