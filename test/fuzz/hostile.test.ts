/**
 * Hostile input over every registered route (api.md "Errors", "Authentication"; operations.md
 * §2, §5): a seeded, bounded fast-check fuzz of bodies, query strings, path parameters and
 * headers (credentials in every form, X-Forwarded-For, User-Agent, cookies, content types).
 *
 * The routes come from `routeTable(app)`, never from a list written here: every route must
 * belong to a known family (or the first test fails), and each family's test fuzzes all of its
 * routes. For every answer:
 *  - the status is one the family documents (never a 500), and follows from the credential
 *    (none or unusable: 401; a key without the scope: 403);
 *  - an error body is `{ error: { en, ar, code } }` (plus missingScopes / retryAfter);
 *  - the body holds no stack trace and no SQL text;
 *  - nothing of workspace B shows up (ids, names, urls, emails, keys) unless the request itself
 *    carried it, and no record of B comes back to A;
 * and after the fuzz, B's data (every list, its analytics, its operator view) is unchanged.
 *
 * Two workspaces A and B (and C, a scratch one for the operator API) are seeded fresh in each
 * test with collections, tags, partners, links (one password-protected), a click through the
 * redirect, a lead, a sale and so a customer. FUZZ_SCALE=<n> multiplies the number of runs.
 */
import fc from 'fast-check';
import type { LightMyRequestResponse, RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requiredScopes } from '../../src/http/auth.js';
import { routeTable } from '../../src/http/server.js';
import { type Scope } from '../../src/core/scopes.js';
import { ADMIN_TOKEN, bearer, startTestApp, type TestApp, type WorkspaceFixture } from '../helpers/app.js';
import {
  adminAuthHeaders,
  adminTokenOf,
  authHeaders,
  containsMarker,
  contentType,
  encode,
  headerSafe,
  hostileString,
  nestedText,
  otherHeaders,
  payloadFor,
  presentedTokens,
  queryFor,
  type Auth,
  type Credentials,
  type Pools,
  type Schema,
} from './arbitraries.js';
import { asSession, sessionHeaders, signedInMember } from '../modules/people/helpers.js';

const SEED = 42;
const SCALE = Number(process.env.FUZZ_SCALE ?? 1);
const runs = (n: number) => Math.max(1, Math.round(n * SCALE));

let t: TestApp;

beforeAll(async () => {
  // Proxy and edge headers count here, so X-Forwarded-For and the country header reach the code.
  t = await startTestApp({ env: { TRUST_PROXY: 'true', COUNTRY_HEADER: 'cf-ipcountry' } });
});

afterAll(async () => {
  await t?.close();
});

// ---------------------------------------------------------------------------------------------
// The route table, in families
// ---------------------------------------------------------------------------------------------

type Family = 'scoped' | 'public' | 'people' | 'oauth' | 'redirect' | 'admin' | 'service' | 'inbound' | 'embed' | 'apply' | 'browser';

interface Route {
  method: string;
  url: string;
  family: Family | undefined;
  /** Every scope the route needs (none outside the scoped family). */
  scopes: readonly Scope[];
  /** Only a signed-in person's session may call it (config.sessionOnly): keys and tokens get 401. */
  sessionOnly: boolean;
  body?: Schema;
  query?: Schema;
  /** The route declares a state conflict (409 with a code) in its schema: the partner program's routes. */
  conflicts: boolean;
}

/** Unauthenticated routes of operations.md §1 that are neither /api nor short links. */
const SERVICE_PATHS = new Set(['/healthz', '/readyz', '/attribution.js']);

/** Sign-in and setup: public, but people's routes (operations.md §7). */
const PEOPLE_PUBLIC = new Set([
  '/api/auth/login',
  '/api/setup',
  '/api/auth/signup',
  '/api/auth/password-reset',
  '/api/auth/password-reset/confirm',
  '/api/auth/mfa',
  '/api/auth/passkey/options',
  '/api/auth/passkey',
]);

/**
 * Single sign-on's browser navigations (operations.md §15): like /oauth/authorize, they answer
 * 302 (to the identity provider, or the dashboard) and HTML pages, never JSON.
 */
const SSO_BROWSER = new Set(['/api/auth/sso', '/api/auth/sso/callback']);

function familyOf(r: RouteOptions): Family | undefined {
  const config = (r.config ?? {}) as { scope?: string; public?: boolean; account?: string; publishableKey?: boolean };
  const url = r.url ?? '';
  // Browser tracking (operations.md §19): a workspace's publishable key from an allowed Origin, nothing else.
  if (config.publishableKey) return 'browser';
  if (config.scope) return 'scoped';
  if (config.account || PEOPLE_PUBLIC.has(url)) return 'people';
  if (url.startsWith('/oauth/') || url === '/.well-known/oauth-authorization-server' || SSO_BROWSER.has(url)) return 'oauth';
  if (url.startsWith('/admin/')) return 'admin';
  // Events other services post to us, signed by them (operations.md §12: Stripe).
  if (url.startsWith('/webhooks/')) return 'inbound';
  // `/*`: a chosen key of several segments (operations.md §21), the same answers.
  if (url.endsWith('/:shortId') || url === '/*') return 'redirect';
  // The embedded referral page and its API: their own token (operations.md §18), never any other credential.
  if (url === '/embed/referrals' || url.startsWith('/api/embed/')) return 'embed';
  // A partner program's application page and its route (operations.md §18): no credential at all.
  if (url === '/apply/:slug' || url === '/api/apply/:slug') return 'apply';
  if (config.public === true && url.startsWith('/api/')) return 'public';
  if (SERVICE_PATHS.has(url) || url === '/docs' || url.startsWith('/docs/')) return 'service';
  // The dashboard (operations.md §10): `/` sends to it, `/app/*` are its pages and files.
  if (url === '/' || url === '/app' || url.startsWith('/app/')) return 'service';
  // Claimed hosts (operations.md §13): the proxy's certificate question, and the route a request
  // on an active claimed host is rewritten to (reached directly on any other host, a 404 page).
  if (url === '/internal/domains/allowed' || url === '/__claimed-host' || url.startsWith('/__claimed-host/')) return 'service';
  return undefined;
}

function allRoutes(): Route[] {
  return routeTable(t.runtime.app).flatMap((r) => {
    const schema = (r.schema ?? {}) as { body?: Schema; querystring?: Schema; response?: Record<string, unknown> };
    const config = (r.config ?? {}) as { scope?: Scope | readonly Scope[]; sessionOnly?: boolean };
    return (Array.isArray(r.method) ? r.method : [r.method]).map((m) => ({
      method: String(m).toUpperCase(),
      url: r.url ?? '',
      family: familyOf(r),
      scopes: requiredScopes(config.scope),
      sessionOnly: config.sessionOnly === true,
      body: schema.body,
      query: schema.querystring,
      conflicts: schema.response?.['409'] !== undefined,
    }));
  });
}

const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * Starting an import answers 202 (a background job), 409 while one runs (operations.md §13): a
 * JSON object body is read as a Linktrail export (source=linktrail), which a fuzzed body can be.
 */
const startsImport = (route: Route): readonly number[] =>
  route.method === 'POST' && route.url.endsWith('/imports') ? [202, 409] : route.conflicts ? [409] : [];

/** A family's routes, deletions last (so that the records the other routes use are still there). */
const routesOf = (family: Family, filter: (r: Route) => boolean = () => true) =>
  allRoutes()
    .filter((r) => r.family === family && filter(r))
    .sort((x, y) => METHOD_ORDER.indexOf(x.method) - METHOD_ORDER.indexOf(y.method));

