/**
 * GET and POST /oauth/authorize and GET /api/oauth/authorize (operations.md §9), through HTTP:
 * the error page for an unknown client or an unregistered redirect URI (never a redirect),
 * RFC 6749 §4.1.2.1 redirects with `error` and `state` for every other problem, the
 * dashboard's sign-in and back, the dashboard's consent page (what the API tells it: the app,
 * the scopes, only the workspaces whose role allows them; its CSP form-action), and the
 * consent itself (same origin only, deny, a workspace that does not allow, no session).
 * PGlite, and PostgreSQL + Redis.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { addMember, asSession, createUser, login, ORIGIN, ownedWorkspace, signedInMember, type SignedIn } from '../people/helpers.js';
import {
  authorizeParams,
  authorizePath,
  backToApp,
  expectPage,
  FORM,
  getAuthorize,
  grantCount,
  grantIdOf,
  OTHER_REDIRECT_URI,
  pkce,
  postConsent,
  REDIRECT_URI,
  registerApp,
  SAME_ORIGIN,
  CODE_RE,
  type RegisteredApp,
} from './helpers.js';

let t: TestApp;
let owner: SignedIn;
let workspaceId: string;
let app: RegisteredApp;

beforeAll(async () => {
  t = await startTestApp();
  const made = await ownedWorkspace(t);
  owner = made.owner;
  workspaceId = made.workspace.id;
  app = await registerApp(t, owner, workspaceId);
});
afterAll(() => t?.close());

const { challenge } = pkce();

describe('GET /oauth/authorize: an app that cannot be sent back to gets a page, never a redirect', () => {
  test('an unknown client_id: 400 page, no Location', async () => {
    expectPage(await getAuthorize(t, authorizeParams(app, challenge, { client_id: `ltc_${randomBytes(32).toString('base64url')}` })), 400, 'unknown');
  });

  test('no client_id at all: 400 page', async () => {
    expectPage(await getAuthorize(t, authorizeParams(app, challenge, { client_id: undefined })), 400, 'unknown');
  });

  const unregistered: [string, string | undefined][] = [
    ['missing', undefined],
    ['a prefix of the registered one', REDIRECT_URI.slice(0, -1)],
    ['the registered one with a suffix', `${REDIRECT_URI}x`],
    ['the registered one with a path segment more', `${REDIRECT_URI}/evil`],
    ['an extra slash', `${REDIRECT_URI}/`],
    ['a double slash in the path', REDIRECT_URI.replace('/oauth/', '//oauth/')],
    ['another case in the path', REDIRECT_URI.replace('callback', 'Callback')],
    ['another case in the host', REDIRECT_URI.replace('app.example.com', 'APP.example.com')],
    ['a query added', `${REDIRECT_URI}?next=https://evil.example`],
    ['http instead of https', REDIRECT_URI.replace('https:', 'http:')],
    ['a port added', REDIRECT_URI.replace('app.example.com', 'app.example.com:443')],
    ['another host', 'https://evil.example/oauth/callback'],
    ['a sub-host of the registered host', 'https://evil.app.example.com/oauth/callback'],
  ];
  test.each(unregistered)('redirect_uri %s: 400 page, no Location, even with every other parameter wrong', async (_what, uri) => {
    // Wrong response_type too: the page must win over any redirect to an unverified address.
    const res = await getAuthorize(t, authorizeParams(app, challenge, { redirect_uri: uri, response_type: 'token' }));
    expectPage(res, 400, 'not registered');
    expect(res.body).not.toContain('unsupported_response_type');
  });

  test("a redirect_uri of another app is not this app's: page", async () => {
    const other = await registerApp(t, owner, workspaceId, { redirectUris: ['https://other.example/cb'] });
    expectPage(await getAuthorize(t, authorizeParams(app, challenge, { redirect_uri: other.redirectUris[0] })), 400, 'not registered');
  });

  test('a deleted app is unknown: page', async () => {
    const doomed = await registerApp(t, owner, workspaceId);
    const del = await asSession(t, owner.cookie, 'DELETE', `/api/workspaces/${workspaceId}/oauth-apps/${doomed.id}`);
    expect(del.statusCode, del.body).toBe(200);
    expectPage(await getAuthorize(t, authorizeParams(doomed, challenge)), 400, 'unknown');
  });

  test('a parameter repeated: 400 page', async () => {
    for (const repeated of ['state', 'client_id', 'scope', 'code_challenge']) {
      const params = authorizeParams(app, challenge);
      const res = await t.inject({ method: 'GET', url: `${authorizePath(params)}&${repeated}=${encodeURIComponent(params[repeated]!)}` });
      expectPage(res, 400, 'repeated');
    }
  });
});

describe('GET /oauth/authorize: other problems go back to the app with error and state', () => {
  const cases: [string, Record<string, string | undefined>, string][] = [
    ['response_type missing', { response_type: undefined }, 'unsupported_response_type'],
    ['response_type=token', { response_type: 'token' }, 'unsupported_response_type'],
    ['response_type=code token', { response_type: 'code token' }, 'unsupported_response_type'],
    ['no code_challenge', { code_challenge: undefined }, 'invalid_request'],
    ['code_challenge_method=plain', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['code_challenge_method missing', { code_challenge_method: undefined }, 'invalid_request'],
    ['code_challenge_method in another case', { code_challenge_method: 's256' }, 'invalid_request'],
    ['a challenge one character short', { code_challenge: challenge.slice(1) }, 'invalid_request'],
    ['a challenge one character long', { code_challenge: `${challenge}A` }, 'invalid_request'],
    ['a challenge in base64 (+ and /)', { code_challenge: `${'+/'.repeat(21)}A` }, 'invalid_request'],
    ['an unknown scope', { scope: 'linksRead linksDelete' }, 'invalid_scope'],
    ["a scope beyond the app's", { scope: 'linksRead tagsWrite' }, 'invalid_scope'],
    ['a scope in another case', { scope: 'LinksRead' }, 'invalid_scope'],
  ];
  test.each(cases)('%s: 302 to the redirect URI with that error and the state', async (_what, change, error) => {
    const params = authorizeParams(app, challenge, change);
    const back = backToApp(await getAuthorize(t, params));
    expect(back.get('error')).toBe(error);
    expect(back.get('error_description')?.length).toBeGreaterThan(0);
    expect(back.get('state')).toBe(params.state);
    expect(back.get('code')).toBeNull();
  });

  test('to the second registered redirect URI when that one was asked; no state when none was sent', async () => {
    const params = authorizeParams(app, challenge, { redirect_uri: OTHER_REDIRECT_URI, code_challenge_method: 'plain', state: undefined });
    const back = backToApp(await getAuthorize(t, params), OTHER_REDIRECT_URI);
    expect(back.get('error')).toBe('invalid_request');
    expect(back.has('state')).toBe(false);
  });

  test('a registered redirect URI with its own query keeps it, and a state with odd characters comes back unchanged', async () => {
    const withQuery = await registerApp(t, owner, workspaceId, { redirectUris: ['https://app.example.com/cb?tenant=7&x=a%20b'] });
    const state = 'a b&c=d/é"<';
    const params = authorizeParams(withQuery, challenge, { response_type: 'token', state });
    const back = backToApp(await getAuthorize(t, params), withQuery.redirectUris[0]);
    expect(back.get('tenant')).toBe('7');
    expect(back.get('x')).toBe('a b');
    expect(back.get('error')).toBe('unsupported_response_type');
    expect(back.get('state')).toBe(state);
  });

  test('the checks come before the sign-in: a signed-in user gets the same redirect', async () => {
    const params = authorizeParams(app, challenge, { scope: 'tagsRead' });
    const back = backToApp(await getAuthorize(t, params, owner.cookie));
    expect(back.get('error')).toBe('invalid_scope');
    expect(back.get('state')).toBe(params.state);
  });
});

describe("not signed in: to the dashboard's sign-in and back", () => {
  test('GET /oauth/authorize without a session: 302 /app?next=<the authorize path and query>, not cached', async () => {
    const path = authorizePath(authorizeParams(app, challenge));
    const res = await t.inject({ method: 'GET', url: path });
    expect(res.statusCode, res.body).toBe(302);
    expect(res.headers.location).toBe(`/app?next=${encodeURIComponent(path)}`);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  test('a cookie that is no session, or a signed-out one, counts as not signed in', async () => {
    const signedOut = await signedInMember(t, workspaceId, 'member');
    expect((await asSession(t, signedOut.cookie, 'POST', '/api/auth/logout')).statusCode).toBe(204);
    for (const cookie of ['__Host-lt_session=lts_nothing', signedOut.cookie]) {
      const res = await getAuthorize(t, authorizeParams(app, challenge), cookie);
      expect(res.statusCode, res.body).toBe(302);
      expect(String(res.headers.location)).toMatch(/^\/app\?next=%2Foauth%2Fauthorize%3F/);
    }
  });

  test("the round trip: the dashboard's sign-in gives a session, next leads to the consent page, which reads the request and can allow", async () => {
    const user = await createUser(t);
    await addMember(t, workspaceId, user.id, 'member');
    const params = authorizeParams(app, challenge);
    const toSignIn = await t.inject({ method: 'GET', url: authorizePath(params) });
    const next = new URL(String(toSignIn.headers.location), ORIGIN).searchParams.get('next')!;
    expect(next).toBe(authorizePath(params));

    const cookie = await login(t, user);
    const back = await t.inject({ method: 'GET', url: next, headers: { cookie } });
    expect(back.statusCode, back.body).toBe(302);
    expect(back.headers.location).toBe(`/app/oauth/consent?${new URLSearchParams(params).toString()}`);
    const read = await readConsent(cookie, params);
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json<ConsentAnswer>().workspaces.map((w) => w.id)).toEqual([workspaceId]);
    const allowed = backToApp(await postConsent(t, cookie, { ...params, workspaceId, decision: 'allow' }));
    expect(allowed.get('code')).toMatch(CODE_RE);
    expect(allowed.get('state')).toBe(params.state);
  });

  test('the sign-in pages of the authorization server are gone (the dashboard signs in)', async () => {
    for (const method of ['GET', 'POST'] as const) expect((await t.inject({ method, url: '/oauth/sign-in' })).statusCode).toBe(404);
  });

  /** The Location is made from the parsed parameters: percent-encoded ASCII, never a 5xx, no header of its own. */
  test.each([
    ['a line break', 'x\r\nSet-Cookie: planted=1'],
    ['a character outside Latin-1', 'x\u4e2d'],
    ['markup', '"><script>alert(2)</script>'],
  ])('a state with %s comes back percent-encoded in the Location, signed in or not', async (_what, state) => {
    const params = authorizeParams(app, challenge, { state });
    for (const cookie of [undefined, owner.cookie]) {
      const res = await getAuthorize(t, params, cookie);
      expect(res.statusCode, res.body).toBe(302);
      const location = String(res.headers.location);
      expect(location).toMatch(/^[\x21-\x7e]+$/);
      expect(String(res.headers['set-cookie'] ?? '')).not.toContain('planted');
      const query = cookie
        ? new URL(location, ORIGIN).searchParams
        : new URLSearchParams(new URL(new URL(location, ORIGIN).searchParams.get('next')!, ORIGIN).search);
      expect(query.get('state')).toBe(state);
    }
  });

  test("parameters that are not the authorize request's are not passed on", async () => {
    const res = await getAuthorize(t, { ...authorizeParams(app, challenge), next: 'https://evil.example/', prompt: 'none' }, owner.cookie);
    expect(res.statusCode, res.body).toBe(302);
    const passed = [...new URL(String(res.headers.location), ORIGIN).searchParams.keys()];
    expect(passed).toEqual(['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method']);
  });
});

