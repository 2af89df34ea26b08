/**
 * Shared helpers for the OAuth server tests (operations.md §9): an app registered by a
 * workspace owner, PKCE pairs, the authorize and consent requests a browser makes, and the
 * token, refresh and revocation requests an app makes — all through HTTP (t.inject).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { Scope } from '../../../src/core/scopes.js';
import { bearer, type TestApp } from '../../helpers/app.js';
import { asSession, ORIGIN, type SignedIn } from '../people/helpers.js';

export const REDIRECT_URI = 'https://app.example.com/oauth/callback';
/** A second registered redirect URI of the default app. */
export const OTHER_REDIRECT_URI = 'https://app.example.com/oauth/second';
export const FORM = { 'content-type': 'application/x-www-form-urlencoded' } as const;
/** What the consent page's own form sends from a browser (same origin). */
export const SAME_ORIGIN = { origin: ORIGIN, 'sec-fetch-site': 'same-origin' } as const;

export const CODE_RE = /^ltac_[A-Za-z0-9_-]{43}$/;
export const ACCESS_RE = /^lto_[A-Za-z0-9_-]{43}$/;
export const REFRESH_RE = /^ltr_[A-Za-z0-9_-]{43}$/;

export interface RegisteredApp {
  id: string;
  workspaceId: string;
  name: string;
  clientId: string;
  clientSecret?: string;
  redirectUris: string[];
  confidential: boolean;
  scopes: Scope[];
}

/** POST /api/workspaces/{id}/oauth-apps as its owner; throws unless 201. */
export async function registerApp(
  t: TestApp,
  owner: SignedIn,
  workspaceId: string,
  opts: Partial<{ name: string; redirectUris: string[]; confidential: boolean; scopes: Scope[] }> = {},
): Promise<RegisteredApp> {
  const input = {
    name: opts.name ?? 'Sync Robot',
    redirectUris: opts.redirectUris ?? [REDIRECT_URI, OTHER_REDIRECT_URI],
    confidential: opts.confidential ?? true,
    scopes: opts.scopes ?? (['linksRead', 'linksWrite'] as Scope[]),
  };
  const res = await asSession(t, owner.cookie, 'POST', `/api/workspaces/${workspaceId}/oauth-apps`, input);
  if (res.statusCode !== 201) throw new Error(`app register failed: ${res.statusCode} ${res.body}`);
  return res.json<RegisteredApp>();
}

export interface Pkce {
  verifier: string;
  challenge: string;
}

/** A fresh verifier (43 base64url characters) and its S256 challenge (RFC 7636). */
export function pkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export const randomState = () => `st-${randomBytes(6).toString('hex')}`;

/**
 * A complete, valid authorize request for `app`; a key set to undefined in `change` is left
 * out, any other replaces the default.
 */
export function authorizeParams(app: RegisteredApp, challenge: string, change: Record<string, string | undefined> = {}): Record<string, string> {
  const params: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: app.clientId,
    redirect_uri: app.redirectUris[0],
    scope: app.scopes.join(' '),
    state: randomState(),
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...change,
  };
  return Object.fromEntries(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined));
}

export const authorizePath = (params: Record<string, string>) => `/oauth/authorize?${new URLSearchParams(params).toString()}`;

/** GET /oauth/authorize, signed in when a cookie is given. */
export function getAuthorize(t: TestApp, params: Record<string, string>, cookie?: string): Promise<LightMyRequestResponse> {
  return t.inject({ method: 'GET', url: authorizePath(params), headers: cookie ? { cookie } : {} });
}

/** POST /oauth/authorize as the consent page's form (same origin unless `headers` say otherwise). */
export function postConsent(
  t: TestApp,
  cookie: string | undefined,
  params: Record<string, string>,
  headers: Record<string, string> = SAME_ORIGIN,
): Promise<LightMyRequestResponse> {
  return t.inject({
    method: 'POST',
    url: '/oauth/authorize',
    headers: { ...FORM, ...headers, ...(cookie ? { cookie } : {}) },
    payload: new URLSearchParams(params).toString(),
  });
}

/** The query of a 302 back to the app; fails unless Location is `redirectUri` (with its own query kept). */
export function backToApp(res: LightMyRequestResponse, redirectUri = REDIRECT_URI): URLSearchParams {
  expect(res.statusCode, res.body).toBe(302);
  const location = new URL(String(res.headers.location));
  const expected = new URL(redirectUri);
  expect(`${location.origin}${location.pathname}`).toBe(`${expected.origin}${expected.pathname}`);
  for (const [k, v] of expected.searchParams) expect(location.searchParams.get(k)).toBe(v);
  return location.searchParams;
}

/** An HTML page and no redirect (the authorize endpoint's own error or form pages). */
export function expectPage(res: LightMyRequestResponse, status: number, text?: string): void {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers.location).toBeUndefined();
  expect(String(res.headers['content-type'])).toMatch(/^text\/html/);
  if (text !== undefined) expect(res.body).toContain(text);
}

export interface Consented {
  code: string;
  verifier: string;
  state: string;
  redirectUri: string;
}