/** Statuses each family documents (api.md Errors; operations.md §2, §5; the issue). */
const DOCUMENTED: Record<Family, readonly number[]> = {
  scoped: [200, 201, 400, 401, 403, 404, 413, 429, 503],
  public: [200, 304, 400],
  // No request here holds a live page token: 401 (the page: an HTML page saying so), or a body refused first.
  embed: [400, 401, 413, 415],
  // The page (200, its form's thank-you), 202 an application taken (whoever applied), an unknown or closed program 404, throttled 429.
  apply: [200, 202, 400, 404, 413, 415, 429],
  // No request here holds a live publishable key: 401, 403 origin_not_allowed, a preflight's 204, or a body refused first.
  browser: [204, 400, 401, 403, 413, 415, 429],
  // operations.md §7: 204 is logout; 403 owner_required; 404 a workspace, member, invite, key, session or token not yours.
  // §15: 202 is a password reset asked for (whatever the address).
  people: [200, 201, 202, 204, 400, 401, 403, 404, 429],
  // operations.md §9: metadata (200), 302 to the dashboard's sign-in or consent or back to the app, 400/401/403 pages, and RFC 6749 §5.2 answers.
  oauth: [200, 302, 303, 400, 401, 403, 413, 429],
  redirect: [200, 302, 303, 401, 404, 410, 429],
  admin: [200, 201, 400, 401, 404],
  // /docs/static/index.html redirects to /docs/ (302).
  service: [200, 302, 304, 404],
  // operations.md §12: { received: true }, a bad signature or body, an unknown connection, over 1 MB.
  inbound: [200, 400, 404, 413],
};

// ---------------------------------------------------------------------------------------------
// Two workspaces with data
// ---------------------------------------------------------------------------------------------

const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const SHORT_ID = /^[0-9A-Za-z]{8}$/;

interface Side {
  ws: WorkspaceFixture;
  marker: string;
  ids: string[];
  /** Client-chosen values a hostile caller might guess or filter by. */
  guessable: string[];
  /** Every value of this workspace that is not an id (names, urls, emails, password, short ids). */
  values: string[];
  plainShortId: string;
  passwordShortId: string;
  password: string;
  clickId: string;
  customerExternalId: string;
  /** Record ids by the API path that lists them. */
  idsByPath: Record<string, string[]>;
}

function expectStatus(res: LightMyRequestResponse, status: number, what: string): void {
  if (res.statusCode !== status) throw new Error(`seeding ${what}: ${res.statusCode} ${res.body}`);
}

/** A workspace as a client would fill it: through the API and one visit of a short link. */
async function seed(label: string): Promise<Side> {
  const ws = await t.workspace({ rateLimitPerMinute: 1_000_000 });
  const marker = `${label}${Math.random().toString(36).slice(2, 10)}`;
  const send = async <T>(method: 'POST' | 'GET', url: string, body: unknown, status: number): Promise<T> => {
    const res = await t.inject({ method, url, headers: { ...bearer(ws.key), 'content-type': 'application/json' }, payload: JSON.stringify(body) });
    expectStatus(res, status, `${method} ${url}`);
    return res.json<T>();
  };
  type Rec = { id: string };
  const [collection] = await send<Rec[]>('POST', '/api/collections', [{ name: `${marker}-collection`, description: `${marker}-description` }], 201);
  const [tag] = await send<Rec[]>('POST', '/api/tags', [{ name: `${marker}-tag`, color: '#123456' }], 201);
  const [partner] = await send<Rec[]>(
    'POST',
    '/api/partners',
    [{ name: `${marker}-partner`, email: `${marker}@partner.example`, image: `https://10.0.0.9/${marker}-avatar.png` }],
    201,
  );
  const password = `${marker}-password`;
  const [plain, locked] = await send<(Rec & { shortUrl: string })[]>(
    'POST',
    '/api/links',
    [
      {
        url: `https://10.20.30.40/${marker}-landing`,
        collectionId: collection!.id,
        tagIds: [tag!.id],
        partnerId: partner!.id,
        title: `${marker}-title`,
        description: `${marker}-about`,
        utm: { source: `${marker}-utm` },
        externalId: `${marker}-external`,
        tenantId: `${marker}-tenant`,
      },
      // No title: the password form shows a link's title, and this one is B's secret.
      { url: `https://10.20.30.41/${marker}-secret`, collectionId: collection!.id, password },
    ],
    201,
  );
  const shortIdOf = (l: { shortUrl: string }) => new URL(l.shortUrl).pathname.slice(1);
  const visit = await t.inject({ method: 'GET', url: `/${shortIdOf(plain!)}`, headers: { 'user-agent': BROWSER, 'x-forwarded-for': '81.2.69.160' } });
  expectStatus(visit, 302, 'visit');
  const clickId = new URL(visit.headers.location as string).searchParams.get('ltid')!;
  const customerExternalId = `${marker}-customer`;
  const customer = { customerExternalId, customerName: `${marker}-name`, customerEmail: `${marker}@customer.example` };
  const lead = await send<Rec & { customer: Rec }>('POST', '/api/track/lead', { clickId, eventName: `${marker}-signup`, ...customer }, 200);
  const sale = await send<Rec>('POST', '/api/track/sale', { amount: 4200, currency: 'eur', eventName: `${marker}-purchase`, ...customer }, 200);
  return {
    ws,
    marker,
    ids: [ws.id, collection!.id, tag!.id, partner!.id, plain!.id, locked!.id, clickId, lead.id, lead.customer.id, sale.id],
    guessable: [`${marker}-external`, `${marker}-tenant`, customerExternalId, `${marker}-signup`],
    values: [
      `${marker}-collection`,
      `${marker}-description`,
      `${marker}-tag`,
      `${marker}-partner`,
      `${marker}@partner.example`,
      `${marker}-avatar.png`,
      `${marker}-landing`,
      `${marker}-title`,
      `${marker}-about`,
      `${marker}-utm`,
      `${marker}-external`,
      `${marker}-tenant`,
      `${marker}-secret`,
      password,
      customerExternalId,
      `${marker}-name`,
      `${marker}@customer.example`,
      `${marker}-signup`,
      `${marker}-purchase`,
      shortIdOf(plain!),
      shortIdOf(locked!),
    ],
    plainShortId: shortIdOf(plain!),
    passwordShortId: shortIdOf(locked!),
    password,
    clickId,
    customerExternalId,
    idsByPath: {
      '/api/collections': [collection!.id],
      '/api/tags': [tag!.id],
      '/api/partners': [partner!.id],
      '/api/links': [plain!.id, locked!.id],
      '/api/customers': [lead.customer.id],
    },
  };
}

const LIMITED_SCOPES: Scope[] = ['linksRead', 'tagsWrite', 'analyticsRead'];

interface World {
  a: Side;
  b: Side;
  c: { id: string; keyIds: string[] };
  creds: Credentials;
  pools: Pools;
  /** The signed cookie that unlocks A's password link. */
  passCookie: string;
  /** B's ids and values, lower-cased: what must not reach anyone else. */
  bSecrets: string[];
  bIds: Set<string>;
  keys: string[];
}