interface ConsentAnswer {
  app: { name: string; clientId: string };
  scopes: string[];
  workspaces: { id: string; name: string; role: string }[];
}

/** GET /api/oauth/authorize, as the consent page asks it (same origin, session cookie). */
const readConsent = (cookie: string | undefined, params: Record<string, string>, headers: Record<string, string> = SAME_ORIGIN) =>
  t.inject({ method: 'GET', url: `/api/oauth/authorize?${new URLSearchParams(params).toString()}`, headers: { ...headers, ...(cookie ? { cookie } : {}) } });

/** A 400 of the API naming the query parameter, in English and Arabic. */
function expectBadQuery(res: Awaited<ReturnType<typeof readConsent>>, field: string, en: RegExp): void {
  expect(res.statusCode, res.body).toBe(400);
  const { error } = res.json<{ error: { code: string; en: string; ar: string } }>();
  expect(error.code).toBe('invalid_query');
  expect(error.en).toContain(field);
  expect(error.en).toMatch(en);
  expect(error.ar).toContain(field);
  expect(error.ar).toMatch(/[\u0600-\u06ff]/);
}

describe("the consent: GET /oauth/authorize signed in, GET /api/oauth/authorize, the page's CSP", () => {
  let viewerOf: string;
  let person: SignedIn;
  let ownWorkspace: string;

  beforeAll(async () => {
    // The person owns one workspace, is a viewer in another, and is in neither of the rest.
    person = await signedInMember(t, null, 'member');
    ownWorkspace = (await t.workspace()).id;
    viewerOf = (await t.workspace()).id;
    await addMember(t, ownWorkspace, person.user.id, 'owner');
    await addMember(t, viewerOf, person.user.id, 'viewer');
  });

  test("a signed-in user gets the consent: 302 to the dashboard's /app/oauth/consent with the same parameters, not cached", async () => {
    const params = authorizeParams(app, challenge);
    const res = await getAuthorize(t, params, person.cookie);
    expect(res.statusCode, res.body).toBe(302);
    expect(res.headers['cache-control']).toBe('no-store');
    const to = new URL(String(res.headers.location), ORIGIN);
    expect(to.origin + to.pathname).toBe(`${ORIGIN}/app/oauth/consent`);
    expect(Object.fromEntries(to.searchParams)).toEqual(params);
  });

  test('reached from another site (a top-level navigation), the session still names who is signed in', async () => {
    const res = await t.inject({
      method: 'GET',
      url: authorizePath(authorizeParams(app, challenge)),
      headers: { cookie: person.cookie, 'sec-fetch-site': 'cross-site', referer: 'https://app.example.com/' },
    });
    expect(res.statusCode, res.body).toBe(302);
    expect(String(res.headers.location)).toMatch(/^\/app\/oauth\/consent\?/);
  });

  test('the API names the app and each scope asked', async () => {
    const res = await readConsent(person.cookie, authorizeParams(app, challenge));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      app: { name: 'Sync Robot', clientId: app.clientId },
      scopes: ['linksRead', 'linksWrite'],
      workspaces: [{ id: ownWorkspace, name: expect.any(String), role: 'owner' }],
    });
  });

  test('only the scopes asked: linksRead alone', async () => {
    const res = await readConsent(person.cookie, authorizeParams(app, challenge, { scope: 'linksRead' }));
    expect(res.json<ConsentAnswer>().scopes).toEqual(['linksRead']);
  });

  test.each([
    ['omitted', undefined],
    ['empty', ''],
  ])("scope %s: the app's scopes", async (_what, scope) => {
    const narrow = await registerApp(t, owner, workspaceId, { scopes: ['tagsRead', 'analyticsRead'] });
    const res = await readConsent(person.cookie, authorizeParams(narrow, challenge, { scope }));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<ConsentAnswer>().scopes).toEqual(['tagsRead', 'analyticsRead']);
  });

  test('only the workspaces whose role allows the scopes: a viewer workspace for linksRead, not for linksWrite; never a workspace the user is not in', async () => {
    const write = await readConsent(person.cookie, authorizeParams(app, challenge, { scope: 'linksRead linksWrite' }));
    expect(write.json<ConsentAnswer>().workspaces.map((w) => w.id)).toEqual([ownWorkspace]);
    const read = await readConsent(person.cookie, authorizeParams(app, challenge, { scope: 'linksRead' }));
    const offeredRead = read.json<ConsentAnswer>().workspaces;
    expect(offeredRead.map((w) => w.id).sort()).toEqual([ownWorkspace, viewerOf].sort());
    expect(offeredRead.find((w) => w.id === viewerOf)?.role).toBe('viewer');
    expect(offeredRead.map((w) => w.id)).not.toContain(workspaceId);
  });

  test('a user whose workspaces allow none: an empty list (the page offers only deny)', async () => {
    const viewer = await signedInMember(t, viewerOf, 'viewer');
    const res = await readConsent(viewer.cookie, authorizeParams(app, challenge, { scope: 'linksWrite' }));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<ConsentAnswer>().workspaces).toEqual([]);
  });

  test('the app name comes back as data, unchanged', async () => {
    const evil = await registerApp(t, owner, workspaceId, { name: '<script>alert(1)</script>' });
    const res = await readConsent(person.cookie, authorizeParams(evil, challenge));
    expect(res.json<ConsentAnswer>().app.name).toBe('<script>alert(1)</script>');
    expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
  });

  test.each([
    ['an unknown client_id', { client_id: 'ltc_unknown' }, 'client_id', /not the client_id of an app registered here/],
    ['no client_id', { client_id: undefined }, 'client_id', /not the client_id/],
    ['an unregistered redirect_uri', { redirect_uri: `${REDIRECT_URI}/` }, 'redirect_uri', /not one of the redirect URIs the app registered/],
    ['no redirect_uri', { redirect_uri: undefined }, 'redirect_uri', /redirect URIs/],
    ['response_type=token', { response_type: 'token' }, 'response_type', /must be one of code/],
    ['no code_challenge', { code_challenge: undefined }, 'code_challenge', /is required/],
    ['code_challenge_method=plain', { code_challenge_method: 'plain' }, 'code_challenge_method', /must be one of S256/],
    ['a short code_challenge', { code_challenge: challenge.slice(1) }, 'code_challenge', /SHA-256/],
    ['an unknown scope', { scope: 'linksRead linksDelete' }, 'scope', /linksDelete, which is not a scope/],
    ["a scope beyond the app's", { scope: 'linksRead tagsWrite' }, 'scope', /tagsWrite, which this app may not ask for/],
  ])('%s: 400 naming the parameter, in English and Arabic', async (_what, change, field, en) => {
    expectBadQuery(await readConsent(person.cookie, authorizeParams(app, challenge, change)), field, en);
  });

  test('a parameter repeated: 400', async () => {
    const params = authorizeParams(app, challenge);
    const res = await t.inject({
      method: 'GET',
      url: `/api/oauth/authorize?${new URLSearchParams(params).toString()}&client_id=${app.clientId}`,
      headers: { ...SAME_ORIGIN, cookie: person.cookie },
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json<{ error: { code: string } }>().error.code).toBe('invalid_query');
  });

  test('not signed in, signed out, or asked from another site (the cookie is no credential there): 401', async () => {
    const params = authorizeParams(app, challenge);
    expect((await readConsent(undefined, params)).statusCode).toBe(401);
    const gone = await signedInMember(t, workspaceId, 'member');
    expect((await asSession(t, gone.cookie, 'POST', '/api/auth/logout')).statusCode).toBe(204);
    expect((await readConsent(gone.cookie, params)).statusCode).toBe(401);
    for (const headers of [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site' }] as Record<string, string>[])
      expect((await readConsent(person.cookie, params, headers)).statusCode).toBe(401);
  });

  /** The form-action directive of a dashboard page's CSP. */
  const formActionOf = async (url: string) =>
    String((await t.inject({ method: 'GET', url })).headers['content-security-policy'])
      .split('; ')
      .filter((d) => d.startsWith('form-action'));
  const consentFormAction = (query: string) => formActionOf(`/app/oauth/consent?${query}`);
  test("the consent page's CSP lets its form lead to the registered callback's origin, and only after the app and the redirect URI check out", async () => {
    const params = authorizeParams(app, challenge);
    expect(await consentFormAction(new URLSearchParams(params).toString())).toEqual(["form-action 'self' https://app.example.com"]);
    const withPort = await registerApp(t, owner, workspaceId, { redirectUris: ['http://localhost:8123/cb?x=1'] });
    expect(await consentFormAction(new URLSearchParams(authorizeParams(withPort, challenge)).toString())).toEqual(["form-action 'self' http://localhost:8123"]);
    const refused = [
      { ...params, client_id: 'ltc_unknown' },
      { ...params, redirect_uri: 'https://evil.example/oauth/callback' },
      { ...params, redirect_uri: "https://app.example.com/oauth/callback; script-src 'unsafe-inline'" },
      { client_id: app.clientId },
    ];
    for (const q of refused) expect(await consentFormAction(new URLSearchParams(q).toString()), JSON.stringify(q)).toEqual(["form-action 'self'"]);
    // Repeated: no single value to check, so nothing added.
    expect(await consentFormAction(`${new URLSearchParams(params).toString()}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}`)).toEqual([
      "form-action 'self'",
    ]);
    // Other dashboard pages never name another origin.
    expect(await formActionOf(`/app/links?${new URLSearchParams(params).toString()}`)).toEqual(["form-action 'self'"]);
  });
});

describe('POST /oauth/authorize', () => {
  let member: SignedIn;
  let viewerOf: string;
  let notIn: string;

  beforeAll(async () => {
    member = await signedInMember(t, workspaceId, 'member');
    viewerOf = (await t.workspace()).id;
    notIn = (await t.workspace()).id;
    await addMember(t, viewerOf, member.user.id, 'viewer');
  });

  const consentParams = (extra: Record<string, string> = {}): Record<string, string> => ({
    ...authorizeParams(app, challenge),
    workspaceId,
    decision: 'allow',
    ...extra,
  });

  test.each([
    ['Origin of another site', { origin: 'https://evil.example' }],
    ['Origin of a sibling subdomain', { origin: 'https://evil.lt.test' }],
    ['Origin over http', { origin: ORIGIN.replace('https:', 'http:') }],
    ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
    ['Sec-Fetch-Site: same-site', { 'sec-fetch-site': 'same-site' }],
  ])('from another site (%s): 403 page, no code, no consent recorded', async (_what, headers) => {
    const before = await grantCount(t, owner, workspaceId, app.id);
    const res = await postConsent(t, member.cookie, consentParams(), headers);
    expectPage(res, 403);
    expect(res.body).not.toMatch(/ltac_/);
    expect(await grantCount(t, owner, workspaceId, app.id)).toBe(before);
  });

  test('same origin (Origin, or no Origin with Sec-Fetch-Site none or absent) and allow: 302 with a code and the state, and the consent is listed', async () => {
    for (const headers of [SAME_ORIGIN, { origin: ORIGIN }, { 'sec-fetch-site': 'none' }, {}] as Record<string, string>[]) {
      const before = await grantCount(t, owner, workspaceId, app.id);
      const params = consentParams();
      const back = backToApp(await postConsent(t, member.cookie, params, headers));
      expect(back.get('code')).toMatch(CODE_RE);
      expect(back.get('state')).toBe(params.state);
      expect(back.get('error')).toBeNull();
      expect(await grantCount(t, owner, workspaceId, app.id)).toBe(before + 1);
    }
    const listed = await asSession(t, owner.cookie, 'GET', `/api/workspaces/${workspaceId}/authorizations`);
    const mine = listed.json<{ user: { id: string }; scopes: string[]; app: { clientId: string } }[]>().find((g) => g.user.id === member.user.id);
    expect(mine).toMatchObject({ scopes: ['linksRead', 'linksWrite'], app: { clientId: app.clientId } });
  });

  test('deny: 302 error=access_denied with the state, no code, no consent', async () => {
    const before = await grantCount(t, owner, workspaceId, app.id);
    const params = consentParams({ decision: 'deny' });
    const back = backToApp(await postConsent(t, member.cookie, params));
    expect(back.get('error')).toBe('access_denied');
    expect(back.get('state')).toBe(params.state);
    expect(back.get('code')).toBeNull();
    expect(await grantCount(t, owner, workspaceId, app.id)).toBe(before);
  });

  test.each([
    ['a workspace the user is not in', () => ({ workspaceId: notIn })],
    ['a workspace where the role does not allow the scopes (viewer, linksWrite)', () => ({ workspaceId: viewerOf })],
    ['no workspace', () => ({ workspaceId: '' })],
    ['a malformed workspace id', () => ({ workspaceId: 'not-a-uuid' })],
  ])('allow with %s: error=access_denied, no code', async (_what, extra) => {
    const params = consentParams(extra());
    const back = backToApp(await postConsent(t, member.cookie, params));
    expect(back.get('error')).toBe('access_denied');
    expect(back.get('state')).toBe(params.state);
    expect(back.get('code')).toBeNull();
  });

  test('a viewer workspace is fine for a read-only consent', async () => {
    const params = { ...authorizeParams(app, challenge, { scope: 'linksRead' }), workspaceId: viewerOf, decision: 'allow' };
    expect(backToApp(await postConsent(t, member.cookie, params)).get('code')).toMatch(CODE_RE);
  });

  test('not signed in (no cookie, or a signed-out session): 401 page, no code', async () => {
    const gone = await signedInMember(t, workspaceId, 'member');
    expect((await asSession(t, gone.cookie, 'POST', '/api/auth/logout')).statusCode).toBe(204);
    for (const cookie of [undefined, gone.cookie]) {
      const res = await postConsent(t, cookie, consentParams());
      expectPage(res, 401, 'not signed in');
    }
  });

  test('the same checks as GET: an unknown client or unregistered redirect URI is a page, a bad parameter goes back with its error', async () => {
    expectPage(await postConsent(t, member.cookie, consentParams({ client_id: 'ltc_unknown' })), 400, 'unknown');
    expectPage(await postConsent(t, member.cookie, consentParams({ redirect_uri: `${REDIRECT_URI}/` })), 400, 'not registered');
    const params = consentParams({ code_challenge_method: 'plain' });
    const back = backToApp(await postConsent(t, member.cookie, params));
    expect(back.get('error')).toBe('invalid_request');
    expect(back.get('state')).toBe(params.state);
    expect(back.get('code')).toBeNull();
  });

  test('a parameter repeated in the form: 400 page, no code', async () => {
    const body = `${new URLSearchParams(consentParams()).toString()}&workspaceId=${notIn}`;
    const res = await t.inject({ method: 'POST', url: '/oauth/authorize', headers: { ...FORM, ...SAME_ORIGIN, cookie: member.cookie }, payload: body });
    expectPage(res, 400, 'repeated');
  });

  test('the consent is recorded for the user who gave it, in the chosen workspace', async () => {
    const fresh = await signedInMember(t, workspaceId, 'member');
    expect(backToApp(await postConsent(t, fresh.cookie, consentParams())).get('code')).toMatch(CODE_RE);
    expect(await grantIdOf(t, owner, workspaceId, app.id, fresh.user.id)).toMatch(/^[0-9a-f-]{36}$/);
  });
});
