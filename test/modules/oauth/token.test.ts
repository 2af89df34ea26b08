/**
 * POST /oauth/token, POST /oauth/revoke and the access tokens they issue (operations.md §9),
 * through HTTP with an injected clock: client authentication (Basic, client_secret_post,
 * public clients), the authorization_code grant with PKCE (single use, 60 s, bound to its
 * client and redirect URI), refresh rotation with reuse detection, RFC 6749 §5.2 errors, and
 * the access token on /api (1 h, granted ∩ the app's scopes ∩ the user's current role, ended
 * by removal, app deletion, disconnection and revocation; no account routes; the workspace's
 * rate limit). PGlite, and PostgreSQL + Redis.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../helpers/app.js';
import { asSession, DAY_MS, expectError, mutableClock, ownedWorkspace, signedInMember, type SignedIn } from '../people/helpers.js';
import {
  ACCESS_RE,
  authorizeCode,
  basicAuth,
  codeGrant,
  connect,
  exchange,
  expectOAuthError,
  FORM,
  grantIdOf,
  newCollection,
  OTHER_REDIRECT_URI,
  readLinks,
  REFRESH_RE,
  refreshRequest,
  registerApp,
  revokeRequest,
  tokenRequest,
  writeLink,
  type RegisteredApp,
  type TokenAnswer,
} from './helpers.js';

const HOUR_MS = 3600_000;
const clock = mutableClock(new Date('2031-05-01T09:00:00Z'));
let t: TestApp;
let owner: SignedIn;
let member: SignedIn;
let workspaceId: string;
/** A collection of that workspace, for the links the tokens write. */
let collectionId: string;
/** Confidential, linksRead + linksWrite, two redirect URIs. */
let app: RegisteredApp;
/** Public (PKCE alone). */
let publicApp: RegisteredApp;
/** Another confidential app, for codes and tokens presented by the wrong client. */
let otherApp: RegisteredApp;

beforeAll(async () => {
  t = await startTestApp({ clock: clock.now });
  const made = await ownedWorkspace(t);
  owner = made.owner;
  workspaceId = made.workspace.id;
  collectionId = await newCollection(t, made.workspace.key);
  member = await signedInMember(t, workspaceId, 'member');
  app = await registerApp(t, owner, workspaceId);
  publicApp = await registerApp(t, owner, workspaceId, { confidential: false, name: 'Browser App' });
  otherApp = await registerApp(t, owner, workspaceId, { name: 'Other App' });
});
afterAll(() => t?.close());

const status = (res: LightMyRequestResponse) => `${res.statusCode} ${res.body}`;
async function expectWorks(token: string): Promise<void> {
  const res = await readLinks(t, token);
  expect(res.statusCode, status(res)).toBe(200);
}
async function expectEnded(token: string, code = 'credential_revoked'): Promise<void> {
  expectError(await readLinks(t, token), 401, code);
}

