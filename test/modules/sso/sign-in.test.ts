/**
 * OpenID Connect single sign-on (operations.md §15) through HTTP against a real OpenID provider
 * (test/helpers/oidc-provider.ts): the happy path makes the person and the membership; every
 * check of the callback refuses with a page; the provider's word never takes over an account.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { Browser, type TestProvider } from '../../helpers/oidc-provider.js';
import { asSession, createUser, expectError, loginRequest, login, addMember, ownedWorkspace, uniqueEmail, ORIGIN, PASSWORD } from '../people/helpers.js';
import {
  CALLBACK,
  callbackRequest,
  cookieOf,
  expectPage,
  newProvider,
  ssoSignIn,
  ssoWorkspace,
  startFromOwnPage,
  throughProvider,
  uniqueDomain,
} from './helpers.js';

let t: TestApp;
let idp: TestProvider;
beforeAll(async () => {
  t = await startTestApp({ env: { SSO_ALLOWED_CIDRS: '127.0.0.1/32' } });
  idp = await newProvider();
});
afterAll(async () => {
  await idp.stop();
  await t.close();
});

const account = (domain: string, o: { verified?: boolean; sub?: string } = {}) => {
  const sub = o.sub ?? `sub-${Math.random().toString(36).slice(2)}`;
  const email = `${sub}@${domain}`;
  idp.accounts.set(sub, { email, email_verified: o.verified ?? true, name: 'Sam SSO' });
  return { sub, email };
};

describe('sign-in through the provider', () => {
  test('first sign-in makes the person and the membership with the connection role; the next signs the same person in', async () => {
    const domain = uniqueDomain();
    const { workspace } = await ssoWorkspace(t, idp, { domains: [domain], role: 'viewer' });
    const { sub, email } = account(domain);
    const { callback, ssoCookie, authorizationUrl } = await throughProvider(t, `/api/auth/sso?workspace=${workspace.id}`, sub);
    // Code flow with PKCE S256, state and nonce.
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(authorizationUrl.searchParams.get('state')).toBeTruthy();
    expect(authorizationUrl.searchParams.get('nonce')).toBeTruthy();
    expect(callback.searchParams.get('code')).toBeTruthy();
    const done = await callbackRequest(t, callback, ssoCookie);
    expect(done.statusCode, done.body).toBe(302);
    expect(done.headers.location).toBe('/app');
    const session = cookieOf(done, /^(__Host-)?lt_session=/)!;
    const me = await t.inject({ method: 'GET', url: '/api/me', headers: { cookie: session } });
    expect(me.statusCode, me.body).toBe(200);
    expect(me.json()).toMatchObject({ user: { email } });
    expect(me.json<{ workspaces: { id: string; role: string }[] }>().workspaces.find((w) => w.id === workspace.id)).toMatchObject({ role: 'viewer' });
    // The state is single use: the same callback again is refused.
    expectPage(await callbackRequest(t, callback, ssoCookie), 400, 'sso_state_invalid');
    // Signing in again (by e-mail this time) is the same person, no second account.
    const again = await ssoSignIn(t, `/api/auth/sso?email=${encodeURIComponent(email)}`, sub);
    expect(again.statusCode, again.body).toBe(302);
    const me2 = await t.inject({ method: 'GET', url: '/api/me', headers: { cookie: cookieOf(again, /lt_session=/)! } });
    expect(me2.json<{ user: { id: string } }>().user.id).toBe(me.json<{ user: { id: string } }>().user.id);
    // Both sign-ins are in the person's security log, by SSO.
    const log = await t.inject({ method: 'GET', url: '/api/me/security-log', headers: { cookie: session } });
    expect(log.json<{ method: string; outcome: string }[]>().map((e) => `${e.method} ${e.outcome}`)).toEqual(['sso succeeded', 'sso succeeded']);
  });

  test('a state of another browser, a missing cookie or an altered state is refused', async () => {
    const domain = uniqueDomain();
    const { workspace } = await ssoWorkspace(t, idp, { domains: [domain] });
    const { sub } = account(domain);
    const { callback } = await throughProvider(t, `/api/auth/sso?workspace=${workspace.id}`, sub);
    const other = await startFromOwnPage(t, `/api/auth/sso?workspace=${workspace.id}`);
    // The cookie of another sign-in (another browser) does not finish this one.
    expectPage(await callbackRequest(t, callback, cookieOf(other, /lt_sso=/)), 400, 'sso_state_invalid');
    const second = await throughProvider(t, `/api/auth/sso?workspace=${workspace.id}`, sub);
    expectPage(await callbackRequest(t, second.callback, undefined), 400, 'sso_state_invalid');
    const third = await throughProvider(t, `/api/auth/sso?workspace=${workspace.id}`, sub);
    const altered = new URL(third.callback);
    altered.searchParams.set('state', 'x'.repeat(43));
    expectPage(await callbackRequest(t, altered, third.ssoCookie), 400, 'sso_state_invalid');
  });

  test.each([
    ['a nonce that is not this sign-in’s', (c: Record<string, unknown>) => ({ ...c, nonce: 'another-nonce' }), false, /nonce/],
    ['another audience', (c: Record<string, unknown>) => ({ ...c, aud: 'another-client' }), false, /aud/],
    [
      'an expired token',
      (c: Record<string, unknown>) => ({ ...c, exp: Math.floor(Date.now() / 1000) - 3600, iat: Math.floor(Date.now() / 1000) - 7200 }),
      false,
      /exp/,
    ],
    ['another issuer', (c: Record<string, unknown>) => ({ ...c, iss: 'http://127.0.0.1:1' }), false, /iss/],
    ['a signature by a key the provider never published', (c: Record<string, unknown>) => c, true, /signature|key/i],
  ])('an ID token with %s is refused', async (_what, change, otherKey, why) => {
    const domain = uniqueDomain();
    const { workspace } = await ssoWorkspace(t, idp, { domains: [domain] });
    const { sub, email } = account(domain);
    idp.tamperNextIdToken(change, { otherKey });
    const refused = await ssoSignIn(t, `/api/auth/sso?workspace=${workspace.id}`, sub);
    expectPage(refused, 403, 'sso_refused');
    // Refused for that very reason (the page names the check).
    expect(/id="sso-error"[^>]*>([^<]*)</.exec(refused.body)?.[1]).toMatch(why);
    // Nobody was made.
    expect((await t.admin('GET', '/users')).json<{ email: string }[]>().some((u) => u.email === email)).toBe(false);
  });

  test('email_verified false is refused', async () => {
    const domain = uniqueDomain();
    const { workspace } = await ssoWorkspace(t, idp, { domains: [domain] });
    const { sub } = account(domain, { verified: false });
    expectPage(await ssoSignIn(t, `/api/auth/sso?workspace=${workspace.id}`, sub), 403, 'sso_email_unverified');
  });

  test('a domain not verified admits nobody, and ?email= does not find it', async () => {
    const domain = uniqueDomain();
    const { workspace } = await ssoWorkspace(t, idp, { domains: [domain], verify: false });
    const { sub, email } = account(domain);
    expectPage(await ssoSignIn(t, `/api/auth/sso?workspace=${workspace.id}`, sub), 403, 'sso_domain_unverified');
    expectPage(await startFromOwnPage(t, `/api/auth/sso?email=${encodeURIComponent(email)}`), 400, 'sso_unavailable');
  });
});

describe('existing accounts', () => {
  test('an existing e-mail is refused until its person, signed in with the password, links it', async () => {
    const domain = uniqueDomain();
    const { workspace } = await ssoWorkspace(t, idp, { domains: [domain], role: 'member' });
    const { sub, email } = account(domain);
    const user = await createUser(t, { email });
    expectPage(await ssoSignIn(t, `/api/auth/sso?workspace=${workspace.id}`, sub), 403, 'sso_link_required');
    // Signed in the usual way, the person links it.
    const session = await login(t, user);
    const link = await asSession(t, session, 'POST', '/api/me/sso/link', { workspaceId: workspace.id });
    expect(link.statusCode, link.body).toBe(200);
    const ssoCookie = cookieOf(link, /lt_sso=/)!;
    const { Browser } = await import('../../helpers/oidc-provider.js');
    const callback = await new Browser().authorize(link.json<{ authorizationUrl: string }>().authorizationUrl, sub);
    const linked = await callbackRequest(t, callback, ssoCookie);
    expect(linked.statusCode, linked.body).toBe(302);
    expect(linked.headers.location).toBe('/app/account?sso=linked');
    // From now on the provider signs this very person in, a member of the workspace.
    const next = await ssoSignIn(t, `/api/auth/sso?workspace=${workspace.id}`, sub);
    expect(next.statusCode, next.body).toBe(302);
    const me = await t.inject({ method: 'GET', url: '/api/me', headers: { cookie: cookieOf(next, /lt_session=/)! } });
    expect(me.json<{ user: { id: string } }>().user.id).toBe(user.id);
    expect(me.json<{ workspaces: { id: string; role: string }[] }>().workspaces.find((w) => w.id === workspace.id)).toMatchObject({ role: 'member' });
  });

  test('the provider’s `Victim@CORP.test.` is the existing victim@corp.test: refused until linked, then that account — never a second one', async () => {
    const domain = uniqueDomain();
    const { workspace } = await ssoWorkspace(t, idp, { domains: [domain] });
    const sub = `sub-${Math.random().toString(36).slice(2)}`;
    const user = await createUser(t, { email: `victim-${sub}@${domain}` });
    // The same mailbox as the provider may spell it: upper case and the domain's trailing dot.
    idp.accounts.set(sub, { email: `Victim-${sub}@${domain.toUpperCase()}.`, email_verified: true, name: 'Victim' });
    const accounts = async () =>
      (await t.admin('GET', '/users'))
        .json<{ email: string }[]>()
        .filter((u) => u.email.toLowerCase().includes(sub))
        .map((u) => u.email);
    expectPage(await ssoSignIn(t, `/api/auth/sso?workspace=${workspace.id}`, sub), 403, 'sso_link_required');
    expect(await accounts()).toEqual([`victim-${sub}@${domain}`]);
    // Linked by its person (the provider's spelling is this account's e-mail), it signs that account in.
    const link = await asSession(t, await login(t, user), 'POST', '/api/me/sso/link', { workspaceId: workspace.id });
    const linked = await callbackRequest(
      t,
      await new Browser().authorize(link.json<{ authorizationUrl: string }>().authorizationUrl, sub),
      cookieOf(link, /lt_sso=/),
    );
    expect(linked.statusCode, linked.body).toBe(302);
    const next = await ssoSignIn(t, `/api/auth/sso?email=${encodeURIComponent(`VICTIM-${sub}@${domain}.`)}`, sub);
    expect(next.statusCode, next.body).toBe(302);
    const me = await t.inject({ method: 'GET', url: '/api/me', headers: { cookie: cookieOf(next, /lt_session=/)! } });
    expect(me.json<{ user: { id: string } }>().user.id).toBe(user.id);
    expect(await accounts()).toEqual([`victim-${sub}@${domain}`]);
  });

  test('a first sign-in stores the provider’s e-mail in its one form', async () => {
    const domain = uniqueDomain();
    const { workspace } = await ssoWorkspace(t, idp, { domains: [domain] });
    const sub = `sub-${Math.random().toString(36).slice(2)}`;
    idp.accounts.set(sub, { email: `New.Person-${sub}@${domain.toUpperCase()}.`, email_verified: true });
    const done = await ssoSignIn(t, `/api/auth/sso?workspace=${workspace.id}`, sub);
    expect(done.statusCode, done.body).toBe(302);
    const me = await t.inject({ method: 'GET', url: '/api/me', headers: { cookie: cookieOf(done, /lt_session=/)! } });
    expect(me.json<{ user: { email: string } }>().user.email).toBe(`new.person-${sub}@${domain}`);
    // The password sign-in of that address, however written, is that account (no password known: 401, not another account).
    expect((await loginRequest(t, `NEW.PERSON-${sub}@${domain}.`, 'not the password at all')).statusCode).toBe(401);
    const signUp = await t.admin('POST', '/users', { email: `new.person-${sub}@${domain.toUpperCase()}.`, name: 'Twin', password: PASSWORD });
    expectError(signUp, 400, 'invalid_field', 'email');
    expect(signUp.body).toContain('already belongs to an account');
  });

  test('linking takes only an identity of the account’s own e-mail', async () => {
    const domain = uniqueDomain();
    const { workspace } = await ssoWorkspace(t, idp, { domains: [domain] });
    const user = await createUser(t, { email: `owner-${Date.now()}@${domain}` });
    const other = account(domain);
    const link = await asSession(t, await login(t, user), 'POST', '/api/me/sso/link', { workspaceId: workspace.id });
    const { Browser } = await import('../../helpers/oidc-provider.js');
    const callback = await new Browser().authorize(link.json<{ authorizationUrl: string }>().authorizationUrl, other.sub);
    expectPage(await callbackRequest(t, callback, cookieOf(link, /lt_sso=/)), 403, 'sso_link_email_mismatch');
    // That identity is still free: it signs in as a new person of its own.
    const fresh = await ssoSignIn(t, `/api/auth/sso?workspace=${workspace.id}`, other.sub);
    expect(fresh.statusCode, fresh.body).toBe(302);
  });

  test("a second workspace's provider asserting an existing person's e-mail signs nobody in as that person", async () => {
    const domainA = uniqueDomain('a');
    const { workspace: a } = await ssoWorkspace(t, idp, { domains: [domainA] });
    const victim = account(domainA);
    const first = await ssoSignIn(t, `/api/auth/sso?workspace=${a.id}`, victim.sub);
    expect(first.statusCode).toBe(302);
    // Workspace B, with its own provider, which says it is the victim (same e-mail, even same sub).
    const evil = await newProvider();
    try {
      const domainB = uniqueDomain('b');
      const { workspace: b } = await ssoWorkspace(t, evil, { domains: [domainB] });
      // Its own domain verified, another's e-mail: refused by the domain.
      evil.accounts.set(victim.sub, { email: victim.email, email_verified: true });
      expectPage(await ssoSignIn(t, `/api/auth/sso?workspace=${b.id}`, victim.sub), 403, 'sso_domain_unverified');
      // B cannot verify A's domain either (it speaks for A).
      const put = await t.admin('POST', `/workspaces/${b.id}/sso/domains/${domainB}/verify`);
      expect(put.statusCode).toBe(200);
      // And a person of B's domain who already has an account is never taken over.
      const existing = await createUser(t, { email: `boss@${domainB}` });
      evil.accounts.set('boss', { email: existing.email, email_verified: true });
      expectPage(await ssoSignIn(t, `/api/auth/sso?workspace=${b.id}`, 'boss'), 403, 'sso_link_required');
    } finally {
      await evil.stop();
    }
  });

  test('another workspace cannot verify a domain one connection verified', async () => {
    const domain = uniqueDomain();
    await ssoWorkspace(t, idp, { domains: [domain] });
    const { workspace: other } = await ssoWorkspace(t, idp, { domains: [domain], verify: false });
    expectError(await t.admin('POST', `/workspaces/${other.id}/sso/domains/${domain}/verify`), 400, 'sso_domain_taken');
  });
});

describe('require SSO', () => {
  test('refuses password sign-in to members whose e-mail is in a verified domain (403 sso_required); others sign in', async () => {
    const domain = uniqueDomain();
    const { workspace, owner } = await ssoWorkspace(t, idp, { domains: [domain], requireSso: true });
    const inside = await createUser(t, { email: uniqueEmail('x').replace('example.com', domain) });
    await addMember(t, workspace.id, inside.id, 'member');
    const refused = await loginRequest(t, inside.email, inside.password);
    expectError(refused, 403, 'sso_required');
    expect(cookieOf(refused, /lt_session=/)).toBeUndefined();
    // A wrong password is still the usual 401 (nothing said about SSO).
    // (From an address of its own: failed sign-ins count per address, shared by every test file.)
    const wrong = await t.inject({
      method: 'POST',
      url: '/api/auth/login',
      remoteAddress: '198.51.100.27',
      payload: { email: inside.email, password: 'not the password at all' },
    });
    expectError(wrong, 401, 'login_failed');
    // The owner (another domain) and a non-member of the domain still sign in with passwords.
    expect((await loginRequest(t, owner.user.email, owner.user.password)).statusCode).toBe(200);
    const outsider = await createUser(t, { email: uniqueEmail('y').replace('example.com', domain) });
    expect((await loginRequest(t, outsider.email, outsider.password)).statusCode).toBe(200);
    // Turned off, the member signs in with the password again.
    const off = await asSession(
      t,
      owner.cookie,
      'PUT',
      '/api/sso',
      { issuer: idp.issuer, clientId: idp.clientId, domains: [domain], role: 'member', requireSso: false },
      { workspaceId: workspace.id },
    );
    expect(off.statusCode, off.body).toBe(200);
    expect((await loginRequest(t, inside.email, inside.password)).statusCode).toBe(200);
  });
});

describe('a provider that is down', () => {
  test('gives a clear page at the start and at the callback, not a 500 nor JSON', async () => {
    const down = await newProvider();
    const domain = uniqueDomain();
    const { workspace } = await ssoWorkspace(t, down, { domains: [domain] });
    down.accounts.set('sam', { email: `sam@${domain}`, email_verified: true });
    const { callback, ssoCookie } = await throughProvider(t, `/api/auth/sso?workspace=${workspace.id}`, 'sam');
    await down.stop();
    expectPage(await callbackRequest(t, callback, ssoCookie), 502, 'sso_provider_down');
    expectPage(await startFromOwnPage(t, `/api/auth/sso?workspace=${workspace.id}`), 502, 'sso_provider_down');
  });
});

describe('login CSRF: a start this service did not make', () => {
  test('another site’s link, a typed URL or no Fetch Metadata gets a page naming the workspace, not the provider; only a post from this origin goes on', async () => {
    const domain = uniqueDomain();
    const { workspace, owner } = await ssoWorkspace(t, idp, { domains: [domain] });
    // A name with markup: shown as text, never as HTML.
    const renamed = await asSession(t, owner.cookie, 'PATCH', `/api/workspaces/${workspace.id}`, { name: 'Evil <b>Corp</b> & Co' });
    expect(renamed.statusCode, renamed.body).toBe(200);
    const { sub, email } = account(domain);
    const start = `/api/auth/sso?workspace=${workspace.id}`;
    for (const site of ['cross-site', 'same-site', 'none', undefined]) {
      const page = await t.inject({ method: 'GET', url: start, headers: site ? { 'sec-fetch-site': site, 'sec-fetch-mode': 'navigate' } : {} });
      expect(page.statusCode, `${site}: ${page.body}`).toBe(200);
      expect(page.headers.location).toBeUndefined();
      expect(cookieOf(page, /lt_sso=/), 'no sign-in started').toBeUndefined();
      expect(page.body).toContain('<bdi>Evil &lt;b&gt;Corp&lt;/b&gt; &amp; Co</bdi>');
      expect(page.body).not.toContain('<b>Corp');
      expect(page.body).toContain(new URL(idp.issuer).host);
      expect(page.body).toMatch(/<form id="sso-continue" method="post" action="\/api\/auth\/sso">/);
      expect(page.body).toContain(`name="workspace" value="${workspace.id}"`);
      expect(String(page.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
      expect(page.headers['x-frame-options']).toBe('DENY');
    }
    // By e-mail, the page carries the e-mail on.
    const byEmail = await t.inject({ method: 'GET', url: `/api/auth/sso?email=${encodeURIComponent(email)}`, headers: { 'sec-fetch-site': 'cross-site' } });
    expect(byEmail.statusCode).toBe(200);
    expect(byEmail.body).toContain(`name="email" value="${email}"`);

    // Another site posting the form itself (auto-submitted): refused, nothing started.
    const form = (body: string, headers: Record<string, string>) =>
      t.inject({ method: 'POST', url: '/api/auth/sso', payload: body, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } });
    const foreign: Record<string, string>[] = [
      { 'sec-fetch-site': 'cross-site', origin: 'https://evil.test' },
      { 'sec-fetch-site': 'same-site', origin: 'https://sub.lt.test' },
      { origin: 'https://evil.test' },
      {},
    ];
    for (const headers of foreign) {
      const refused = await form(`workspace=${workspace.id}`, headers);
      expectPage(refused, 403, 'cross_site_sign_in');
      expect(cookieOf(refused, /lt_sso=/)).toBeUndefined();
    }
    // The page's own button (same origin; or, without Fetch Metadata, Origin alone): to the provider, and the sign-in finishes.
    expect((await form(`email=${encodeURIComponent(email)}`, { origin: ORIGIN })).statusCode).toBe(302);
    const posted = await form(`workspace=${workspace.id}`, { 'sec-fetch-site': 'same-origin', origin: ORIGIN });
    expect(posted.statusCode, posted.body).toBe(302);
    const authorizationUrl = new URL(String(posted.headers.location));
    expect(authorizationUrl.origin).toBe(new URL(idp.issuer).origin);
    const callback = await new Browser().authorize(authorizationUrl.href, sub);
    const done = await callbackRequest(t, callback, cookieOf(posted, /lt_sso=/));
    expect(done.statusCode, done.body).toBe(302);
    expect(cookieOf(done, /lt_session=/)).toBeTruthy();
  });
});

describe('a callback without a code', () => {
  test('cancelled at the provider (access_denied) or malformed is a 400 page saying so, not 502, and uses the sign-in up', async () => {
    const domain = uniqueDomain();
    const { workspace } = await ssoWorkspace(t, idp, { domains: [domain] });
    const { sub } = account(domain);
    const back = (state: string, extra: Record<string, string>) => new URL(`${CALLBACK}?${new URLSearchParams({ ...extra, state })}`);

    const cancelled = await throughProvider(t, `/api/auth/sso?workspace=${workspace.id}`, sub);
    const state = cancelled.callback.searchParams.get('state')!;
    const page = await callbackRequest(t, back(state, { error: 'access_denied', error_description: 'End-User aborted interaction' }), cancelled.ssoCookie);
    expectPage(page, 400, 'sso_cancelled');
    expect(page.body).toContain('cancelled at your identity provider');
    // That sign-in is over: the provider's real answer for it no longer signs anyone in.
    expectPage(await callbackRequest(t, cancelled.callback, cancelled.ssoCookie), 400, 'sso_state_invalid');

    const malformed = await throughProvider(t, `/api/auth/sso?workspace=${workspace.id}`, sub);
    const noCode = await callbackRequest(t, back(malformed.callback.searchParams.get('state')!, {}), malformed.ssoCookie);
    expectPage(noCode, 400, 'sso_callback_malformed');
    expect(noCode.body).toContain('without a sign-in code');
    // Nothing at all, or an empty code: the same page.
    expectPage(await callbackRequest(t, new URL(CALLBACK), undefined), 400, 'sso_callback_malformed');
    expectPage(await callbackRequest(t, back('x'.repeat(43), { code: '' }), malformed.ssoCookie), 400, 'sso_callback_malformed');
  });
});

describe('no connection', () => {
  test('an unknown workspace or e-mail is a page', async () => {
    const { workspace } = await ownedWorkspace(t);
    expectPage(await t.inject({ method: 'GET', url: `/api/auth/sso?workspace=${workspace.id}` }), 400, 'sso_unavailable');
    expectPage(await t.inject({ method: 'GET', url: '/api/auth/sso?email=nobody%40nowhere.test' }), 400, 'sso_unavailable');
    expectPage(await t.inject({ method: 'GET', url: '/api/auth/sso' }), 400, 'sso_unavailable');
  });
});
