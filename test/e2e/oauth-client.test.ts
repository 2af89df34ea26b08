/**
 * The OAuth 2.1 server (operations.md §9) driven by a real, strict client library —
 * oauth4webapi — over a real socket: RFC 8414 discovery, PKCE S256, the consent read the way
 * the dashboard's consent page reads it (GET /api/oauth/authorize) and posted the way its form
 * posts it (fetch with the session cookie and this site's Origin), the
 * code exchange with client_secret_basic, client_secret_post and a public client, the token
 * on /api within its scopes only, refresh rotation with reuse detection, and RFC 7009
 * revocation. The issuer is http://127.0.0.1:<port>, which oauth4webapi accepts only with
 * its test-only `allowInsecureRequests` option. PGlite, and PostgreSQL + Redis with
 * DATABASE_URL/REDIS_URL.
 */
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/core/scopes.js';
import { bearer, startTestApp, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/process.js';
import { asSession, createUser, login, type TestUser } from '../modules/people/helpers.js';

/** Plain http to 127.0.0.1 is allowed for this test server only. */
const insecure = { [oauth.allowInsecureRequests]: true } as const;
/** Registered, never visited: the client reads the Location header itself. */
const REDIRECT_URI = 'http://127.0.0.1:9/callback';

interface RegisteredApp {
  id: string;
  clientId: string;
  clientSecret?: string;
  name: string;
}

let t: TestApp;
let origin: string;
let as: oauth.AuthorizationServer;
let user: TestUser;
let cookie: string;
/** The user owns both; the consent names the second, so the choice is visible in the token. */
let firstWorkspace: string;
let chosenWorkspace: string;
/** A link in the chosen workspace, made with the session: what GET /api/links must show. */
let linkId: string;
let confidentialApp: RegisteredApp;
let publicApp: RegisteredApp;

async function createWorkspace(name: string): Promise<string> {
  const res = await asSession(t, cookie, 'POST', '/api/workspaces', { name });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string }>().id;
}

async function registerApp(name: string, confidential: boolean): Promise<RegisteredApp> {
  const res = await asSession(t, cookie, 'POST', `/api/workspaces/${firstWorkspace}/oauth-apps`, {
    name,
    redirectUris: [REDIRECT_URI],
    confidential,
    scopes: ['linksRead', 'linksWrite', 'collectionsRead'],
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<RegisteredApp>();
}

beforeAll(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  t = await startTestApp({ env: { BASE_URL: origin } });
  await t.runtime.app.listen({ port, host: '127.0.0.1' });

  user = await createUser(t, { name: 'Client Flow' });
  cookie = await login(t, user);
  firstWorkspace = await createWorkspace('First workspace');
  chosenWorkspace = await createWorkspace('Chosen workspace');
  const collection = await asSession(t, cookie, 'POST', '/api/collections', [{ name: 'OAuth' }], { workspaceId: chosenWorkspace });
  expect(collection.statusCode, collection.body).toBe(201);
  const link = await asSession(
    t,
    cookie,
    'POST',
    '/api/links',
    [{ collectionId: collection.json<{ id: string }[]>()[0]!.id, url: 'https://example.com/oauth' }],
    {
      workspaceId: chosenWorkspace,
    },
  );
  expect(link.statusCode, link.body).toBe(201);
  linkId = link.json<{ id: string }[]>()[0]!.id;
  confidentialApp = await registerApp('Confidential Reporter', true);
  publicApp = await registerApp('Public Gadget', false);
  expect(confidentialApp.clientSecret).toMatch(/^ltcs_/);
  expect(publicApp.clientSecret).toBeUndefined();

  const issuer = new URL(origin);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
});

afterAll(() => t?.close());

const clientOf = (app: RegisteredApp): oauth.Client => ({ client_id: app.clientId });

/**
 * The front channel: the authorize URL, the consent read with the session cookie, and
 * the form posted back as the browser would; returns the callback parameters oauth4webapi
 * validated (state included) and the PKCE verifier.
 */
async function consent(app: RegisteredApp, scope: string): Promise<{ callback: URLSearchParams; verifier: string }> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const params = {
    response_type: 'code',
    client_id: app.clientId,
    redirect_uri: REDIRECT_URI,
    scope,
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  };
  const authorize = new URL(as.authorization_endpoint!);
  for (const [k, v] of Object.entries(params)) authorize.searchParams.set(k, v);

  // Signed in: sent to the dashboard's consent page, which reads the request from the API.
  const toPage = await fetch(authorize, { headers: { cookie }, redirect: 'manual' });
  expect(toPage.status, await toPage.text()).toBe(302);
  const consentPage = new URL(toPage.headers.get('location')!, origin);
  expect(consentPage.pathname).toBe('/app/oauth/consent');
  const read = await fetch(`${origin}/api/oauth/authorize${consentPage.search}`, { headers: { cookie, origin } });
  const shown = (await read.json()) as { app: { name: string }; scopes: string[]; workspaces: { id: string }[] };
  expect(read.status, JSON.stringify(shown)).toBe(200);
  expect(shown.app.name).toBe(app.name);
  expect(shown.scopes).toEqual(scope.split(' '));
  expect(shown.workspaces.map((w) => w.id)).toContain(chosenWorkspace);

  const answer = await fetch(authorize.origin + authorize.pathname, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, origin, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...params, workspaceId: chosenWorkspace, decision: 'allow' }),
  });
  expect(answer.status, await answer.text()).toBe(302);
  const location = new URL(answer.headers.get('location')!);
  expect(location.origin + location.pathname).toBe(REDIRECT_URI);
  expect(location.searchParams.get('code')).toMatch(/^ltac_/);
  return { callback: oauth.validateAuthResponse(as, clientOf(app), location, state), verifier };
}