async function world(): Promise<World> {
  const a = await seed('alpha');
  const b = await seed('bravo');
  const c = await t.workspace({ plan: 'free' });
  const cKeys = [await c.newKey(['linksRead']), await c.newKey(['tagsWrite'])];
  const aLimited = await a.ws.newKey(LIMITED_SCOPES, { name: 'limited' });
  const aRevoked = await a.ws.newKey(undefined, { name: 'revoked' });
  const revoke = await t.admin('DELETE', `/keys/${aRevoked.id}`);
  expectStatus(revoke, 200, 'revoke');
  const aExpired = await a.ws.newKey(undefined, { name: 'expired', expiresAt: '2000-01-01T00:00:00Z' });
  const unlock = await t.inject({
    method: 'POST',
    url: `/${a.passwordShortId}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: `password=${encode(a.password)}`,
  });
  expectStatus(unlock, 303, 'unlock');
  const passCookie = /lt_pass=([^;]+)/.exec(String(unlock.headers['set-cookie']))![1]!;
  const creds: Credentials = { a: a.ws.key, aLimited: aLimited.key, aRevoked: aRevoked.key, aExpired: aExpired.key, b: b.ws.key, admin: ADMIN_TOKEN };
  return {
    a,
    b,
    c: { id: c.id, keyIds: cKeys.map((k) => k.id) },
    creds,
    pools: {
      ids: [...a.ids, ...b.ids, c.id, ...cKeys.map((k) => k.id)],
      strings: [...a.guessable, ...b.guessable, a.clickId, b.clickId, a.password],
      byField: {
        // A's ids more often than B's, so that many requests succeed (and some try B's).
        collectionId: [...a.idsByPath['/api/collections']!, ...a.idsByPath['/api/collections']!, ...b.idsByPath['/api/collections']!],
        tagIds: [...a.idsByPath['/api/tags']!, ...a.idsByPath['/api/tags']!, ...b.idsByPath['/api/tags']!],
        partnerId: [...a.idsByPath['/api/partners']!, ...a.idsByPath['/api/partners']!, ...b.idsByPath['/api/partners']!],
        linkId: [...a.idsByPath['/api/links']!, ...b.idsByPath['/api/links']!],
        clickId: [a.clickId, a.clickId, b.clickId, ''],
        customerExternalId: [a.customerExternalId, a.customerExternalId, b.customerExternalId, 'new-customer'],
        leadEventName: [`${a.marker}-signup`, `${b.marker}-signup`],
        externalId: [`${a.marker}-external`, `${b.marker}-external`, a.customerExternalId, b.customerExternalId, 'fresh-external'],
        tenantId: [`${a.marker}-tenant`, `${b.marker}-tenant`, 'tenant-1'],
        currency: ['usd', 'eur', 'jpy', 'kwd', 'USD', 'xxx', 'eu'],
        plan: ['free', 'pro', 'business', 'enterprise'],
        startDate: ['2020-01-01', '2020-01-01T00:00:00Z', '2099-12-31T00:00:00+05:00', '1999-12-31'],
        endDate: ['2099-12-31', '2099-12-31T23:59:59.999Z', '2020-01-01', '2030-06-15T12:00:00-03:00'],
      },
    },
    passCookie,
    bSecrets: [...b.ids, ...b.values].map((s) => s.toLowerCase()),
    bIds: new Set(b.ids.map((s) => s.toLowerCase())),
    keys: [creds.a, creds.aLimited, creds.aRevoked, creds.aExpired, creds.b, ...cKeys.map((k) => k.key)],
  };
}

/** The world's pools, with `id` (and bare id lists) pointing at the records of the route's path. */
function poolsFor(w: World, route: Route): Pools {
  const mine = w.a.idsByPath[route.url] ?? [];
  const ids = [...mine, ...mine, ...(w.b.idsByPath[route.url] ?? [])];
  if (ids.length === 0) return w.pools;
  return { ...w.pools, byField: { ...w.pools.byField, id: ids, '': ids } };
}

/** Everything B holds, as B and the operator see it. */
async function snapshotOfB(w: World): Promise<unknown> {
  const get = async (url: string, headers: Record<string, string>) => {
    const res = await t.inject({ method: 'GET', url, headers });
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    return res.json<unknown>();
  };
  const asB = bearer(w.b.ws.key);
  const lists: Record<string, unknown> = {};
  for (const url of ['/api/links', '/api/collections', '/api/tags', '/api/partners', '/api/customers', '/api/analytics']) {
    lists[url] = await get(`${url}?take=5000&sort=asc`, asB);
  }
  lists.groups = await get('/api/analytics?groupBy=link&take=5000', asB);
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const workspaces = (await get('/admin/workspaces', admin)) as { id: string }[];
  lists.workspace = workspaces.find((x) => x.id === w.b.ws.id);
  const keys = (await get(`/admin/workspaces/${w.b.ws.id}/keys`, admin)) as Record<string, unknown>[];
  lists.keys = keys.map(({ lastUsedAt: _ignored, ...rest }) => rest);
  return lists;
}

/**
 * Makes every pending click visible: a lead on a brand-new click of A makes the service flush
 * its click queue (the whole queue), so a click wrongly recorded for B would show now.
 */
async function flushClicks(w: World): Promise<void> {
  const asA = { ...bearer(w.a.ws.key), 'content-type': 'application/json' };
  const col = await t.inject({ method: 'POST', url: '/api/collections', headers: asA, payload: JSON.stringify([{ name: 'barrier' }]) });
  expectStatus(col, 201, 'barrier collection');
  const link = await t.inject({
    method: 'POST',
    url: '/api/links',
    headers: asA,
    payload: JSON.stringify([{ url: 'https://10.0.0.1/barrier', collectionId: col.json<{ id: string }[]>()[0]!.id }]),
  });
  expectStatus(link, 201, 'barrier link');
  const visit = await t.inject({ method: 'GET', url: new URL(link.json<{ shortUrl: string }[]>()[0]!.shortUrl).pathname, headers: { 'user-agent': BROWSER } });
  expectStatus(visit, 302, 'barrier visit');
  const clickId = new URL(visit.headers.location as string).searchParams.get('ltid');
  const lead = await t.inject({
    method: 'POST',
    url: '/api/track/lead',
    headers: asA,
    payload: JSON.stringify({ clickId, eventName: 'barrier', customerExternalId: 'barrier', customerName: 'barrier' }),
  });
  expectStatus(lead, 200, 'barrier lead');
}

// ---------------------------------------------------------------------------------------------
// Requests and what every answer must satisfy
// ---------------------------------------------------------------------------------------------

interface Req {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
  /** The client's address (the sign-in throttle counts failures per address). */
  remoteAddress?: string;
}

const requestText = (r: Req) => {
  let decoded = r.url;
  try {
    decoded = decodeURIComponent(r.url);
  } catch {
    // keep the raw form
  }
  return `${r.url}\n${decoded}\n${JSON.stringify(r.headers)}\n${r.payload ?? ''}`;
};

const cut = (s: string, n = 300) => (s.length > n ? `${s.slice(0, n)}…(${s.length} chars)` : s);

function describeReq(r: Req | undefined): string {
  if (!r) return '(none)';
  const headers = Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, cut(v, 120)]));
  return `${r.method} ${cut(r.url)} headers=${JSON.stringify(headers)} payload=${r.payload === undefined ? '(none)' : JSON.stringify(cut(r.payload))}`;
}

const send = (r: Req) =>
  t.inject({
    method: r.method as 'GET',
    url: r.url,
    headers: r.headers,
    ...(r.payload === undefined ? {} : { payload: r.payload }),
    ...(r.remoteAddress === undefined ? {} : { remoteAddress: r.remoteAddress }),
  });

const isJson = (res: LightMyRequestResponse) => String(res.headers['content-type'] ?? '').startsWith('application/json');
const isHtml = (res: LightMyRequestResponse) => String(res.headers['content-type'] ?? '').startsWith('text/html');

function fail(message: string): never {
  throw new Error(message);
}

/** `{ error: { en, ar, code } }`, plus missingScopes on 403, retryAfter on 429 and limit with too_many_items; returns the code. */
function errorCodeOf(res: LightMyRequestResponse): string {
  let body: Record<string, unknown>;
  try {
    body = res.json<Record<string, unknown>>();
  } catch {
    return fail(`error body is not JSON: ${cut(res.body)}`);
  }
  const error = body.error as Record<string, unknown> | undefined;
  if (!error || typeof error !== 'object') fail(`error body without an error object: ${cut(res.body)}`);
  for (const k of ['en', 'ar', 'code']) {
    if (typeof error[k] !== 'string' || (error[k] as string).length === 0) fail(`error.${k} is not a non-empty string: ${cut(res.body)}`);
  }
  const allowed = new Set([
    'error',
    ...(res.statusCode === 403 ? ['missingScopes'] : []),
    ...(res.statusCode === 429 ? ['retryAfter'] : []),
    ...(res.statusCode === 400 ? ['field', 'reason'] : []),
    ...(error.code === 'too_many_items' ? ['limit'] : []),
  ]);
  // A named field is the one the message names, and comes with its rule.
  if ('field' in body && (typeof body.field !== 'string' || !String(error.en).includes(body.field) || typeof body.reason !== 'string'))
    fail(`error field not named by the message, or without its reason: ${cut(res.body)}`);
  const extra = Object.keys(body).filter((k) => !allowed.has(k));
  if (extra.length) fail(`error body has unexpected fields ${extra.join(', ')}: ${cut(res.body)}`);
  // A missing scope names it; the people routes' other 403s (owner_required, cross_site_sign_in) have nothing to name.
  const scopeRefusal = res.statusCode === 403 && !['owner_required', 'cross_site_sign_in', 'sso_required'].includes(String(error.code));
  if (scopeRefusal && !Array.isArray(body.missingScopes)) fail(`403 without missingScopes: ${cut(res.body)}`);
  if (res.statusCode === 429 && !Number.isInteger(body.retryAfter)) fail(`429 without retryAfter: ${cut(res.body)}`);
  return error.code as string;
}

/** Ids of records in an answer (not free-form values such as metadata, utm or external ids). */
function recordIds(v: unknown, out: string[] = []): string[] {
  if (Array.isArray(v)) for (const x of v) recordIds(x, out);
  else if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    for (const k of ['id', 'collectionId', 'partnerId', 'linkId', 'clickId', 'leadId', 'workspaceId']) if (typeof o[k] === 'string') out.push(o[k] as string);
    for (const k of ['tagIds', 'deletedIds']) if (Array.isArray(o[k])) out.push(...(o[k] as unknown[]).filter((x): x is string => typeof x === 'string'));
    if (o.customer) recordIds(o.customer, out);
  }
  return out;
}

interface Ctx {
  w: World;
  /** B's values that A wrote into its own records (they are A's now). */
  adopted: Set<string>;
}

interface Expectation {
  family: Family;
  /** Statuses allowed for this very request, when narrower than the family's. */
  only?: readonly number[];
  /** More statuses this request may get (a body the route cannot parse, a malformed path). */
  extra?: readonly number[];
  /** Skip the B-leak check (the operator legitimately sees every workspace). */
  operator?: boolean;
  /** A or A's limited key authenticated this request. */
  asA?: boolean;
}

/** The checks every answer must pass; throws with what went wrong. */
/** RFC 6749 §5.2 error codes (and §4.1.2.1's that pages redirect with). */
const OAUTH_ERRORS = ['invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope'];

/** OAuth answers: pages are HTML, token and revocation errors are `{ error, error_description }`, never the API's body, never a stack. */
function checkOauthAnswer(ctx: Ctx, res: LightMyRequestResponse): void {
  const status = res.statusCode;
  if (!DOCUMENTED.oauth.includes(status)) fail(`status ${status} is not documented for OAuth: ${cut(res.body)}`);
  if (containsMarker(res.body)) fail(`answer contains a stack trace or SQL: ${cut(res.body, 1000)}`);
  if (status >= 400 && isJson(res) && res.body.length > 0) {
    const body = res.json<Record<string, unknown>>();
    if (!OAUTH_ERRORS.includes(String(body.error)) || typeof body.error_description !== 'string') fail(`not an RFC 6749 error body: ${cut(res.body)}`);
    if (Object.keys(body).some((k) => k !== 'error' && k !== 'error_description')) fail(`unexpected fields: ${cut(res.body)}`);
    if (res.headers['cache-control'] !== 'no-store') fail('an OAuth error without Cache-Control: no-store');
  } else if (status >= 400 && !isHtml(res)) fail(`error answer of type ${String(res.headers['content-type'])}: ${cut(res.body)}`);
  if (status === 302) {
    const to = String(res.headers.location ?? '');
    // Only to the dashboard's sign-in (back to /oauth/authorize) or consent page, or to an address the app registered (the fuzz registers https://app.example/cb).
    if (!to.startsWith('/app?next=%2Foauth%2Fauthorize%3F') && !to.startsWith('/app/oauth/consent?') && !to.startsWith('https://app.example/cb'))
      fail(`redirect to an unregistered address: ${to}`);
  }
  for (const key of ctx.w.keys) if (res.body.includes(key)) fail(`answer contains an API key (${key.slice(0, 8)}…)`);
}

function checkAnswer(ctx: Ctx, req: Req, res: LightMyRequestResponse, e: Expectation): void {
  if (e.family === 'oauth') return checkOauthAnswer(ctx, res);
  const status = res.statusCode;
  const documented = [...DOCUMENTED[e.family], ...(e.extra ?? [])];
  if (status >= 500 && !(status === 503 && documented.includes(503))) fail(`server error ${status}: ${cut(res.body)}`);
  if (!documented.includes(status)) fail(`status ${status} is not documented for this route (${documented.join('/')}): ${cut(res.body)}`);
  if (e.only && !e.only.includes(status)) fail(`status ${status}, expected ${e.only.join(' or ')}: ${cut(res.body)}`);

  const body = res.body;
  if (status >= 400 && body.length > 0) {
    if (isJson(res)) errorCodeOf(res);
    // Visitor paths answer with HTML pages (operations.md §5); a dot-segment path such as
    // /docs/static/../../x resolves outside /docs and is one of them.
    else if (!(
      (e.family === 'redirect' ||
        (e.family === 'service' && status === 404) ||
        (e.family === 'embed' && req.url.startsWith('/embed/')) ||
        (e.family === 'apply' && req.url.startsWith('/apply/'))) &&
      isHtml(res)
    )) {
      fail(`error answer of type ${String(res.headers['content-type'])}: ${cut(body)}`);
    }
  }
  const documentBody = e.family === 'service' && status < 400; // the docs' own scripts and pages
  if (!documentBody) {
    const marker = body.length > 0 && containsMarker(body);
    if (marker) fail(`answer contains a stack trace or SQL: ${cut(body, 1000)}`);
  }

  const lower = body.toLowerCase();
  for (const key of ctx.w.keys) if (body.includes(key)) fail(`answer contains an API key (${key.slice(0, 8)}…)`);
  if (!e.operator) {
    // The request's own text only when B's value is in the answer (seldom): lower-casing it for every
    // answer was ~7 % of the scoped fuzz's CPU (a profile of its reads on PostgreSQL).
    const shown = ctx.w.bSecrets.filter((s) => !ctx.adopted.has(s) && lower.includes(s));
    const asked = shown.length ? requestText(req).toLowerCase() : '';
    const leaked = shown.filter((s) => !asked.includes(s));
    if (leaked.length) fail(`answer reveals workspace B's ${leaked.join(', ')}: ${cut(body, 600)}`);
  }
  if (e.asA && status < 300 && isJson(res) && body.length > 0) {
    const ofB = recordIds(res.json()).filter((id) => ctx.w.bIds.has(id.toLowerCase()));
    if (ofB.length) fail(`A received records of B: ${ofB.join(', ')}`);
  }
  // What A wrote is A's: a B value A stored in its own records may come back to A from now on.
  if (e.asA && status < 300 && req.method !== 'GET' && req.method !== 'HEAD') {
    const asked = requestText(req).toLowerCase();
    for (const s of ctx.w.bSecrets) if (asked.includes(s)) ctx.adopted.add(s);
  }
}

/** Seeds a property per route from its method and path, so each route gets its own stream. */
function seedOf(r: Route): number {
  let h = SEED;
  for (const ch of `${r.method} ${r.url}`) h = (Math.imul(h, 31) + ch.charCodeAt(0)) | 0;
  return h;
}

/**
 * Runs one seeded property per route and returns the failures (the whole family is fuzzed
 * even when one route fails, so one bug does not hide the next).
 */
async function fuzz(ctx: Ctx, route: Route, numRuns: number, arbitrary: fc.Arbitrary<{ req: Req; expect: Expectation }>): Promise<string | undefined> {
  const property = fc.asyncProperty(arbitrary, async ({ req, expect: expectation }) => {
    fc.pre(!containsMarker(requestText(req)));
    const res = await send(req);
    checkAnswer(ctx, req, res, expectation);
  });
  const details = await fc.check(property, { seed: seedOf(route), numRuns: runs(numRuns), endOnFailure: true });
  if (!details.failed) return undefined;
  const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  return `${route.method} ${route.url}: ${error}\n    request: ${describeReq(details.counterexample?.[0]?.req)}\n    (seed ${details.seed})`;
}

/** Runs `body` with a fresh world, then checks that B is exactly as before. */
async function withWorld(body: (ctx: Ctx) => Promise<string[]>): Promise<void> {
  const w = await world();
  const before = await snapshotOfB(w);
  const failures = await body({ w, adopted: new Set() });
  await flushClicks(w);
  const after = await snapshotOfB(w);
  expect(failures, failures.join('\n\n')).toEqual([]);
  expect(after, "workspace B's data changed during the fuzz").toEqual(before);
}

const concretePath = (url: string, params: Record<string, string>) =>
  url.replace(/:([A-Za-z_]\w*)/g, (_m, name: string) => params[name] ?? 'x').replace(/\*$/, params['*'] ?? '');

const withQuery = (path: string, query: string) => (query ? `${path}?${query}` : path);

const methodHasBody = (m: string) => !['GET', 'HEAD'].includes(m);

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

describe('the route table', () => {
  it('puts every registered route in a family this fuzz knows (a new route must be added to one)', () => {
    const routes = allRoutes();
    expect(routes.filter((r) => r.family === 'scoped').length).toBeGreaterThan(10);
    for (const f of ['public', 'people', 'oauth', 'redirect', 'admin', 'service', 'inbound', 'embed', 'apply', 'browser'] as const)
      expect(
        routes.some((r) => r.family === f),
        f,
      ).toBe(true);
    expect(routes.filter((r) => r.family === undefined).map((r) => `${r.method} ${r.url}`)).toEqual([]);
  });
});

describe('hostile input on the scoped /api routes', () => {
  /** The model of api.md "Authentication": one credential, a live key of A, the scope. */
  function scopedExpectation(w: World, route: Route, auth: Auth): Expectation {
    const tokens = presentedTokens(auth);
    const [token] = tokens;
    const who = tokens.size !== 1 ? 'none' : token === w.creds.a ? 'a' : token === w.creds.aLimited ? 'limited' : token === w.creds.b ? 'b' : 'none';
    if (who === 'b') throw new Error(`the generator authenticated as B: ${JSON.stringify(auth)}`);
    if (who === 'none') return { family: 'scoped', only: [401] };
    if (who === 'limited' && !route.scopes.every((s) => LIMITED_SCOPES.includes(s))) return { family: 'scoped', only: [403], asA: true };
    if (route.sessionOnly) return { family: 'scoped', only: [401], asA: true };
    const extra = startsImport(route);
    return { family: 'scoped', only: [...DOCUMENTED.scoped.filter((s) => s !== 401 && s !== 403), ...extra], extra, asA: true };
  }

  function scopedArbitrary(w: World, route: Route) {
    return fc
      .record({
        auth: authHeaders(w.creds),
        other: otherHeaders([w.passCookie]),
        query: queryFor(route.query, poolsFor(w, route)),
        payload: methodHasBody(route.method)
          ? payloadFor(route.body, poolsFor(w, route))
          : fc.option(payloadFor(undefined, w.pools), { freq: 5 }).map((p) => p ?? undefined),
      })
      .map(({ auth, other, query, payload }) => {
        const headers = { ...other, ...auth } as Record<string, string>;
        const req: Req = { method: route.method, url: withQuery(route.url, query), headers, payload };
        return { req, expect: scopedExpectation(w, route, auth) };
      });
  }

  async function fuzzScoped(filter: (r: Route) => boolean, numRuns: number): Promise<void> {
    const routes = routesOf('scoped', filter);
    expect(routes.length).toBeGreaterThan(0);
    await withWorld(async (ctx) => {
      const failures: string[] = [];
      for (const route of routes) {
        const failure = await fuzz(ctx, route, numRuns, scopedArbitrary(ctx.w, route));
        if (failure) failures.push(failure);
      }
      return failures;
    });
  }

  it('reads (GET, HEAD): every query parameter, credential and header', async () => {
    await fuzzScoped((r) => !methodHasBody(r.method), 300);
  }, 240_000);

  it('writes (POST, PUT, DELETE): every body shape, credential and header', async () => {
    await fuzzScoped((r) => methodHasBody(r.method), 400);
  }, 240_000);
});

describe('hostile input on the public /api routes (QR codes, OpenAPI)', () => {
  it('answers only 200/304/400, with the standard error body', async () => {
    const routes = routesOf('public');
    await withWorld(async (ctx) => {
      const failures: string[] = [];
      for (const route of routes) {
        const arbitrary = fc
          .record({
            auth: authHeaders(ctx.w.creds),
            other: otherHeaders([ctx.w.passCookie]),
            query: queryFor(route.query, ctx.w.pools),
            payload: fc.option(payloadFor(undefined, ctx.w.pools), { freq: 4 }),
          })
          .map(({ auth, other, query, payload }) => ({
            req: {
              method: route.method,
              url: withQuery(route.url, query),
              headers: { ...other, ...auth } as Record<string, string>,
              payload: payload ?? undefined,
            },
            expect: { family: 'public' as const, only: route.query ? undefined : [200, 304] },
          }));
        const failure = await fuzz(ctx, route, route.query ? 150 : 20, arbitrary);
        if (failure) failures.push(failure);
      }
      return failures;
    });
  }, 240_000);
});

/**
 * Fuzzes the routes of a family no workspace credential opens (the embedded page, applications,
 * browser tracking): any credential, header and query, and a body (shaped by the route's schema
 * when `shapedBodies`) on POST; every answer must be one the family documents.
 */
async function fuzzOwnFamily(family: 'embed' | 'apply' | 'browser', minRoutes: number, shapedBodies: boolean): Promise<void> {
  const routes = routesOf(family);
  expect(routes.length).toBeGreaterThanOrEqual(minRoutes);
  await withWorld(async (ctx) => {
    const failures: string[] = [];
    for (const route of routes) {
      const arbitrary = fc
        .record({
          auth: authHeaders(ctx.w.creds),
          other: otherHeaders([ctx.w.passCookie]),
          query: queryFor(undefined, ctx.w.pools),
          payload: fc.option(payloadFor(shapedBodies ? route.body : undefined, ctx.w.pools), { freq: 4 }),
        })
        .map(({ auth, other, query, payload }) => ({
          req: {
            method: route.method,
            url: withQuery(route.url, query),
            headers: { ...other, ...auth } as Record<string, string>,
            payload: route.method === 'POST' ? (payload ?? undefined) : undefined,
          },
          expect: { family },
        }));
      const failure = await fuzz(ctx, route, 30, arbitrary);
      if (failure) failures.push(failure);
    }
    return failures;
  });
}

describe('hostile input on the embedded referral page and its API', () => {
  it('answers 401 to every credential and body that is no live page token (400/413/415 for a body refused first), with the standard error body or a page', async () => {
    await fuzzOwnFamily('embed', 3, false);
  }, 240_000);
});

describe('hostile input on the partner application page and its route', () => {
  it('answers only documented statuses, with the standard error body or a page, whatever the body and credentials', async () => {
    await fuzzOwnFamily('apply', 3, true);
  }, 240_000);
});

describe('hostile input on the browser-tracking routes', () => {
  it('answers only documented statuses with the standard error body, whatever the credentials, origin and body', async () => {
    await fuzzOwnFamily('browser', 6, true);
  }, 240_000);
});

describe('hostile input on the people routes (sign-in, setup, account, settings)', () => {
  it('answers only documented statuses with the standard error body, whatever the body, path and credentials', async () => {
    const routes = routesOf('people');
    await withWorld(async (ctx) => {
      // A person who owns A, signed in: many requests carry a real session (first-party or not).
      const password = 'a passphrase nobody else has';
      const email = `fuzz-${ctx.w.a.marker}@example.com`;
      const user = await t.admin('POST', '/users', { email, name: 'Fuzz', password });
      expectStatus(user, 201, 'user');
      expectStatus(await t.admin('POST', `/workspaces/${ctx.w.a.ws.id}/members`, { userId: user.json<{ id: string }>().id, role: 'owner' }), 201, 'member');
      const cookieOf = async () => {
        const login = await t.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password } });
        expectStatus(login, 200, 'login');
        return String(login.headers['set-cookie']).split(';')[0]!;
      };
      const ids = [ctx.w.a.ws.id, ctx.w.b.ws.id, ctx.w.c.id, user.json<{ id: string }>().id, '00000000-0000-0000-0000-000000000000', 'x', '%00'];
      const failures: string[] = [];
      for (const route of routes) {
        // Logout and leaving end the session: each run signs in afresh when needed.
        const cookie = await cookieOf();
        const arbitrary = fc
          .record({
            auth: fc.oneof(authHeaders(ctx.w.creds), fc.constant({})),
            session: fc.constantFrom(cookie, `${cookie}x`, `${cookie}; ${cookie}`, ''),
            origin: fc.constantFrom(undefined, 'https://lt.test', 'https://evil.test', 'null'),
            params: fc.record({
              id: fc.constantFrom(...ids),
              userId: fc.constantFrom(...ids),
              inviteId: fc.constantFrom(...ids),
              keyId: fc.constantFrom(...ids),
            }),
            payload: fc.option(payloadFor(route.body, ctx.w.pools), { freq: 4 }),
            // Failed sign-ins count per address in the shared store: the fuzz's own addresses
            // keep other test files' sign-ins from 127.0.0.1 clear of its failures.
            address: fc.ipV4().map((ip) => `${ip}`),
          })
          .map(({ auth, session, origin, params, payload, address }) => {
            const headers: Record<string, string> = { ...auth };
            if (session) headers.cookie = session;
            if (origin) headers.origin = origin;
            return {
              req: { method: route.method, url: concretePath(route.url, params), headers, payload: payload ?? undefined, remoteAddress: address },
              expect: { family: 'people' as const, extra: [413] },
            };
          });
        const failure = await fuzz(ctx, route, 25, arbitrary);
        if (failure) failures.push(failure);
      }
      return failures;
    });
  }, 240_000);
});

