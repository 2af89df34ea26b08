/**
 * GET and POST /oauth/authorize and the sign-in pages of the OAuth server (operations.md §9),
 * through HTTP: the error page for an unknown client or an unregistered redirect URI (never a
 * redirect), RFC 6749 §4.1.2.1 redirects with `error` and `state` for every other problem,
 * sign-in and back (no open redirect), the consent page (escaped, each scope in words, only
 * the workspaces whose role allows the scopes), and the consent itself (same origin only,
 * deny, a workspace that does not allow, no session). PGlite, and PostgreSQL + Redis.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { addMember, asSession, createUser, ORIGIN, ownedWorkspace, sessionCookieFrom, signedInMember, type SignedIn } from '../people/helpers.js';
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
/** The option values of the consent page's workspace choice. */
const offered = (body: string) => [...body.matchAll(/<option value="([^"]+)"/g)].map((m) => m[1]);
/** A client address of its own, so failed sign-ins here throttle no other test's sign-ins. */
const anAddress = () => `10.${[1, 2, 3].map(() => randomBytes(1)[0]! % 250).join('.')}`;

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

  test('a redirect_uri of another app is not this app\'s: page', async () => {
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
    ['a scope beyond the app\'s', { scope: 'linksRead tagsWrite' }, 'invalid_scope'],
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

describe('not signed in: to the sign-in page and back', () => {
  test('GET /oauth/authorize without a session: 302 /oauth/sign-in?next=<the authorize path and query>', async () => {
    const path = authorizePath(authorizeParams(app, challenge));
    const res = await t.inject({ method: 'GET', url: path });
    expect(res.statusCode, res.body).toBe(302);
    expect(res.headers.location).toBe(`/oauth/sign-in?next=${encodeURIComponent(path)}`);
  });

  test('a cookie that is no session, or a signed-out one, counts as not signed in', async () => {
    const signedOut = await signedInMember(t, workspaceId, 'member');
    expect((await asSession(t, signedOut.cookie, 'POST', '/api/auth/logout')).statusCode).toBe(204);
    for (const cookie of ['__Host-lt_session=lts_nothing', signedOut.cookie]) {
      const res = await getAuthorize(t, authorizeParams(app, challenge), cookie);
      expect(res.statusCode, res.body).toBe(302);
      expect(String(res.headers.location)).toMatch(/^\/oauth\/sign-in\?next=/);
    }
  });

  test('the round trip: the sign-in page carries next, the right password answers 303 to it with a session, and that session sees the consent page and can allow', async () => {
    const user = await createUser(t);
    await addMember(t, workspaceId, user.id, 'member');
    const params = authorizeParams(app, challenge);
    const path = authorizePath(params);
    const toSignIn = await t.inject({ method: 'GET', url: path });
    const page = await t.inject({ method: 'GET', url: String(toSignIn.headers.location) });
    expectPage(page, 200, 'action="/oauth/sign-in"');
    expect(page.body).toContain(`name="next" value="${path.replace(/&/g, '&amp;')}"`);

    const signIn = await t.inject({
      method: 'POST',
      url: '/oauth/sign-in',
      headers: { ...FORM, ...SAME_ORIGIN },
      payload: new URLSearchParams({ email: user.email, password: user.password, next: path }).toString(),
    });
    expect(signIn.statusCode, signIn.body).toBe(303);
    expect(signIn.headers.location).toBe(path);
    const cookie = sessionCookieFrom(signIn);
    expect(String(signIn.headers['set-cookie'])).toMatch(/HttpOnly/);

    const consent = await getAuthorize(t, params, cookie);
    expectPage(consent, 200, 'Connect Sync Robot?');
    expect(offered(consent.body)).toEqual([workspaceId]);
    const allowed = backToApp(await postConsent(t, cookie, { ...params, workspaceId, decision: 'allow' }));
    expect(allowed.get('code')).toMatch(CODE_RE);
    expect(allowed.get('state')).toBe(params.state);
  });

  test('a wrong password: 401 page with the form again (next kept), no cookie', async () => {
    const user = await createUser(t);
    const path = authorizePath(authorizeParams(app, challenge));
    const res = await t.inject({
      method: 'POST',
      url: '/oauth/sign-in',
      remoteAddress: anAddress(),
      headers: { ...FORM, ...SAME_ORIGIN },
      payload: new URLSearchParams({ email: user.email, password: `${user.password}!`, next: path }).toString(),
    });
    expectPage(res, 401, 'Wrong email or password');
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(res.body).toContain(`name="next" value="${path.replace(/&/g, '&amp;')}"`);
  });

  const foreignNext = [
    'https://evil.example/steal',
    '//evil.example/steal',
    '/\\evil.example/steal',
    '/api/me',
    '/oauth/authorizex?client_id=1',
    '/oauth/authorize/../../app',
    'javascript:alert(1)',
    '',
  ];
  test.each(foreignNext)('next=%j is replaced by /oauth/authorize (no open redirect), on the page and after signing in', async (next) => {
    const page = await t.inject({ method: 'GET', url: `/oauth/sign-in?next=${encodeURIComponent(next)}` });
    expectPage(page, 200, 'name="next" value="/oauth/authorize"');
    const user = await createUser(t);
    const signIn = await t.inject({
      method: 'POST',
      url: '/oauth/sign-in',
      headers: { ...FORM, ...SAME_ORIGIN },
      payload: new URLSearchParams({ email: user.email, password: user.password, next }).toString(),
    });
    expect(signIn.statusCode, signIn.body).toBe(303);
    expect(signIn.headers.location).toBe('/oauth/authorize');
  });

  test('signing in from another site: 403 page, no cookie', async () => {
    const user = await createUser(t);
    for (const headers of [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site' }]) {
      const res = await t.inject({
        method: 'POST',
        url: '/oauth/sign-in',
        headers: { ...FORM, ...headers },
        payload: new URLSearchParams({ email: user.email, password: user.password, next: '/oauth/authorize' }).toString(),
      });
      expectPage(res, 403);
      expect(res.headers['set-cookie']).toBeUndefined();
    }
  });

  /**
   * `next` goes into the Location header: a line break or a character Node refuses in a header
   * once made the reply a 500 (after the session was created). It is replaced by
   * /oauth/authorize like any other foreign `next`.
   */
  const unsendable: [string, string][] = [
    ['a line break', '/oauth/authorize?x=1\r\nSet-Cookie: planted=1'],
    ['a character outside Latin-1', '/oauth/authorize?x=\u4e2d'],
  ];
  test.each(unsendable)('a next with %s is refused or neutralised, never a 5xx nor a header of its own', async (_what, next) => {
    const user = await createUser(t);
    const res = await t.inject({
      method: 'POST',
      url: '/oauth/sign-in',
      headers: { ...FORM, ...SAME_ORIGIN },
      payload: new URLSearchParams({ email: user.email, password: user.password, next }).toString(),
    });
    expect(String(res.headers['set-cookie'] ?? '')).not.toContain('planted');
    expect(res.statusCode, res.body).toBeLessThan(500);
  });
});

describe('the consent page', () => {
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

  test('names the app, each scope asked in words, and carries the parameters in hidden fields', async () => {
    const params = authorizeParams(app, challenge);
    const res = await getAuthorize(t, params, person.cookie);
    expectPage(res, 200, '<h1>Connect Sync Robot?</h1>');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toContain('<strong>linksRead</strong>: list and read links (GET /api/links)');
    expect(res.body).toContain('<strong>linksWrite</strong>: create, update and delete links (POST, PUT, DELETE /api/links)');
    for (const [k, v] of Object.entries(params)) expect(res.body).toContain(`<input type="hidden" name="${k}" value="${v}">`);
    expect(res.body).toContain('name="decision" value="deny"');
    expect(res.body).toContain('name="decision" value="allow"');
  });

  test('only the scopes asked: linksRead alone shows no linksWrite', async () => {
    const res = await getAuthorize(t, authorizeParams(app, challenge, { scope: 'linksRead' }), person.cookie);
    expectPage(res, 200, '<strong>linksRead</strong>');
    expect(res.body).not.toContain('linksWrite');
  });

  test.each([['omitted', undefined], ['empty', '']])('scope %s: the app\'s scopes', async (_what, scope) => {
    const narrow = await registerApp(t, owner, workspaceId, { scopes: ['tagsRead', 'analyticsRead'] });
    const res = await getAuthorize(t, authorizeParams(narrow, challenge, { scope }), person.cookie);
    expectPage(res, 200, '<strong>tagsRead</strong>: list tags (GET /api/tags)');
    expect(res.body).toContain('<strong>analyticsRead</strong>');
    expect(res.body).not.toContain('<strong>links');
  });

  test('only the workspaces whose role allows the scopes: a viewer workspace for linksRead, not for linksWrite; never a workspace the user is not in', async () => {
    const write = await getAuthorize(t, authorizeParams(app, challenge, { scope: 'linksRead linksWrite' }), person.cookie);
    expect(write.statusCode, write.body).toBe(200);
    expect(offered(write.body)).toEqual([ownWorkspace]);
    const read = await getAuthorize(t, authorizeParams(app, challenge, { scope: 'linksRead' }), person.cookie);
    expect(read.statusCode, read.body).toBe(200);
    expect(offered(read.body).sort()).toEqual([ownWorkspace, viewerOf].sort());
    expect(offered(read.body)).not.toContain(workspaceId);
  });

  test('a user whose workspaces allow none: no choice and no allow button, only deny', async () => {
    const viewer = await signedInMember(t, viewerOf, 'viewer');
    const res = await getAuthorize(t, authorizeParams(app, challenge, { scope: 'linksWrite' }), viewer.cookie);
    expectPage(res, 200, 'you can only deny');
    expect(offered(res.body)).toEqual([]);
    expect(res.body).not.toContain('value="allow"');
    expect(res.body).toContain('value="deny"');
  });

  test('the app name and the state are escaped', async () => {
    const evil = await registerApp(t, owner, workspaceId, { name: '<script>alert(1)</script>' });
    const state = '"><script>alert(2)</script>';
    const res = await getAuthorize(t, authorizeParams(evil, challenge, { state }), person.cookie);
    expectPage(res, 200, 'Connect &lt;script&gt;alert(1)&lt;/script&gt;?');
    expect(res.body).not.toContain('<script>alert(1)</script>');
    expect(res.body).not.toContain('<script>alert(2)</script>');
    expect(res.body).toContain('value="&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;"');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
  });

  test('reached from another site (a top-level navigation), the session still names who is signed in', async () => {
    const res = await t.inject({
      method: 'GET',
      url: authorizePath(authorizeParams(app, challenge)),
      headers: { cookie: person.cookie, 'sec-fetch-site': 'cross-site', referer: 'https://app.example.com/' },
    });
    expectPage(res, 200, 'Connect Sync Robot?');
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

  const consentParams = (extra: Record<string, string> = {}): Record<string, string> => ({ ...authorizeParams(app, challenge), workspaceId, decision: 'allow', ...extra });

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