describe('client authentication', () => {
  test('a confidential app with Basic: 200 with the token pair, no-store', async () => {
    const consented = await authorizeCode(t, member, app, workspaceId);
    const res = await tokenRequest(t, app, codeGrant(consented), 'basic');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.pragma).toBe('no-cache');
    expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
    const body = res.json<TokenAnswer>();
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type', 'workspace_id']);
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'linksRead linksWrite', workspace_id: workspaceId });
    expect(body.access_token).toMatch(ACCESS_RE);
    expect(body.refresh_token).toMatch(REFRESH_RE);
    await expectWorks(body.access_token);
    const written = await writeLink(t, body.access_token, collectionId);
    expect(written.statusCode, written.body).toBe(201);
  });

  test('a confidential app with client_secret_post: 200', async () => {
    const body = await exchange(t, app, await authorizeCode(t, member, app, workspaceId), 'post');
    await expectWorks(body.access_token);
  });

  test('Basic and client_secret in the body at once: 400 invalid_request, and the code is untouched', async () => {
    const consented = await authorizeCode(t, member, app, workspaceId);
    const res = await t.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { ...FORM, authorization: basicAuth(app.clientId, app.clientSecret!) },
      payload: new URLSearchParams({ ...codeGrant(consented), client_secret: app.clientSecret! }).toString(),
    });
    expectOAuthError(res, 400, 'invalid_request');
    await exchange(t, app, consented);
  });

  test('a wrong secret with Basic: 401 invalid_client with WWW-Authenticate: Basic; the code is untouched', async () => {
    const consented = await authorizeCode(t, member, app, workspaceId);
    const wrong = { ...app, clientSecret: `ltcs_${randomBytes(32).toString('base64url')}` };
    const res = await tokenRequest(t, wrong, codeGrant(consented), 'basic');
    expectOAuthError(res, 401, 'invalid_client');
    expect(String(res.headers['www-authenticate'])).toMatch(/^Basic /);
    await exchange(t, app, consented);
  });

  test('a wrong secret in the body: 401 invalid_client, no WWW-Authenticate', async () => {
    const consented = await authorizeCode(t, member, app, workspaceId);
    const res = await tokenRequest(t, { ...app, clientSecret: `${app.clientSecret!.slice(0, -1)}x` }, codeGrant(consented), 'post');
    expectOAuthError(res, 401, 'invalid_client');
    expect(res.headers['www-authenticate']).toBeUndefined();
  });

  test('a confidential app sending only its client_id: 401 invalid_client', async () => {
    const consented = await authorizeCode(t, member, app, workspaceId);
    expectOAuthError(await tokenRequest(t, app, codeGrant(consented), 'none'), 401, 'invalid_client');
  });

  test('an Authorization header that is not Basic credentials: 401 invalid_client with WWW-Authenticate', async () => {
    const consented = await authorizeCode(t, member, app, workspaceId);
    for (const authorization of [`Bearer ${app.clientSecret}`, `Basic ${Buffer.from(app.clientId).toString('base64')}`]) {
      const res = await t.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { ...FORM, authorization },
        payload: new URLSearchParams(codeGrant(consented)).toString(),
      });
      expectOAuthError(res, 401, 'invalid_client');
      expect(String(res.headers['www-authenticate'])).toMatch(/^Basic /);
    }
  });

  test('a public client with client_id only: 200', async () => {
    const body = await exchange(t, publicApp, await authorizeCode(t, member, publicApp, workspaceId), 'none');
    expect(body.access_token).toMatch(ACCESS_RE);
    await expectWorks(body.access_token);
  });

  test('a public client sending a secret (in the body or by Basic): 401 invalid_client', async () => {
    const consented = await authorizeCode(t, member, publicApp, workspaceId);
    const withSecret = { ...publicApp, clientSecret: 'ltcs_anything' };
    expectOAuthError(await tokenRequest(t, withSecret, codeGrant(consented), 'post'), 401, 'invalid_client');
    expectOAuthError(await tokenRequest(t, withSecret, codeGrant(consented), 'basic'), 401, 'invalid_client');
  });

  test('an unknown client, or none named: 401 invalid_client', async () => {
    const consented = await authorizeCode(t, member, app, workspaceId);
    const unknown = { ...app, clientId: `ltc_${randomBytes(32).toString('base64url')}` };
    expectOAuthError(await tokenRequest(t, unknown, codeGrant(consented), 'basic'), 401, 'invalid_client');
    expectOAuthError(await tokenRequest(t, unknown, codeGrant(consented), 'post'), 401, 'invalid_client');
    const none = await t.inject({ method: 'POST', url: '/oauth/token', headers: FORM, payload: new URLSearchParams(codeGrant(consented)).toString() });
    expectOAuthError(none, 401, 'invalid_client');
  });

  test('the secret before a rotation stops working', async () => {
    const rotatedApp = await registerApp(t, owner, workspaceId);
    const rotated = await asSession(t, owner.cookie, 'POST', `/api/workspaces/${workspaceId}/oauth-apps/${rotatedApp.id}/secret`);
    expect(rotated.statusCode, rotated.body).toBe(200);
    const consented = await authorizeCode(t, member, rotatedApp, workspaceId);
    expectOAuthError(await tokenRequest(t, rotatedApp, codeGrant(consented)), 401, 'invalid_client');
    await exchange(t, { ...rotatedApp, clientSecret: rotated.json<{ clientSecret: string }>().clientSecret }, consented);
  });
});