describe('hostile input on the OAuth server (authorize, token, revoke, metadata)', () => {
  it('answers documented statuses, RFC 6749 error bodies or pages, and redirects only to registered addresses', async () => {
    const routes = routesOf('oauth');
    await withWorld(async (ctx) => {
      const password = 'a passphrase nobody else has';
      const email = `oauth-fuzz-${ctx.w.a.marker}@example.com`;
      const user = await t.admin('POST', '/users', { email, name: 'OAuth fuzz', password });
      expectStatus(user, 201, 'user');
      expectStatus(await t.admin('POST', `/workspaces/${ctx.w.a.ws.id}/members`, { userId: user.json<{ id: string }>().id, role: 'owner' }), 201, 'member');
      const login = await t.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password } });
      expectStatus(login, 200, 'login');
      const cookie = String(login.headers['set-cookie']).split(';')[0]!;
      const registered = await t.inject({
        method: 'POST',
        url: `/api/workspaces/${ctx.w.a.ws.id}/oauth-apps`,
        headers: { cookie },
        payload: { name: 'Fuzz app', redirectUris: ['https://app.example/cb'], confidential: true, scopes: ['linksRead', 'tagsWrite'] },
      });
      expectStatus(registered, 201, 'oauth app');
      const { clientId, clientSecret } = registered.json<{ clientId: string; clientSecret: string }>();
      const value = fc.oneof(
        fc.constantFrom(
          clientId,
          clientSecret,
          'https://app.example/cb',
          'https://app.example/cb/',
          'code',
          'token',
          'S256',
          'plain',
          'linksRead',
          'linksRead tagsWrite',
          'partnersWrite',
          'allow',
          'deny',
          ctx.w.a.ws.id,
          ctx.w.b.ws.id,
          'authorization_code',
          'refresh_token',
          'ltac_' + 'A'.repeat(43),
          'ltr_' + 'A'.repeat(43),
          'lto_' + 'A'.repeat(43),
          'A'.repeat(43),
          '/oauth/authorize?x=1',
          'https://evil.example/',
        ),
        fc.string({ maxLength: 60 }),
      );
      const names = [
        'response_type',
        'client_id',
        'redirect_uri',
        'scope',
        'state',
        'code_challenge',
        'code_challenge_method',
        'workspaceId',
        'decision',
        'grant_type',
        'code',
        'code_verifier',
        'refresh_token',
        'client_secret',
        'token',
        'next',
        'email',
        'password',
      ];
      const params = fc.array(fc.tuple(fc.constantFrom(...names), value), { maxLength: 12 }).map((pairs) => new URLSearchParams(pairs).toString());
      const failures: string[] = [];
      for (const route of routes) {
        const arbitrary = fc
          .record({
            query: params,
            form: params,
            session: fc.constantFrom(cookie, '', `${cookie}x`),
            origin: fc.constantFrom(undefined, 'https://lt.test', 'https://evil.test'),
            basic: fc.option(
              fc
                .tuple(fc.constantFrom(clientId, 'ltc_nope', ''), fc.constantFrom(clientSecret, 'wrong', ''))
                .map(([i, s]) => `Basic ${Buffer.from(`${i}:${s}`).toString('base64')}`),
            ),
            type: fc.constantFrom('application/x-www-form-urlencoded', 'application/json', 'text/plain'),
            address: fc.ipV4(),
          })
          .map(({ query, form, session, origin, basic, type, address }) => {
            const headers: Record<string, string> = {};
            if (session) headers.cookie = session;
            if (origin) headers.origin = origin;
            if (basic) headers.authorization = basic;
            const hasBody = route.method === 'POST';
            if (hasBody) headers['content-type'] = type;
            const payload = hasBody ? (type === 'application/json' ? JSON.stringify(Object.fromEntries(new URLSearchParams(form))) : form) : undefined;
            return {
              req: { method: route.method, url: withQuery(route.url, query), headers, payload, remoteAddress: address },
              expect: { family: 'oauth' as const },
            };
          });
        // Sign-in attempts wait out the growing delays of failed ones: fewer runs there.
        const failure = await fuzz(ctx, route, 40, arbitrary);
        if (failure) failures.push(failure);
      }
      return failures;
    });
  }, 240_000);
});

