import type { LightMyRequestResponse, RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requiredScopes } from '../../src/http/auth.js';
import { routeTable } from '../../src/http/server.js';
import { SCOPES, type Scope } from '../../src/core/scopes.js';
import { bearer, startTestApp, type TestApp, type WorkspaceFixture } from '../helpers/app.js';

/**
 * api.md "Authentication" item 5: the scope table, walked over every route the app registered,
 * so a route added later without a scope (or with the wrong one) fails here.
 */
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t?.close();
});

/** The twelve scope names of api.md, in its order, then the two of operations.md §11 (webhooks). */
const SPEC_SCOPES = [
  'linksRead',
  'linksWrite',
  'collectionsRead',
  'collectionsWrite',
  'tagsRead',
  'tagsWrite',
  'analyticsRead',
  'conversionsWrite',
  'customersRead',
  'customersWrite',
  'partnersRead',
  'partnersWrite',
  'webhooksRead',
  'webhooksWrite',
  'programsRead',
  'programsWrite',
];

/** api.md's scope of each endpoint (HEAD follows GET). */
const readWrite = (read: Scope, write: Scope) => ({ GET: read, HEAD: read, POST: write, PUT: write, DELETE: write });
const SPEC_ROUTE_SCOPES: Record<string, Partial<Record<string, Scope>>> = {
  '/api/links': readWrite('linksRead', 'linksWrite'),
  '/api/collections': readWrite('collectionsRead', 'collectionsWrite'),
  '/api/tags': readWrite('tagsRead', 'tagsWrite'),
  '/api/partners': readWrite('partnersRead', 'partnersWrite'),
  '/api/customers': { GET: 'customersRead', HEAD: 'customersRead', PUT: 'customersWrite', DELETE: 'customersWrite' },
  '/api/analytics': { GET: 'analyticsRead', HEAD: 'analyticsRead' },
  '/api/track/lead': { POST: 'conversionsWrite' },
  '/api/track/sale': { POST: 'conversionsWrite' },
};

/** The only /api routes operations.md lets answer without a credential: §1, and §7's sign-in and first-user setup. */
const PUBLIC_API_PATHS = new Set([
  '/api/openapi.json',
  '/api/qr',
  '/api/auth/login',
  '/api/setup',
  '/api/auth/signup',
  '/api/auth/password-reset',
  '/api/auth/password-reset/confirm',
  '/api/auth/mfa',
  '/api/auth/passkey/options',
  '/api/auth/passkey',
  '/api/auth/sso',
  '/api/auth/sso/callback',
  // operations.md §18 "Embedded referrals": no workspace credential, the page's own token (checked by the routes).
  '/api/embed/referrals',
  '/api/embed/referrals/payouts-invite',
  // operations.md §18 "Applications": anyone may apply, with no credential.
  '/api/apply/:slug',
]);

interface Endpoint {
  method: string;
  url: string;
  config: { scope?: Scope | readonly Scope[]; public?: boolean; account?: string; sessionOnly?: boolean; publishableKey?: boolean };
  /** Every scope the route needs (its `scope` config, one or a list). */
  scopes: readonly Scope[];
}

function endpoints(): Endpoint[] {
  return routeTable(t.runtime.app).flatMap((r: RouteOptions) =>
    (Array.isArray(r.method) ? r.method : [r.method]).map((method) => {
      const config = (r.config ?? {}) as Endpoint['config'];
      return { method: String(method).toUpperCase(), url: r.url ?? '', config, scopes: requiredScopes(config.scope) };
    }),
  );
}

const apiEndpoints = () => endpoints().filter((e) => e.url.startsWith('/api/') || e.url === '/api');
const scopedEndpoints = () => apiEndpoints().filter((e) => e.config.scope !== undefined);
const named = (scopes: readonly Scope[]) => scopes.join('+');

/** A concrete URL for a route pattern: path parameters become a fresh UUID. */
const concrete = (url: string) => url.replace(/:[A-Za-z_]\w*/g, '0b6c3c4e-2f2a-4c55-9a0e-5c7d2b1e9f10').replace(/\*$/, 'x');

function call(e: Endpoint, key: string): Promise<LightMyRequestResponse> {
  const hasBody = !['GET', 'HEAD', 'OPTIONS'].includes(e.method);
  return t.inject({
    method: e.method as 'GET',
    url: concrete(e.url),
    headers: bearer(key),
    ...(hasBody ? { payload: [] } : {}),
  });
}

function expectRateLimitHeaders(res: LightMyRequestResponse, what: string): void {
  for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
    expect(res.headers[h], `${what}: header ${h}`).toMatch(/^\d+$/);
  }
}