describe('grant_type=authorization_code', () => {
  test('a code used twice: invalid_grant, and the tokens the first use issued are revoked', async () => {
    const consented = await authorizeCode(t, member, app, workspaceId);
    const first = await exchange(t, app, consented);
    await expectWorks(first.access_token);
    expectOAuthError(await tokenRequest(t, app, codeGrant(consented)), 400, 'invalid_grant');
    await expectEnded(first.access_token);
    expectOAuthError(await refreshRequest(t, app, first.refresh_token), 400, 'invalid_grant');
  });

  test('the same code twice at once: one answer at most has tokens, and those tokens are revoked', async () => {
    const consented = await authorizeCode(t, member, app, workspaceId);
    const answers = await Promise.all([tokenRequest(t, app, codeGrant(consented)), tokenRequest(t, app, codeGrant(consented))]);
    const won = answers.filter((r) => r.statusCode === 200);
    const lost = answers.filter((r) => r.statusCode !== 200);
    expect(won.length, answers.map(status).join(' | ')).toBeLessThanOrEqual(1);
    for (const r of lost) expectOAuthError(r, 400, 'invalid_grant');
    for (const r of won) {
      await expectEnded(r.json<TokenAnswer>().access_token);
      expectOAuthError(await refreshRequest(t, app, r.json<TokenAnswer>().refresh_token), 400, 'invalid_grant');
    }
  });

  test('a consent ended before its code is exchanged (disconnected in the settings, or the user removed): invalid_grant', async () => {
    const person = await signedInMember(t, workspaceId, 'member');
    const disconnected = await authorizeCode(t, person, app, workspaceId);
    const grantId = await grantIdOf(t, owner, workspaceId, app.id, person.user.id);
    expect((await asSession(t, owner.cookie, 'DELETE', `/api/workspaces/${workspaceId}/authorizations/${grantId}`)).statusCode).toBe(200);
    expectOAuthError(await tokenRequest(t, app, codeGrant(disconnected)), 400, 'invalid_grant');

    const leaving = await signedInMember(t, workspaceId, 'member');
    const removedCode = await authorizeCode(t, leaving, app, workspaceId);
    expect((await asSession(t, owner.cookie, 'DELETE', `/api/workspaces/${workspaceId}/members/${leaving.user.id}`)).statusCode).toBe(200);
    expectOAuthError(await tokenRequest(t, app, codeGrant(removedCode)), 400, 'invalid_grant');
  });

  test('a wrong verifier: invalid_grant', async () => {
    const consented = await authorizeCode(t, member, app, workspaceId);
    const other = randomBytes(32).toString('base64url');
    expectOAuthError(await tokenRequest(t, app, codeGrant({ ...consented, verifier: other })), 400, 'invalid_grant');
  });

  test('the challenge itself sent as the verifier (the plain method): invalid_grant', async () => {
    const consented = await authorizeCode(t, member, app, workspaceId);
    const challenge = createHash('sha256').update(consented.verifier).digest('base64url');
    expectOAuthError(await tokenRequest(t, app, codeGrant({ ...consented, verifier: challenge })), 400, 'invalid_grant');
  });

  test('no verifier: invalid_request; the code still works afterwards', async () => {
    const consented = await authorizeCode(t, member, app, workspaceId);
    const { code_verifier: _dropped, ...rest } = codeGrant(consented);
    expectOAuthError(await tokenRequest(t, app, rest), 400, 'invalid_request');
    await exchange(t, app, consented);
  });

  test('another registered redirect_uri, or none: invalid_grant', async () => {
    for (const redirect of [OTHER_REDIRECT_URI, undefined]) {
      const consented = await authorizeCode(t, member, app, workspaceId);
      const params: Record<string, string> = codeGrant(consented);
      if (redirect) params.redirect_uri = redirect;
      else delete params.redirect_uri;
      expectOAuthError(await tokenRequest(t, app, params), 400, 'invalid_grant');
    }
  });

  test('a code issued for the second redirect URI is exchanged with that one', async () => {
    const consented = await authorizeCode(t, member, app, workspaceId, { redirectUri: OTHER_REDIRECT_URI });
    expect(consented.redirectUri).toBe(OTHER_REDIRECT_URI);
    await exchange(t, app, consented);
  });

  test("another client's code: invalid_grant, and it stays usable by its own client", async () => {
    const consented = await authorizeCode(t, member, app, workspaceId);
    expectOAuthError(await tokenRequest(t, otherApp, codeGrant(consented)), 400, 'invalid_grant');
    expectOAuthError(await tokenRequest(t, publicApp, codeGrant(consented)), 400, 'invalid_grant');
    await exchange(t, app, consented);
  });

  test('a code lives 60 s: usable just before, invalid_grant at 60 s', async () => {
    const early = await authorizeCode(t, member, app, workspaceId);
    const late = await authorizeCode(t, member, app, workspaceId);
    clock.advance(59_999);
    await exchange(t, app, early);
    clock.advance(1);
    expectOAuthError(await tokenRequest(t, app, codeGrant(late)), 400, 'invalid_grant');
  });

  test('an unknown or malformed code: invalid_grant', async () => {
    const consented = await authorizeCode(t, member, app, workspaceId);
    for (const code of [`ltac_${randomBytes(32).toString('base64url')}`, 'nonsense', '']) {
      expectOAuthError(await tokenRequest(t, app, codeGrant({ ...consented, code })), 400, 'invalid_grant');
    }
  });

  test('an unsupported grant_type: unsupported_grant_type; none: invalid_request', async () => {
    for (const grantType of ['password', 'client_credentials', 'implicit']) {
      expectOAuthError(await tokenRequest(t, app, { grant_type: grantType, username: 'x', password: 'y' }), 400, 'unsupported_grant_type');
    }
    expectOAuthError(await tokenRequest(t, app, { code: 'ltac_x' }), 400, 'invalid_request');
  });

  test('a parameter repeated in the body: invalid_request, and the code still works', async () => {
    const consented = await authorizeCode(t, member, app, workspaceId);
    const body = `${new URLSearchParams(codeGrant(consented)).toString()}&code=${consented.code}`;
    const res = await t.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { ...FORM, authorization: basicAuth(app.clientId, app.clientSecret!) },
      payload: body,
    });
    expectOAuthError(res, 400, 'invalid_request');
    await exchange(t, app, consented);
  });

  test('fewer scopes asked than the app may: the token has those only', async () => {
    const body = await connect(t, member, app, workspaceId, { scope: 'linksRead' });
    expect(body.scope).toBe('linksRead');
    await expectWorks(body.access_token);
    const write = await writeLink(t, body.access_token, collectionId);
    expectError(write, 403, 'missing_scopes');
    expect(write.json<{ missingScopes: string[] }>().missingScopes).toEqual(['linksWrite']);
  });
});