describe('hostile input on the short links', () => {
  it('GET/HEAD/POST /:shortId with random ids, forms, cookies and visitors: documented statuses, no click for B', async () => {
    const routes = routesOf('redirect');
    const topLevel = new Set(allRoutes().map((r) => r.url.split('/')[1] ?? ''));
    await withWorld(async (ctx) => {
      const { a, b } = ctx.w;
      const failures: string[] = [];
      for (const route of routes) {
        const isPost = route.method === 'POST';
        const target = fc.oneof(
          { weight: 3, arbitrary: fc.constantFrom(a.plainShortId, a.passwordShortId) },
          // A visit of B's open link would record a click for B: only HEAD and POST reach it.
          { weight: 2, arbitrary: fc.constant(route.method === 'GET' ? b.passwordShortId : b.plainShortId) },
          { weight: 1, arbitrary: fc.constant(b.passwordShortId) },
          { weight: 2, arbitrary: fc.stringMatching(SHORT_ID) },
          { weight: 2, arbitrary: hostileString().map(encode) },
          {
            weight: 1,
            arbitrary: fc.constantFrom(
              '%zz',
              '%',
              '%E0%A4%A',
              '%00',
              '%2F',
              '..',
              'x'.repeat(150),
              encodeURIComponent(a.plainShortId.slice(0, 7)) + '%41',
              a.plainShortId.toLowerCase(),
            ),
          },
        );
        const form = fc.oneof(
          fc.constant(undefined),
          fc.oneof(fc.constant(a.password), hostileString()).map((p) => `password=${encode(p)}`),
          fc.tuple(hostileString(), hostileString()).map(([k, v]) => `${encode(k)}=${encode(v)}&password=${encode(v)}`),
          hostileString(),
          fc.constant(`password=${'x'.repeat(5000)}`),
          fc.constant(JSON.stringify({ password: a.password })),
        );
        const arbitrary = fc
          .record({
            id: target.filter((id) => id.length > 0 && !topLevel.has(id)),
            query: queryFor({ properties: { utm_source: {}, ltid: {} } }, ctx.w.pools),
            other: otherHeaders([ctx.w.passCookie]),
            auth: authHeaders(ctx.w.creds),
            formType: fc.oneof({ weight: 3, arbitrary: fc.constant('application/x-www-form-urlencoded') }, { weight: 1, arbitrary: contentType }),
            payload: isPost ? form : fc.constant(undefined),
          })
          .map(({ id, query, other, auth, formType, payload }) => {
            const headers = { ...other, ...auth } as Record<string, string>;
            if (isPost) headers['content-type'] = formType;
            // The catch-all is reached by two segments (a one-segment path is `/:shortId`'s).
            const path = route.url === '/*' ? `${id}/${id}` : id;
            const req: Req = { method: route.method, url: withQuery(concretePath(route.url, { shortId: id, '*': path }), query), headers, payload };
            return { req, expect: redirectExpectation(path, req) };
          });
        const failure = await fuzz(ctx, route, 500, arbitrary);
        if (failure) failures.push(failure);
      }
      return failures;

      function redirectExpectation(id: string, req: Req): Expectation {
        const extra: number[] = [];
        // A dot-segment id (`..`) resolves to `/`, which sends to the dashboard (operations.md §10).
        if (new URL(req.url, 'http://x').pathname === '/') return { family: 'redirect', only: [302, 404, 400, 413], extra: [302, 400, 413] };
        if (req.method === 'POST') {
          // A body the form parser refuses: not a form (400) or over its 4 KB limit (413).
          const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
          if (type !== 'application/x-www-form-urlencoded') extra.push(400);
          if (Buffer.byteLength(req.payload ?? '') > 4096) extra.push(413);
        }
        let decoded: string | undefined;
        try {
          decoded = decodeURIComponent(id);
        } catch {
          decoded = undefined;
        }
        // Not a short id at all: an unknown route (a malformed escape may be a 400).
        if (decoded === undefined) return { family: 'redirect', only: [400, 404, ...extra], extra: [400, ...extra] };
        if (!SHORT_ID.test(decoded)) return { family: 'redirect', only: [404, ...extra], extra };
        if (decoded === b.passwordShortId) {
          // No cookie of B's link is ever sent: the form again, never the destination.
          return { family: 'redirect', only: req.method === 'POST' ? [401, 429, ...extra] : [401], extra };
        }
        if (decoded === b.plainShortId) return { family: 'redirect', only: req.method === 'POST' ? [303, ...extra] : [200, 302], extra };
        if (decoded === a.plainShortId || decoded === a.passwordShortId) return { family: 'redirect', extra };
        return { family: 'redirect', only: [404, ...extra], extra };
      }
    });
  }, 240_000);
});