/** A signed-in user allows `app` in `workspaceId` (optionally fewer scopes or another redirect URI): the code. */
export async function authorizeCode(
  t: TestApp,
  who: SignedIn,
  app: RegisteredApp,
  workspaceId: string,
  opts: { scope?: string; redirectUri?: string } = {},
): Promise<Consented> {
  const { verifier, challenge } = pkce();
  const params = authorizeParams(app, challenge, { scope: opts.scope, redirect_uri: opts.redirectUri ?? app.redirectUris[0] });
  const res = await postConsent(t, who.cookie, { ...params, workspaceId, decision: 'allow' });
  const back = backToApp(res, params.redirect_uri);
  expect(back.get('state')).toBe(params.state);
  expect(back.get('error'), res.headers.location as string).toBeNull();
  const code = back.get('code')!;
  expect(code).toMatch(CODE_RE);
  return { code, verifier, state: params.state!, redirectUri: params.redirect_uri! };
}

export type ClientAuth = 'basic' | 'post' | 'none';

/** Authorization: Basic of RFC 6749 §2.3.1 (each part form-urlencoded first). */
export const basicAuth = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

/** A token endpoint request authenticated as `app` (Basic for a confidential app unless told otherwise, client_id for a public one). */
export function tokenRequest(
  t: TestApp,
  app: RegisteredApp,
  params: Record<string, string>,
  auth: ClientAuth = app.confidential ? 'basic' : 'none',
  url = '/oauth/token',
): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { ...FORM };
  const body = { ...params };
  if (auth === 'basic') headers.authorization = basicAuth(app.clientId, app.clientSecret ?? '');
  else body.client_id = app.clientId;
  if (auth === 'post') body.client_secret = app.clientSecret ?? '';
  return t.inject({ method: 'POST', url, headers, payload: new URLSearchParams(body).toString() });
}

export interface TokenAnswer {
  access_token: string;
  token_type: string;
  expires_in: number;
  refresh_token: string;
  scope: string;
  workspace_id: string;
}

export const codeGrant = (c: Pick<Consented, 'code' | 'verifier' | 'redirectUri'>) => ({
  grant_type: 'authorization_code',
  code: c.code,
  redirect_uri: c.redirectUri,
  code_verifier: c.verifier,
});

/** Exchanges a code; fails unless 200. */
export async function exchange(t: TestApp, app: RegisteredApp, consented: Consented, auth?: ClientAuth): Promise<TokenAnswer> {
  const res = await tokenRequest(t, app, codeGrant(consented), auth);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<TokenAnswer>();
}

/** Consent and code exchange in one: the first token pair of a new grant. */
export async function connect(t: TestApp, who: SignedIn, app: RegisteredApp, workspaceId: string, opts: { scope?: string } = {}): Promise<TokenAnswer> {
  return exchange(t, app, await authorizeCode(t, who, app, workspaceId, opts));
}

export const refreshRequest = (t: TestApp, app: RegisteredApp, refreshToken: string) =>
  tokenRequest(t, app, { grant_type: 'refresh_token', refresh_token: refreshToken });

export const revokeRequest = (t: TestApp, app: RegisteredApp, token: string, auth?: ClientAuth) =>
  tokenRequest(t, app, { token }, auth ?? (app.confidential ? 'basic' : 'none'), '/oauth/revoke');

/** An RFC 6749 §5.2 error answer. */
export function expectOAuthError(res: LightMyRequestResponse, status: number, error: string): void {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json<{ error: string; error_description: string }>();
  expect(body.error, res.body).toBe(error);
  expect(typeof body.error_description).toBe('string');
  expect(res.headers['cache-control']).toBe('no-store');
}

export const readLinks = (t: TestApp, token: string) => t.inject({ method: 'GET', url: '/api/links', headers: bearer(token) });

/** POST /api/links of one link in `collectionId` (links need a collection). */
export const writeLink = (t: TestApp, token: string, collectionId: string) =>
  t.inject({
    method: 'POST',
    url: '/api/links',
    headers: { ...bearer(token), 'content-type': 'application/json' },
    payload: JSON.stringify([{ url: `https://example.com/${randomBytes(4).toString('hex')}`, collectionId }]),
  });

/** A collection made with a key of the workspace; its id. */
export async function newCollection(t: TestApp, key: string): Promise<string> {
  const res = await t.inject({
    method: 'POST',
    url: '/api/collections',
    headers: { ...bearer(key), 'content-type': 'application/json' },
    payload: JSON.stringify([{ name: 'Main' }]),
  });
  if (res.statusCode !== 201) throw new Error(`collection create failed: ${res.statusCode} ${res.body}`);
  return res.json<{ id: string }[]>()[0]!.id;
}

/** The id of the grant (connected app) `app` holds in `workspaceId`, read by its owner from the settings. */
export async function grantIdOf(t: TestApp, owner: SignedIn, workspaceId: string, appId: string, userId: string): Promise<string> {
  const res = await asSession(t, owner.cookie, 'GET', `/api/workspaces/${workspaceId}/authorizations`);
  expect(res.statusCode, res.body).toBe(200);
  const found = res.json<{ id: string; app: { id: string }; user: { id: string } }[]>().filter((g) => g.app.id === appId && g.user.id === userId);
  expect(found, res.body).toHaveLength(1);
  return found[0]!.id;
}

/** How many live consents the workspace lists for `appId`. */
export async function grantCount(t: TestApp, owner: SignedIn, workspaceId: string, appId: string): Promise<number> {
  const res = await asSession(t, owner.cookie, 'GET', `/api/workspaces/${workspaceId}/authorizations`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ app: { id: string } }[]>().filter((g) => g.app.id === appId).length;
}