describe('grant_type=refresh_token', () => {
  test('rotation: a new pair that works; the old access token lives until its own expiry', async () => {
    const first = await connect(t, member, app, workspaceId);
    clock.advance(HOUR_MS / 2);
    const res = await refreshRequest(t, app, first.refresh_token);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const second = res.json<TokenAnswer>();
    expect(second).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'linksRead linksWrite', workspace_id: workspaceId });
    expect(second.access_token).toMatch(ACCESS_RE);
    expect(second.refresh_token).toMatch(REFRESH_RE);
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    await expectWorks(second.access_token);
    await expectWorks(first.access_token);
    clock.advance(HOUR_MS / 2);
    await expectEnded(first.access_token, 'credential_expired');
    await expectWorks(second.access_token);
    // The new refresh token rotates again.
    const third = await refreshRequest(t, app, second.refresh_token);
    expect(third.statusCode, third.body).toBe(200);
  });

  test('a spent refresh token presented again: invalid_grant, and every token of the grant ends', async () => {
    const first = await connect(t, member, app, workspaceId);
    const second = (await refreshRequest(t, app, first.refresh_token)).json<TokenAnswer>();
    await expectWorks(second.access_token);
    expectOAuthError(await refreshRequest(t, app, first.refresh_token), 400, 'invalid_grant');
    await expectEnded(first.access_token);
    await expectEnded(second.access_token);
    expectOAuthError(await refreshRequest(t, app, second.refresh_token), 400, 'invalid_grant');
  });

  /**
   * Presentations of one refresh token racing: only one may get a new pair, and the others are
   * reuses like any later one (operations.md §9: presenting a spent refresh token again
   * revokes every token of that grant), so the pair the winner got ends too.
   *
   * On PostgreSQL both requests can read the token unspent; the loser of the row lock once threw
   * invalid_grant inside the transaction without revoking the grant, so a thief racing the app
   * kept a live chain. (On PGlite the requests are serialised.)
   */
  test('the same refresh token three times at once: one new pair at most, and the reuse ends the whole grant', async () => {
    const first = await connect(t, member, app, workspaceId);
    const answers = await Promise.all([1, 2, 3].map(() => refreshRequest(t, app, first.refresh_token)));
    const won = answers.filter((r) => r.statusCode === 200);
    expect(won.length, answers.map(status).join(' | ')).toBeLessThanOrEqual(1);
    for (const r of answers.filter((x) => x.statusCode !== 200)) expectOAuthError(r, 400, 'invalid_grant');
    await expectEnded(first.access_token);
    for (const r of won) await expectEnded(r.json<TokenAnswer>().access_token);
  });

  test('a public client rotates with its client_id alone', async () => {
    const first = await connect(t, member, publicApp, workspaceId);
    const res = await refreshRequest(t, publicApp, first.refresh_token);
    expect(res.statusCode, res.body).toBe(200);
    await expectWorks(res.json<TokenAnswer>().access_token);
  });

  test('by another client: invalid_grant, and the token is not spent for its own client', async () => {
    const first = await connect(t, member, app, workspaceId);
    expectOAuthError(await refreshRequest(t, otherApp, first.refresh_token), 400, 'invalid_grant');
    await expectWorks(first.access_token);
    const own = await refreshRequest(t, app, first.refresh_token);
    expect(own.statusCode, own.body).toBe(200);
  });

  test('asking for a scope beyond the grant: invalid_scope (RFC 6749 §6); the refresh token is not spent', async () => {
    // Granted linksRead only; the app itself may ask for linksWrite, and linksAdmin is no scope it has.
    const first = await connect(t, member, app, workspaceId, { scope: 'linksRead' });
    expect(first.scope).toBe('linksRead');
    for (const scope of ['linksWrite', 'linksRead linksWrite', 'keysRead', 'notAScope']) {
      const res = await tokenRequest(t, app, { grant_type: 'refresh_token', refresh_token: first.refresh_token, scope });
      expectOAuthError(res, 400, 'invalid_scope');
      expect(Object.keys(res.json()).sort()).toEqual(['error', 'error_description']);
    }
    // Still unspent: the grant's own scope (or none) refreshes, and nothing beyond it was issued.
    const same = await tokenRequest(t, app, { grant_type: 'refresh_token', refresh_token: first.refresh_token, scope: 'linksRead' });
    expect(same.statusCode, same.body).toBe(200);
    const second = same.json<TokenAnswer>();
    expect(second.scope).toBe('linksRead');
    await expectWorks(second.access_token);
    expectError(await writeLink(t, second.access_token, collectionId), 403, 'missing_scopes');
    const bare = await refreshRequest(t, app, second.refresh_token);
    expect(bare.statusCode, bare.body).toBe(200);
    expect(bare.json<TokenAnswer>().scope).toBe('linksRead');
  });

  test('an access token, an unknown or no refresh token: invalid_grant', async () => {
    const first = await connect(t, member, app, workspaceId);
    for (const token of [first.access_token, `ltr_${randomBytes(32).toString('base64url')}`]) {
      expectOAuthError(await refreshRequest(t, app, token), 400, 'invalid_grant');
    }
    expectOAuthError(await tokenRequest(t, app, { grant_type: 'refresh_token' }), 400, 'invalid_grant');
    await expectWorks(first.access_token);
  });
});