describe('hostile input on the operator API', () => {
  it('answers 200/201/400/401/404 only; without the token always 401', async () => {
    const routes = routesOf('admin');
    await withWorld(async (ctx) => {
      const { w } = ctx;
      const failures: string[] = [];
      const garbageIds = fc.oneof(hostileString().map(encode), fc.constantFrom('%zz', '%', 'x'.repeat(150), 'not-a-uuid', '..', '%2F'));
      // With the operator token only C (a scratch workspace) and unknown ids: the fuzz must not
      // legitimately change A or B through the operator API.
      const safeIds = fc.oneof(
        { weight: 4, arbitrary: fc.constant(w.c.id) },
        { weight: 1, arbitrary: fc.constantFrom(...w.c.keyIds) },
        { weight: 1, arbitrary: fc.uuid() },
        { weight: 1, arbitrary: garbageIds },
      );
      const anyIds = fc.oneof(fc.constantFrom(...w.pools.ids), safeIds);
      for (const route of routes) {
        const arbitrary = fc
          .record({
            auth: adminAuthHeaders(w.creds),
            safeId: safeIds,
            anyId: anyIds,
            other: otherHeaders([]),
            query: queryFor(undefined, w.pools),
            payload: methodHasBody(route.method) ? payloadFor(route.body, w.pools) : fc.constant(undefined),
          })
          .map(({ auth, safeId, anyId, other, query, payload }) => {
            const operator = adminTokenOf(auth) === ADMIN_TOKEN;
            const id = operator ? safeId : anyId;
            const req: Req = {
              method: route.method,
              url: withQuery(concretePath(route.url, { id }), query),
              headers: { ...other, ...auth } as Record<string, string>,
              payload,
            };
            let decoded: string | undefined;
            try {
              decoded = decodeURIComponent(id);
            } catch {
              decoded = undefined;
            }
            // An id that is no path segment at all (malformed, too long, '..', a slash) may miss the route.
            const oddPath = route.url.includes(':id') && (decoded === undefined || !/^[^/]{1,100}$/.test(decoded) || decoded === '.' || decoded === '..');
            const only = operator ? undefined : oddPath ? [400, 401, 404] : [401];
            return { req, expect: { family: 'admin' as const, only, operator, extra: startsImport(route) } };
          });
        const failure = await fuzz(ctx, route, 250, arbitrary);
        if (failure) failures.push(failure);
      }
      return failures;
    });
  }, 240_000);
});