/** Keys of one workspace: all scopes but one, or only the given ones, made on demand. */
function keyMaker(w: WorkspaceFixture) {
  const cache = new Map<string, string>();
  return async (kind: 'allBut' | 'only', scope: Scope | readonly Scope[]): Promise<string> => {
    const given = requiredScopes(scope);
    const id = `${kind}:${named(given)}`;
    let key = cache.get(id);
    if (!key) {
      const scopes = kind === 'only' ? given : SCOPES.filter((s) => !given.includes(s));
      key = (await w.newKey(scopes, { name: id })).key;
      cache.set(id, key);
    }
    return key;
  };
}

describe('the route table', () => {
  it('lists the /api routes at all (the walk below is not vacuous)', () => {
    expect(scopedEndpoints().length).toBeGreaterThan(0);
    expect(scopedEndpoints().map((e) => `${e.method} ${e.url}`)).toContain('GET /api/tags');
  });

  it('gives every /api route one or more scopes of the sixteen, an account rule (session, person), or marks it public', () => {
    const offenders = apiEndpoints()
      .filter(
        (e) =>
          !(
            e.config.public === true ||
            // The browser-tracking routes check their publishable key themselves (operations.md §19).
            (e.config.publishableKey === true && e.config.scope === undefined && e.config.account === undefined) ||
            (e.scopes.length > 0 && e.scopes.every((s) => (SCOPES as readonly string[]).includes(s))) ||
            (e.config.scope === undefined && ['session', 'person', 'optional'].includes(e.config.account ?? ''))
          ),
      )
      .map((e) => `${e.method} ${e.url} (config ${JSON.stringify(e.config)})`);
    expect(offenders).toEqual([]);
  });

  it('lets only the browser-tracking routes (and their preflights) take a publishable key', () => {
    const taking = apiEndpoints().filter((e) => e.config.publishableKey === true);
    expect(taking.map((e) => `${e.method} ${e.url}`).sort()).toEqual(
      ['/api/track/click', '/api/track/lead/client', '/api/track/sale/client'].flatMap((u) => [`OPTIONS ${u}`, `POST ${u}`]).sort(),
    );
  });

  it('never marks a route both public and scoped', () => {
    const both = apiEndpoints().filter(
      (e) => [e.config.public === true, e.config.scope !== undefined, e.config.account !== undefined].filter(Boolean).length > 1,
    );
    expect(both.map((e) => `${e.method} ${e.url}`)).toEqual([]);
  });

  it('makes public only the /api routes operations.md lists as unauthenticated', () => {
    const publicOnes = apiEndpoints().filter((e) => e.config.public === true && e.config.scope === undefined);
    expect(publicOnes.map((e) => e.url).filter((u) => !PUBLIC_API_PATHS.has(u))).toEqual([]);
  });

  it('uses only the sixteen scope names (the twelve of api.md, the two of §11, the two of §18)', () => {
    expect([...SCOPES]).toEqual(SPEC_SCOPES);
    const used = new Set(scopedEndpoints().flatMap((e) => e.scopes));
    for (const s of used) expect(SPEC_SCOPES, `scope ${s}`).toContain(s);
  });

  it('gives each endpoint of api.md the scope api.md lists for it', () => {
    const wrong: string[] = [];
    for (const e of scopedEndpoints()) {
      const expected = SPEC_ROUTE_SCOPES[e.url]?.[e.method];
      if (expected !== undefined && named(e.scopes) !== expected) wrong.push(`${e.method} ${e.url}: ${named(e.scopes)}, api.md says ${expected}`);
    }
    expect(wrong).toEqual([]);
  });

  it('registers the endpoints of api.md that exist with a scope, never as public', () => {
    for (const e of apiEndpoints()) {
      if (SPEC_ROUTE_SCOPES[e.url]?.[e.method]) expect(e.config.public, `${e.method} ${e.url}`).not.toBe(true);
    }
  });
});