describe('the access token on /api', () => {
  test('expires after 1 h: works just before, 401 credential_expired at 1 h', async () => {
    const body = await connect(t, member, app, workspaceId);
    clock.advance(HOUR_MS - 1);
    await expectWorks(body.access_token);
    clock.advance(1);
    await expectEnded(body.access_token, 'credential_expired');
  });

  test('sent as X-API-Key too', async () => {
    const body = await connect(t, member, app, workspaceId);
    const res = await t.inject({ method: 'GET', url: '/api/links', headers: { 'x-api-key': body.access_token } });
    expect(res.statusCode, res.body).toBe(200);
  });

  test('granted ∩ role: the user demoted to viewer by another owner can no longer write (403), still read; promoted back, writes again', async () => {
    const person = await signedInMember(t, workspaceId, 'member');
    const body = await connect(t, person, app, workspaceId);
    expect((await writeLink(t, body.access_token, collectionId)).statusCode).toBe(201);
    const demote = await asSession(t, owner.cookie, 'PATCH', `/api/workspaces/${workspaceId}/members/${person.user.id}`, { role: 'viewer' });
    expect(demote.statusCode, demote.body).toBe(200);
    const write = await writeLink(t, body.access_token, collectionId);
    expectError(write, 403, 'missing_scopes');
    expect(write.json<{ missingScopes: string[] }>().missingScopes).toEqual(['linksWrite']);
    await expectWorks(body.access_token);
    // Refreshed while a viewer: the new token's scope is what a viewer may do of the grant.
    const asViewer = (await refreshRequest(t, app, body.refresh_token)).json<TokenAnswer>();
    expect(asViewer.scope).toBe('linksRead');
    const promote = await asSession(t, owner.cookie, 'PATCH', `/api/workspaces/${workspaceId}/members/${person.user.id}`, { role: 'member' });
    expect(promote.statusCode, promote.body).toBe(200);
    expect((await writeLink(t, asViewer.access_token, collectionId)).statusCode).toBe(201);
  });

  test("granted ∩ the app's current scopes: the owner narrows the app to linksRead, its live token loses linksWrite", async () => {
    const narrowed = await registerApp(t, owner, workspaceId);
    const body = await connect(t, member, narrowed, workspaceId);
    expect((await writeLink(t, body.access_token, collectionId)).statusCode).toBe(201);
    const patched = await asSession(t, owner.cookie, 'PATCH', `/api/workspaces/${workspaceId}/oauth-apps/${narrowed.id}`, { scopes: ['linksRead'] });
    expect(patched.statusCode, patched.body).toBe(200);
    const write = await writeLink(t, body.access_token, collectionId);
    expectError(write, 403, 'missing_scopes');
    expect(write.json<{ missingScopes: string[] }>().missingScopes).toEqual(['linksWrite']);
    await expectWorks(body.access_token);
    // A token refreshed after the narrowing cannot write either, and its answer says so.
    const refreshed = (await refreshRequest(t, narrowed, body.refresh_token)).json<TokenAnswer>();
    expect(refreshed.scope).toBe('linksRead');
    expectError(await writeLink(t, refreshed.access_token, collectionId), 403, 'missing_scopes');
  });

  test('the user removed from the workspace: 401, and being invited back does not revive it', async () => {
    const person = await signedInMember(t, workspaceId, 'member');
    const body = await connect(t, person, app, workspaceId);
    await expectWorks(body.access_token);
    const removed = await asSession(t, owner.cookie, 'DELETE', `/api/workspaces/${workspaceId}/members/${person.user.id}`);
    expect(removed.statusCode, removed.body).toBe(200);
    await expectEnded(body.access_token);
    expectOAuthError(await refreshRequest(t, app, body.refresh_token), 400, 'invalid_grant');
    const back = await t.admin('POST', `/workspaces/${workspaceId}/members`, { userId: person.user.id, role: 'member' });
    expect(back.statusCode, back.body).toBe(201);
    await expectEnded(body.access_token);
  });

  test('the app deleted: 401, and its refresh token is refused', async () => {
    const doomed = await registerApp(t, owner, workspaceId);
    const body = await connect(t, member, doomed, workspaceId);
    await expectWorks(body.access_token);
    const deleted = await asSession(t, owner.cookie, 'DELETE', `/api/workspaces/${workspaceId}/oauth-apps/${doomed.id}`);
    expect(deleted.statusCode, deleted.body).toBe(200);
    await expectEnded(body.access_token);
    // The client itself is gone, so it can no longer authenticate.
    expectOAuthError(await refreshRequest(t, doomed, body.refresh_token), 401, 'invalid_client');
  });

  test('the consent removed in the settings (DELETE …/authorizations/{grantId}): 401 at once, refresh refused', async () => {
    const person = await signedInMember(t, workspaceId, 'member');
    const body = await connect(t, person, app, workspaceId);
    await expectWorks(body.access_token);
    const grantId = await grantIdOf(t, owner, workspaceId, app.id, person.user.id);
    const removed = await asSession(t, owner.cookie, 'DELETE', `/api/workspaces/${workspaceId}/authorizations/${grantId}`);
    expect(removed.statusCode, removed.body).toBe(200);
    await expectEnded(body.access_token);
    expectOAuthError(await refreshRequest(t, app, body.refresh_token), 400, 'invalid_grant');
  });

  test('not for account or settings routes: GET /api/me 401 person_required, settings 401 session_required', async () => {
    const body = await connect(t, member, app, workspaceId);
    expectError(await t.inject({ method: 'GET', url: '/api/me', headers: bearer(body.access_token) }), 401, 'person_required');
    for (const [method, url, payload] of [
      ['GET', '/api/workspaces', undefined],
      ['GET', '/api/me/tokens', undefined],
      ['POST', '/api/me/tokens', { name: 'minted', workspaceId, scopes: ['linksRead'] }],
      ['GET', `/api/workspaces/${workspaceId}/oauth-apps`, undefined],
      ['GET', `/api/workspaces/${workspaceId}/authorizations`, undefined],
      ['POST', `/api/workspaces/${workspaceId}/keys`, { name: 'minted', scopes: ['linksRead'] }],
    ] as const) {
      const res = await t.inject({ method, url, headers: bearer(body.access_token), payload: payload as object | undefined });
      expectError(res, 401, 'session_required');
    }
  });

  test("counts against the workspace's rate limit, in the same window as the workspace's keys", async () => {
    const limited = await t.workspace({ rateLimitPerMinute: 4 });
    const person = await signedInMember(t, limited.id, 'owner');
    const body = await connect(t, person, app, limited.id);
    const seen: [string, string, string][] = [];
    for (const credential of [limited.key, body.access_token, limited.key, body.access_token]) {
      const res = await readLinks(t, credential);
      expect(res.statusCode, res.body).toBe(200);
      seen.push([credential === limited.key ? 'key' : 'token', String(res.headers['x-ratelimit-limit']), String(res.headers['x-ratelimit-remaining'])]);
      expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThan(0);
    }
    expect(seen).toEqual([
      ['key', '4', '3'],
      ['token', '4', '2'],
      ['key', '4', '1'],
      ['token', '4', '0'],
    ]);
    expectError(await readLinks(t, body.access_token), 429, 'rate_limited');
    expectError(await readLinks(t, limited.key), 429, 'rate_limited');
  });
});