describe('hostile input on the inbound Stripe webhook', () => {
  it('answers 200/400/404/413 only, with the standard error body; nothing signed wrongly is recorded', async () => {
    const routes = routesOf('inbound');
    await withWorld(async (ctx) => {
      const failures: string[] = [];
      // A pending and a connected connection of C (the scratch workspace), beside unknown and garbage ids.
      // Connecting is an owner's act by session (operations.md §12).
      const c = await t.workspace({ plan: 'free' });
      const cOwner = (await signedInMember(t, c.id, 'owner')).cookie;
      const pending = (await asSession(t, cOwner, 'POST', '/api/integrations/stripe', undefined, { workspaceId: c.id })).json<{ id: string }>().id;
      const d = await t.workspace({ plan: 'free' });
      const dKey = d.key;
      const dOwner = (await signedInMember(t, d.id, 'owner')).cookie;
      const connected = (await asSession(t, dOwner, 'POST', '/api/integrations/stripe', undefined, { workspaceId: d.id })).json<{ id: string }>().id;
      const put = await asSession(t, dOwner, 'PUT', '/api/integrations/stripe', { signingSecret: 'whsec_fuzz0123456789abcdef' }, { workspaceId: d.id });
      expectStatus(put, 200, 'connect');
      // (No dot segments: /webhooks/stripe/.. is another path, the visitors' pages' 404.)
      const ids = fc.oneof(
        fc.constantFrom(pending, connected, connected),
        fc.uuid(),
        hostileString()
          .map(encode)
          .filter((id) => !/^(\.|%2e){1,2}$/i.test(id)),
        fc.constantFrom('%zz', 'x'.repeat(150)),
      );
      const signature = fc.option(
        fc.oneof(
          hostileString().map(headerSafe),
          fc
            .tuple(fc.integer({ min: 0, max: 2 ** 32 }), fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), maxLength: 64 }))
            .map(([ts, v1]) => `t=${ts},v1=${v1}`),
        ),
        { freq: 5 },
      );
      for (const route of routes) {
        const arbitrary = fc
          .record({ id: ids, signature, other: otherHeaders([]), payload: fc.option(payloadFor(undefined, ctx.w.pools), { freq: 6 }) })
          .map(({ id, signature: sig, other, payload }) => ({
            req: {
              method: route.method,
              url: concretePath(route.url, { id }),
              headers: { ...other, ...(sig === null ? {} : { 'stripe-signature': sig }) } as Record<string, string>,
              payload: payload ?? undefined,
            },
            expect: { family: 'inbound' as const, only: [400, 404, 413] },
          }));
        const failure = await fuzz(ctx, route, 150, arbitrary);
        if (failure) failures.push(failure);
      }
      const listed = await t.inject({ method: 'GET', url: '/api/integrations/stripe/events', headers: bearer(dKey) });
      expectStatus(listed, 200, 'events');
      if (listed.json<unknown[]>().length !== 0) failures.push(`events recorded from unsigned posts: ${cut(listed.body)}`);
      return failures;
    });
  }, 240_000);
});