describe('scope enforcement on every scoped route', () => {
  it('answers 403 with missingScopes [scope] and rate-limit headers to a key holding every scope but one the route needs', async () => {
    const w = await t.workspace();
    const keyFor = keyMaker(w);
    for (const e of scopedEndpoints()) {
      for (const scope of e.scopes) {
        const what = `${e.method} ${e.url} without ${scope}`;
        const res = await call(e, await keyFor('allBut', scope));
        expect(res.statusCode, `${what}: ${res.body}`).toBe(403);
        expectRateLimitHeaders(res, what);
        if (e.method === 'HEAD') continue; // no body on HEAD
        const body = res.json<{ error: { en: string; ar: string; code: string }; missingScopes?: string[] }>();
        expect(body.missingScopes, what).toEqual([scope]);
        expect(body.error.code, what).toBe('missing_scopes');
        expect(body.error.en, what).toContain(scope);
        expect(body.error.ar, what).toMatch(/[\u0600-\u06FF]/);
      }
    }
  });

  it('names every scope the route needs in missingScopes to a key holding none of them', async () => {
    const w = await t.workspace();
    const keyFor = keyMaker(w);
    for (const e of scopedEndpoints().filter((x) => x.method !== 'HEAD')) {
      const res = await call(e, await keyFor('allBut', e.scopes));
      expect(res.statusCode, `${e.method} ${e.url}: ${res.body}`).toBe(403);
      expect(res.json<{ missingScopes: string[] }>().missingScopes, `${e.method} ${e.url}`).toEqual(e.scopes);
    }
  });

  it('lets a key holding only the scopes the route needs past authentication and the scope check', async () => {
    const w = await t.workspace();
    const keyFor = keyMaker(w);
    for (const e of scopedEndpoints().filter((x) => !x.config.sessionOnly)) {
      const what = `${e.method} ${e.url}`;
      const res = await call(e, await keyFor('only', e.scopes));
      expect([401, 403], `${what}: ${res.statusCode} ${res.body}`).not.toContain(res.statusCode);
      expect(res.statusCode, `${what}: ${res.body}`).toBeLessThan(500);
      expectRateLimitHeaders(res, what);
    }
  });

  it('refuses a key holding every scope on a route only a session may call (sessionOnly): 401 session_required', async () => {
    const w = await t.workspace();
    const keyFor = keyMaker(w);
    const sessionOnly = scopedEndpoints().filter((e) => e.config.sessionOnly);
    expect(sessionOnly.map((e) => `${e.method} ${e.url}`)).toEqual(
      expect.arrayContaining(['POST /api/integrations/stripe', 'PUT /api/integrations/stripe', 'DELETE /api/integrations/stripe']),
    );
    for (const e of sessionOnly) {
      const what = `${e.method} ${e.url}`;
      const res = await call(e, await keyFor('only', e.scopes));
      expect(res.statusCode, `${what}: ${res.body}`).toBe(401);
      expect(res.json<{ error: { code: string } }>().error.code, what).toBe('session_required');
      expectRateLimitHeaders(res, what);
    }
  });

  it('checks the scope before the body: a bad body from a key without the scope is still a 403', async () => {
    const w = await t.workspace();
    const keyFor = keyMaker(w);
    for (const e of scopedEndpoints().filter((x) => ['POST', 'PUT', 'DELETE', 'PATCH'].includes(x.method))) {
      const res = await t.inject({
        method: e.method as 'POST',
        url: concrete(e.url),
        headers: { ...bearer(await keyFor('allBut', e.scopes)), 'content-type': 'application/json' },
        payload: '{not json',
      });
      expect(res.statusCode, `${e.method} ${e.url}: ${res.body}`).toBe(403);
    }
  });

  it('treats scopes as independent: a write scope does not grant reading, nor a read scope writing', async () => {
    const w = await t.workspace();
    const keyFor = keyMaker(w);
    const byUrl = new Map<string, Map<string, readonly Scope[]>>();
    for (const e of scopedEndpoints()) {
      if (!byUrl.has(e.url)) byUrl.set(e.url, new Map());
      byUrl.get(e.url)!.set(e.method, e.scopes);
    }
    let checked = 0;
    for (const [url, methods] of byUrl) {
      const read = methods.get('GET');
      const write = methods.get('POST') ?? methods.get('PUT') ?? methods.get('DELETE');
      if (!read || !write || read.some((s) => write.includes(s))) continue;
      const get = await t.inject({ method: 'GET', url: concrete(url), headers: bearer(await keyFor('only', write)) });
      expect(get.statusCode, `GET ${url} with only ${named(write)}`).toBe(403);
      expect(get.json<{ missingScopes: string[] }>().missingScopes).toEqual(read);
      const writeMethod = methods.has('POST') ? 'POST' : methods.has('PUT') ? 'PUT' : 'DELETE';
      const post = await t.inject({ method: writeMethod, url: concrete(url), headers: bearer(await keyFor('only', read)), payload: [] });
      expect(post.statusCode, `${writeMethod} ${url} with only ${named(read)}`).toBe(403);
      expect(post.json<{ missingScopes: string[] }>().missingScopes).toEqual(write);
      checked++;
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('writes nothing when the scope is missing', async () => {
    const w = await t.workspace();
    const readOnly = (await w.newKey(['tagsRead'])).key;
    const res = await t.inject({ method: 'POST', url: '/api/tags', headers: bearer(readOnly), payload: [{ name: 'should-not-exist' }] });
    expect(res.statusCode).toBe(403);
    const list = await t.inject({ method: 'GET', url: '/api/tags', headers: bearer(w.key) });
    expect(list.json()).toEqual([]);
  });
});