describe('POST /oauth/revoke', () => {
  test('an access token: 200, then 401; the rest of the grant lives', async () => {
    const body = await connect(t, member, app, workspaceId);
    await expectWorks(body.access_token);
    const res = await revokeRequest(t, app, body.access_token);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    await expectEnded(body.access_token);
    const refreshed = await refreshRequest(t, app, body.refresh_token);
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    await expectWorks(refreshed.json<TokenAnswer>().access_token);
  });

  test('a refresh token: 200, then every token of the grant is 401 and the refresh token refused', async () => {
    const first = await connect(t, member, app, workspaceId);
    const second = (await refreshRequest(t, app, first.refresh_token)).json<TokenAnswer>();
    const res = await revokeRequest(t, app, second.refresh_token);
    expect(res.statusCode, res.body).toBe(200);
    await expectEnded(first.access_token);
    await expectEnded(second.access_token);
    expectOAuthError(await refreshRequest(t, app, second.refresh_token), 400, 'invalid_grant');
  });

  test('a public client revokes with its client_id', async () => {
    const body = await connect(t, member, publicApp, workspaceId);
    expect((await revokeRequest(t, publicApp, body.access_token)).statusCode).toBe(200);
    await expectEnded(body.access_token);
  });

  test('an unknown, malformed or missing token: 200', async () => {
    for (const token of [`lto_${randomBytes(32).toString('base64url')}`, `ltr_${randomBytes(32).toString('base64url')}`, 'garbage']) {
      const res = await revokeRequest(t, app, token);
      expect(res.statusCode, res.body).toBe(200);
    }
    const none = await tokenRequest(t, app, {}, 'basic', '/oauth/revoke');
    expect(none.statusCode, none.body).toBe(200);
  });

  test("another client's token: 200 but the token keeps working", async () => {
    const body = await connect(t, member, app, workspaceId);
    expect((await revokeRequest(t, otherApp, body.access_token)).statusCode).toBe(200);
    expect((await revokeRequest(t, otherApp, body.refresh_token)).statusCode).toBe(200);
    await expectWorks(body.access_token);
    expect((await refreshRequest(t, app, body.refresh_token)).statusCode).toBe(200);
  });

  test('a client that fails to authenticate: 401 invalid_client, and the token keeps working', async () => {
    const body = await connect(t, member, app, workspaceId);
    expectOAuthError(await revokeRequest(t, { ...app, clientSecret: 'ltcs_wrong' }, body.access_token), 401, 'invalid_client');
    expectOAuthError(await revokeRequest(t, app, body.access_token, 'none'), 401, 'invalid_client');
    await expectWorks(body.access_token);
  });
});

describe('refresh tokens live 90 days', () => {
  const longClock = mutableClock(new Date('2032-01-01T00:00:00Z'));
  let u: TestApp;
  beforeAll(async () => {
    u = await startTestApp({ clock: longClock.now });
  });
  afterAll(() => u?.close());

  test('refreshable just before 90 days, invalid_grant at 90 days', async () => {
    const made = await ownedWorkspace(u);
    const lived = await registerApp(u, made.owner, made.workspace.id);
    const early = await exchange(u, lived, await authorizeCode(u, made.owner, lived, made.workspace.id));
    const late = await exchange(u, lived, await authorizeCode(u, made.owner, lived, made.workspace.id));
    longClock.advance(90 * DAY_MS - 1);
    expect((await refreshRequest(u, lived, early.refresh_token)).statusCode).toBe(200);
    longClock.advance(1);
    expectOAuthError(await refreshRequest(u, lived, late.refresh_token), 400, 'invalid_grant');
  });
});