/** Consent and code exchange with the given client authentication. */
async function connect(app: RegisteredApp, auth: oauth.ClientAuth, scope = 'linksRead linksWrite'): Promise<oauth.TokenEndpointResponse> {
  const { callback, verifier } = await consent(app, scope);
  const response = await oauth.authorizationCodeGrantRequest(as, clientOf(app), auth, callback, REDIRECT_URI, verifier, insecure);
  expect(response.headers.get('cache-control')).toBe('no-store');
  return oauth.processAuthorizationCodeResponse(as, clientOf(app), response);
}

const api = (token: string, method: 'GET' | 'POST', path: string, body?: unknown) =>
  fetch(`${origin}${path}`, {
    method,
    headers: { ...bearer(token), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** GET /api/links with the token: the status, and the link ids when 200. */
async function listLinks(token: string): Promise<{ status: number; ids: string[] }> {
  const res = await api(token, 'GET', '/api/links');
  const body = (await res.json()) as { id: string }[];
  return { status: res.status, ids: res.status === 200 ? body.map((l) => l.id) : [] };
}

/** The RFC 6749 §5.2 error code a token or revocation call fails with in oauth4webapi. */
async function oauthError(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof oauth.ResponseBodyError) return e.error;
    throw e;
  }
  throw new Error('expected an OAuth error');
}

function expectTokens(tokens: oauth.TokenEndpointResponse, scope: string): void {
  expect(tokens.access_token).toMatch(/^lto_[A-Za-z0-9_-]{43}$/);
  expect(tokens.refresh_token).toMatch(/^ltr_[A-Za-z0-9_-]{43}$/);
  expect(tokens.token_type).toBe('bearer');
  expect(tokens.expires_in).toBe(3600);
  expect(tokens.scope).toBe(scope);
  expect(tokens.workspace_id).toBe(chosenWorkspace);
}

describe('discovery', () => {
  it('the metadata has exactly the fields of operations.md §9, and oauth4webapi accepts it', async () => {
    const res = await fetch(`${origin}/.well-known/oauth-authorization-server`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const expected = {
      issuer: origin,
      authorization_endpoint: `${origin}/oauth/authorize`,
      token_endpoint: `${origin}/oauth/token`,
      revocation_endpoint: `${origin}/oauth/revoke`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      scopes_supported: [...SCOPES],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    };
    expect(await res.json()).toEqual(expected);
    expect(SCOPES).toHaveLength(16);
    expect(as).toEqual(expected);
  });
});

describe('confidential client, client_secret_basic', () => {
  it('code for tokens; the token reads its workspace and is refused a write it was not granted', async () => {
    const tokens = await connect(confidentialApp, oauth.ClientSecretBasic(confidentialApp.clientSecret!), 'linksRead collectionsRead');
    expectTokens(tokens, 'linksRead collectionsRead');

    await expect(listLinks(tokens.access_token)).resolves.toEqual({ status: 200, ids: [linkId] });
    // linksWrite is among the app's scopes but not in this grant.
    const write = await api(tokens.access_token, 'POST', '/api/links', [{ url: 'https://example.com/not-granted' }]);
    expect(write.status).toBe(403);
    expect(((await write.json()) as { missingScopes: string[] }).missingScopes).toEqual(['linksWrite']);
    await expect(listLinks(tokens.access_token)).resolves.toEqual({ status: 200, ids: [linkId] });
    // Account routes want a person, not an app.
    expect((await api(tokens.access_token, 'GET', '/api/me')).status).toBe(401);
  });

  it('refresh rotates the pair; the spent refresh token presented again revokes the whole chain', async () => {
    const client = clientOf(confidentialApp);
    const auth = oauth.ClientSecretBasic(confidentialApp.clientSecret!);
    const first = await connect(confidentialApp, auth);
    expectTokens(first, 'linksRead linksWrite');

    const second = await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, auth, first.refresh_token!, insecure));
    expectTokens(second, 'linksRead linksWrite');
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    await expect(listLinks(second.access_token)).resolves.toEqual({ status: 200, ids: [linkId] });

    // Reuse: someone replays the spent refresh token.
    await expect(
      oauthError(
        oauth.refreshTokenGrantRequest(as, client, auth, first.refresh_token!, insecure).then((r) => oauth.processRefreshTokenResponse(as, client, r)),
      ),
    ).resolves.toBe('invalid_grant');
    expect((await listLinks(second.access_token)).status).toBe(401);
    expect((await listLinks(first.access_token)).status).toBe(401);
    // The newest refresh token of the chain is dead too.
    await expect(
      oauthError(
        oauth.refreshTokenGrantRequest(as, client, auth, second.refresh_token!, insecure).then((r) => oauth.processRefreshTokenResponse(as, client, r)),
      ),
    ).resolves.toBe('invalid_grant');
  });

  it('a wrong secret is invalid_client with a Basic challenge', async () => {
    const { callback, verifier } = await consent(confidentialApp, 'linksRead');
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      clientOf(confidentialApp),
      oauth.ClientSecretBasic('ltcs_wrong'),
      callback,
      REDIRECT_URI,
      verifier,
      insecure,
    );
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Basic /);
    await expect(response.json()).resolves.toMatchObject({ error: 'invalid_client' });
  });

  it('a code used twice is invalid_grant, and the tokens it gave stop working', async () => {
    const client = clientOf(confidentialApp);
    const auth = oauth.ClientSecretBasic(confidentialApp.clientSecret!);
    const { callback, verifier } = await consent(confidentialApp, 'linksRead');
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, auth, callback, REDIRECT_URI, verifier, insecure),
    );
    expect((await listLinks(tokens.access_token)).status).toBe(200);
    const replay = oauth
      .authorizationCodeGrantRequest(as, client, auth, callback, REDIRECT_URI, verifier, insecure)
      .then((r) => oauth.processAuthorizationCodeResponse(as, client, r));
    await expect(oauthError(replay)).resolves.toBe('invalid_grant');
    expect((await listLinks(tokens.access_token)).status).toBe(401);
  });
});