describe('hostile input on the service routes (health, readiness, docs, attribution script)', () => {
  it('answers 200/302/304/404 (readiness: 503 too), never a 500', async () => {
    const routes = routesOf('service');
    await withWorld(async (ctx) => {
      const failures: string[] = [];
      for (const route of routes) {
        const arbitrary = fc
          .record({
            rest: fc.oneof(
              fc.constantFrom('index.html', 'swagger-ui.css', 'nope', '../../package.json', '%2e%2e/%2e%2e/package.json', 'a/b/c', '%zz'),
              hostileString().map(encode),
            ),
            auth: authHeaders(ctx.w.creds),
            other: otherHeaders([ctx.w.passCookie]),
            query: queryFor(undefined, ctx.w.pools),
            payload: fc.option(payloadFor(undefined, ctx.w.pools), { freq: 4 }),
          })
          .map(({ rest, auth, other, query, payload }) => {
            // Readiness may be 503; the certificate question without a usable ?domain= is a 400.
            const extra = route.url === '/readyz' ? [503] : route.url === '/internal/domains/allowed' ? [400] : [];
            // An alias's password form (POST), as a short link's: a body that is no form is 400, over 4 KB 413.
            if (route.url.startsWith('/__claimed-host') && route.method === 'POST') extra.push(400, 413);
            let malformed = false;
            try {
              decodeURIComponent(rest);
            } catch {
              malformed = true;
            }
            if (route.url.endsWith('*') && malformed) extra.push(400);
            return {
              req: {
                method: route.method,
                url: withQuery(concretePath(route.url, { '*': rest }), query),
                headers: { ...other, ...auth } as Record<string, string>,
                payload: payload ?? undefined,
              },
              expect: { family: 'service' as const, extra },
            };
          });
        const failure = await fuzz(ctx, route, 30, arbitrary);
        if (failure) failures.push(failure);
      }
      return failures;
    });
  }, 240_000);
});

describe('text that cannot be stored, in every documented query parameter', () => {
  it('answers 200 or 400 to NUL and lone surrogates in each parameter of each route, never a 500', async () => {
    const routes = allRoutes().filter((r) => r.query && (r.family === 'scoped' || r.family === 'public'));
    expect(routes.length).toBeGreaterThan(0);
    await withWorld(async (ctx) => {
      const failures: string[] = [];
      for (const route of routes) {
        for (const name of Object.keys(route.query!.properties ?? {})) {
          for (const value of ['%00', 'a%00b', '%ED%A0%80', '%C0%80', encode('\uDC00x')]) {
            const req: Req = {
              method: route.method,
              url: `${route.url}?${encode(name)}=${value}${route.url === '/api/qr' && name !== 'text' ? '&text=x' : ''}`,
              headers: bearer(ctx.w.a.ws.key),
            };
            const res = await send(req);
            try {
              checkAnswer(ctx, req, res, { family: route.family!, only: [200, 400], asA: route.family === 'scoped' });
            } catch (err) {
              failures.push(`${route.method} ${route.url} ?${name}=${value}: ${(err as Error).message}`);
            }
          }
        }
      }
      return failures;
    });
  }, 240_000);
});

// Last: a request this test sends may take the embedded database down with it.
describe('deeply nested JSON in every body', () => {
  it('answers 2xx or 400 (never a 500) to nesting 1,000 to 100,000 deep, and the database stays up', async () => {
    const w = await world();
    const ctx: Ctx = { w, adopted: new Set() };
    const asA = { ...bearer(w.a.ws.key), 'content-type': 'application/json' };
    const operator = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
    const failures: string[] = [];
    const alive = async (): Promise<boolean> => {
      const ready = await t.inject({ method: 'GET', url: '/readyz' });
      const tags = await t.inject({ method: 'GET', url: '/api/tags', headers: bearer(w.a.ws.key) });
      return ready.statusCode === 200 && tags.statusCode === 200;
    };
    const attempt = async (route: Route, payload: string, what: string, headers: Record<string, string>) => {
      const url = concretePath(route.url, { id: w.c.id });
      const req: Req = { method: route.method, url, headers, payload };
      const res = await send(req);
      try {
        checkAnswer(ctx, req, res, {
          family: route.family!,
          only: [200, 201, 400, 404, 413, ...startsImport(route)],
          asA: route.family === 'scoped',
          operator: route.family === 'admin',
          extra: startsImport(route),
        });
      } catch (err) {
        failures.push(`${route.method} ${route.url} with ${what}: ${(err as Error).message}`);
      }
    };
    // Routes only a session may call (sessionOnly) get the deep bodies from A's owner, signed in.
    const asOwnerOfA = { ...sessionHeaders((await signedInMember(t, w.a.ws.id, 'owner')).cookie, w.a.ws.id), 'content-type': 'application/json' };
    const bodyRoutes = allRoutes().filter((r) => r.body && methodHasBody(r.method) && (r.family === 'scoped' || r.family === 'admin'));
    expect(bodyRoutes.length).toBeGreaterThan(0);
    for (const route of bodyRoutes) {
      const headers = route.family === 'admin' ? operator : route.sessionOnly ? asOwnerOfA : asA;
      for (const depth of [1_000, 100_000]) {
        for (const kind of ['array', 'object'] as const) await attempt(route, nestedText(depth, kind), `a top-level ${kind} ${depth} deep`, headers);
      }
      // Inside each structured field (objects, lists) as well.
      const item = route.body!.type === 'array' ? route.body!.items : route.body;
      const structured = Object.entries(item?.properties ?? {}).filter(([, s]) => {
        const types = [s.type, ...(s.anyOf ?? []).map((x) => x.type)].flat();
        return types.includes('object') || types.includes('array');
      });
      for (const [field] of structured) {
        const deep = nestedText(10_000, 'object');
        const value = `{"${field}":${deep}}`;
        await attempt(route, route.body!.type === 'array' ? `[${value}]` : value, `${field} 10,000 deep`, headers);
      }
    }
    expect(await alive(), 'the database answers after the generic deep bodies').toBe(true);

    // Valid conversions whose metadata (stored as jsonb) is deep: accepted or refused, and then
    // the database must still be there.
    const base = { eventName: 'deep', customerExternalId: w.a.customerExternalId, customerName: 'Deep' };
    deep: for (const depth of [1_000, 2_000, 5_000]) {
      for (const [url, body] of [
        ['/api/track/lead', { ...base, clickId: w.a.clickId }],
        ['/api/track/sale', { ...base, amount: 100 }],
      ] as const) {
        const route = allRoutes().find((r) => r.method === 'POST' && r.url === url)!;
        const payload = JSON.stringify(body).replace(/}$/, `,"metadata":${nestedText(depth, 'object')}}`);
        await attempt(route, payload, `valid ${url} with metadata ${depth} deep`, asA);
        if (!(await alive())) {
          failures.push(`the database stopped answering after ${url} with metadata ${depth} deep`);
          break deep;
        }
      }
    }
    expect(failures, failures.join('\n\n')).toEqual([]);
  }, 240_000);
});