describe('confidential client, client_secret_post', () => {
  it('code for tokens; revoking the access token ends it alone, revoking the refresh token ends the grant', async () => {
    const client = clientOf(confidentialApp);
    const auth = oauth.ClientSecretPost(confidentialApp.clientSecret!);
    const tokens = await connect(confidentialApp, auth);
    expectTokens(tokens, 'linksRead linksWrite');
    await expect(listLinks(tokens.access_token)).resolves.toEqual({ status: 200, ids: [linkId] });

    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, tokens.access_token, insecure));
    expect((await listLinks(tokens.access_token)).status).toBe(401);

    // The grant lives on: the refresh token still gives a pair.
    const renewed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token!, insecure),
    );
    expectTokens(renewed, 'linksRead linksWrite');
    expect((await listLinks(renewed.access_token)).status).toBe(200);

    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, renewed.refresh_token!, insecure));
    expect((await listLinks(renewed.access_token)).status).toBe(401);
    await expect(
      oauthError(
        oauth.refreshTokenGrantRequest(as, client, auth, renewed.refresh_token!, insecure).then((r) => oauth.processRefreshTokenResponse(as, client, r)),
      ),
    ).resolves.toBe('invalid_grant');
    // Revoking again, or a token nobody issued: still 200 (RFC 7009 §2.2).
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, renewed.refresh_token!, insecure));
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, 'lto_unknown', insecure));
  });
});

describe('public client, none', () => {
  it('code for tokens with PKCE only; refresh and revocation with the client id', async () => {
    const client = clientOf(publicApp);
    const auth = oauth.None();
    const tokens = await connect(publicApp, auth);
    expectTokens(tokens, 'linksRead linksWrite');
    await expect(listLinks(tokens.access_token)).resolves.toEqual({ status: 200, ids: [linkId] });

    const renewed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token!, insecure),
    );
    expectTokens(renewed, 'linksRead linksWrite');
    await expect(listLinks(renewed.access_token)).resolves.toEqual({ status: 200, ids: [linkId] });

    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, renewed.access_token, insecure));
    expect((await listLinks(renewed.access_token)).status).toBe(401);
  });

  it('a wrong PKCE verifier is invalid_grant', async () => {
    const client = clientOf(publicApp);
    const { callback } = await consent(publicApp, 'linksRead');
    const exchange = oauth
      .authorizationCodeGrantRequest(as, client, oauth.None(), callback, REDIRECT_URI, oauth.generateRandomCodeVerifier(), insecure)
      .then((r) => oauth.processAuthorizationCodeResponse(as, client, r));
    await expect(oauthError(exchange)).resolves.toBe('invalid_grant');
  });
});
