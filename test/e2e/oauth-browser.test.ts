/**
 * Connecting an app in a real browser, through the dashboard's pages (operations.md §9, §10):
 * a third-party site on http://localhost:<port> (a node:http server whose /callback is the
 * app's registered redirect URI) links to the authorize URL of Linktrail on
 * http://127.0.0.1:<port>, another site. oauth4webapi builds that URL (PKCE S256, state) and
 * later checks the callback and exchanges the code. Chromium follows the link to the
 * dashboard's sign-in (/app?next=…), signs in, comes back through /oauth/authorize to the
 * dashboard's consent page (/app/oauth/consent): the app's name, the scopes in the settings
 * pages' words, a choice among the two workspaces the user owns — not the one where they are
 * a viewer. Allow is a real form POST answered by a redirect to the callback (the page's CSP
 * form-action names the callback's origin): it lands with the code and the state, and the code
 * buys a token for the chosen workspace. Deny lands with access_denied. axe-core checks the
 * page in English and Arabic at the desktop width and at 375 px (screenshots
 * test/e2e/__screenshots__/dashboard-oauth-consent-*.png, oauth-sign-in.png, oauth-callback.png). Runs on either
 * engine (its users are its own); skips itself without Chromium or a built dashboard.
 */
import { createServer, type Server } from 'node:http';
import * as oauth from 'oauth4webapi';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { strings as settingsStrings } from '../../web/src/pages/settings/strings.js';
import { bearer, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/process.js';
import { addMember, asSession, createUser, login, type TestUser } from '../modules/people/helpers.js';
import { browserRunnable, SCREENSHOTS, startDashboard, type Dashboard } from './dashboard-harness.js';

const APP_NAME = 'Pipeline Reporter';
/** Plain http to 127.0.0.1 is allowed for this test server only. */
const insecure = { [oauth.allowInsecureRequests]: true } as const;
const words = (lang: 'en' | 'ar', scope: 'linksRead' | 'linksWrite') => `${settingsStrings[lang].scopeWords[scope]} ${scope}`;

describe.skipIf(!browserRunnable())('connecting an OAuth app through the dashboard in Chromium', () => {
  let d: Dashboard;
  let t: TestApp;
  let origin: string;
  let client: Server;
  let clientOrigin: string;
  let redirectUri: string;
  /** Every request the third-party site received, as path + query. */
  const clientHits: string[] = [];

  let user: TestUser;
  const owned: { id: string; name: string }[] = [];
  let viewerWorkspace: { id: string; name: string };
  let app: { clientId: string; clientSecret: string };
  let as: oauth.AuthorizationServer;
  /** A link in the second owned workspace (the one the consent chooses). */
  let chosenLinkId: string;

  beforeAll(async () => {
    const clientPort = await freePort();
    clientOrigin = `http://localhost:${clientPort}`;
    redirectUri = `${clientOrigin}/callback`;

    // The third-party site: a start page linking to `?to=` and a callback page showing what it got.
    client = createServer((req, res) => {
      const url = new URL(req.url ?? '/', clientOrigin);
      clientHits.push(url.pathname + url.search);
      const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
      const body =
        url.pathname === '/callback'
          ? `<h1>Callback</h1><p id="code">${escape(url.searchParams.get('code') ?? '')}</p><p id="state">${escape(url.searchParams.get('state') ?? '')}</p>`
          : `<h1>${APP_NAME}</h1><a id="connect" href="${escape(url.searchParams.get('to') ?? '')}">Connect Linktrail</a>`;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(`<!doctype html><html lang="en"><head><title>${APP_NAME}</title></head><body>${body}</body></html>`);
    });
    await new Promise<void>((resolve) => client.listen(clientPort, '127.0.0.1', resolve));

    d = await startDashboard();
    t = d.t;
    origin = d.origin;

    // The user owns two workspaces and is a viewer in a third (whose role cannot grant linksWrite).
    user = await createUser(t, { name: 'Browser Person' });
    const cookie = await login(t, user);
    for (const name of ['Acme Marketing', 'Side Project']) {
      const res = await asSession(t, cookie, 'POST', '/api/workspaces', { name });
      expect(res.statusCode, res.body).toBe(201);
      owned.push({ id: res.json<{ id: string }>().id, name });
    }
    const col = await asSession(t, cookie, 'POST', '/api/collections', [{ name: 'Campaigns' }], { workspaceId: owned[1]!.id });
    expect(col.statusCode, col.body).toBe(201);
    const link = await asSession(t, cookie, 'POST', '/api/links', [{ collectionId: col.json<{ id: string }[]>()[0]!.id, url: 'https://example.com/spring' }], {
      workspaceId: owned[1]!.id,
    });
    expect(link.statusCode, link.body).toBe(201);
    chosenLinkId = link.json<{ id: string }[]>()[0]!.id;
    const other = await createUser(t, { name: 'Agency Owner' });
    const made = await asSession(t, await login(t, other), 'POST', '/api/workspaces', { name: 'Agency Client (viewer)' });
    expect(made.statusCode, made.body).toBe(201);
    viewerWorkspace = { id: made.json<{ id: string }>().id, name: 'Agency Client (viewer)' };
    await addMember(t, viewerWorkspace.id, user.id, 'viewer');

    const registered = await asSession(t, cookie, 'POST', `/api/workspaces/${owned[0]!.id}/oauth-apps`, {
      name: APP_NAME,
      redirectUris: [redirectUri],
      confidential: true,
      scopes: ['linksRead', 'linksWrite', 'analyticsRead'],
    });
    expect(registered.statusCode, registered.body).toBe(201);
    app = registered.json<{ clientId: string; clientSecret: string }>();

    const issuer = new URL(origin);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
  });

  afterEach(async () => {
    await d.closeContexts();
  });

  afterAll(async () => {
    await d?.close();
    if (client) {
      client.closeAllConnections();
      await new Promise<void>((resolve) => client.close(() => resolve()));
    }
  });

  /** An authorize URL built by oauth4webapi from the discovered metadata, with a fresh state and PKCE pair. */
  async function authorizeRequest(scope: string): Promise<{ url: string; state: string; verifier: string }> {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: app.clientId,
      redirect_uri: redirectUri,
      scope,
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }))
      url.searchParams.set(k, v);
    return { url: url.href, state, verifier };
  }

  /** From the app's own site, the cross-site link to the authorize endpoint; resolves on the dashboard page it lands on. */
  async function connectFromApp(page: Page, authorizeUrl: string, lands: '/app' | '/app/oauth/consent'): Promise<void> {
    await page.goto(`${clientOrigin}/?to=${encodeURIComponent(authorizeUrl)}`);
    await Promise.all([page.waitForURL((u) => u.origin === origin && u.pathname === lands), page.click('#connect')]);
  }

  /** Signs in on the dashboard's sign-in form and waits for the consent page it returns to. */
  async function signIn(page: Page, heading = `Connect ${APP_NAME}?`): Promise<void> {
    await page.getByRole('heading', { name: 'Sign in to Linktrail' }).waitFor();
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await Promise.all([
      page.waitForURL((u) => u.origin === origin && u.pathname === '/app/oauth/consent'),
      page.getByRole('button', { name: 'Sign in' }).click(),
    ]);
    await page.getByRole('heading', { name: heading }).waitFor();
  }

  const workspaceOptions = (page: Page) =>
    page.locator('select[name="workspaceId"] option').evaluateAll((els) => els.map((o) => ({ id: o.getAttribute('value'), name: o.textContent })));
  const scopeLines = (page: Page) => page.locator('.consent-scopes li').allTextContents();

  /** Clicks a consent button; resolves with the callback URL the browser lands on. */
  async function decide(page: Page, button: 'Allow' | 'Deny'): Promise<URL> {
    await Promise.all([
      page.waitForURL((u) => u.origin === clientOrigin && u.pathname === '/callback', { timeout: 15_000 }),
      page.getByRole('button', { name: button }).click(),
    ]);
    return new URL(page.url());
  }

  it("sends the visitor to the dashboard's sign-in and back to the consent page: the app, the scopes in words, only the workspaces that can grant them", async () => {
    const page = await d.newPage('en-US');
    await connectFromApp(page, (await authorizeRequest('linksRead linksWrite')).url, '/app');
    expect(new URL(page.url()).searchParams.get('next')).toMatch(/^\/oauth\/authorize\?/);
    await page.getByText('An app asks to connect to one of your workspaces. Sign in to continue.').waitFor();
    await page.screenshot({ path: `${SCREENSHOTS}/oauth-sign-in.png`, fullPage: true });
    await signIn(page);
    await expect(page.getByText(`${APP_NAME} asks to act in one of your workspaces`).isVisible()).resolves.toBe(true);
    await expect(scopeLines(page)).resolves.toEqual([words('en', 'linksRead'), words('en', 'linksWrite')]);
    // The viewer workspace cannot grant linksWrite, so it is not offered.
    await expect(workspaceOptions(page)).resolves.toEqual(owned);
    await expect(page.getByLabel('Workspace').isVisible()).resolves.toBe(true);
    await expect(page.getByRole('button', { name: 'Allow' }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('button', { name: 'Deny' }).isVisible()).resolves.toBe(true);
    // No dashboard navigation around the consent.
    await expect(page.getByRole('navigation').count()).resolves.toBe(0);
    await d.checkAccessibility(page, 'oauth-consent-en');

    // Signed in now: the next connect from the app's site goes straight to the consent page
    // (the SameSite=Lax session cookie rides the cross-site top-level navigation). linksRead
    // alone is within a viewer's role, so the viewer workspace is offered this time.
    await connectFromApp(page, (await authorizeRequest('linksRead')).url, '/app/oauth/consent');
    await page.getByRole('heading', { name: `Connect ${APP_NAME}?` }).waitFor();
    await expect(scopeLines(page)).resolves.toEqual([words('en', 'linksRead')]);
    await expect(workspaceOptions(page).then((o) => o.map((w) => w.id).sort())).resolves.toEqual([...owned.map((w) => w.id), viewerWorkspace.id].sort());
    expect(clientHits.filter((h) => h.startsWith('/callback'))).toEqual([]);
    expect(d.cspViolations).toEqual([]);
  });

  it('Allow: a form POST that lands on the callback with the code and the state; the code buys a token for the chosen workspace', async () => {
    const page = await d.newPage('en-US');
    const request = await authorizeRequest('linksRead linksWrite');
    await connectFromApp(page, request.url, '/app');
    await signIn(page);
    const chosen = owned[1]!;
    await page.getByLabel('Workspace').selectOption(chosen.id);
    const landed = await decide(page, 'Allow');
    // Chromium applies form-action to the redirect answering the form: the page's CSP names the callback's origin.
    expect(d.cspViolations).toEqual([]);
    await expect(page.locator('#code').textContent()).resolves.toBe(landed.searchParams.get('code'));
    await page.screenshot({ path: `${SCREENSHOTS}/oauth-callback.png`, fullPage: true });

    // The app's backend: oauth4webapi checks the callback (state, no error) and exchanges the code (client_secret_post).
    const appClient: oauth.Client = { client_id: app.clientId };
    const callback = oauth.validateAuthResponse(as, appClient, landed, request.state);
    expect(callback.get('code')).toMatch(/^ltac_/);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      appClient,
      oauth.ClientSecretPost(app.clientSecret),
      callback,
      redirectUri,
      request.verifier,
      insecure,
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, appClient, response);
    expect(tokens).toMatchObject({ token_type: 'bearer', scope: 'linksRead linksWrite', workspace_id: chosen.id });
    // It acts in the chosen workspace: it sees that workspace's link (the other owned one has none).
    const links = await fetch(`${origin}/api/links`, { headers: bearer(tokens.access_token) });
    const visible = (await links.json()) as { id: string }[];
    expect(links.status, JSON.stringify(visible)).toBe(200);
    expect(visible.map((l) => l.id)).toEqual([chosenLinkId]);
    // Nothing beyond the grant: analyticsRead is the app's but was not asked for.
    expect((await fetch(`${origin}/api/analytics`, { headers: bearer(tokens.access_token) })).status).toBe(403);
  });

  it('Deny: lands on the callback with error=access_denied and the state, and no code', async () => {
    const page = await d.newPage('en-US');
    const request = await authorizeRequest('linksRead');
    await connectFromApp(page, request.url, '/app');
    await signIn(page);
    const denied = await decide(page, 'Deny');
    expect(denied.searchParams.get('error')).toBe('access_denied');
    expect(denied.searchParams.get('state')).toBe(request.state);
    expect(denied.searchParams.get('code')).toBeNull();
    expect(() => oauth.validateAuthResponse(as, { client_id: app.clientId }, denied, request.state)).toThrow(oauth.AuthorizationResponseError);
    expect(d.cspViolations).toEqual([]);
  });

  it("in Arabic: right to left, the scopes in the settings pages' Arabic words, accessible at 375 px too", async () => {
    const page = await d.newPage('ar');
    await connectFromApp(page, (await authorizeRequest('linksRead linksWrite')).url, '/app');
    await page.getByLabel('البريد الإلكتروني').fill(user.email);
    await page.getByLabel('كلمة المرور').fill(user.password);
    await Promise.all([page.waitForURL((u) => u.pathname === '/app/oauth/consent'), page.getByRole('button', { name: 'تسجيل الدخول' }).click()]);
    await page.getByRole('heading', { name: `ربط «${APP_NAME}»؟` }).waitFor();
    await expect(page.evaluate('document.documentElement.dir')).resolves.toBe('rtl');
    await expect(scopeLines(page)).resolves.toEqual([words('ar', 'linksRead'), words('ar', 'linksWrite')]);
    await expect(page.getByRole('button', { name: 'سماح' }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('button', { name: 'رفض' }).isVisible()).resolves.toBe(true);
    await d.checkAccessibility(page, 'oauth-consent-ar');
    expect(d.cspViolations).toEqual([]);
  });

  it('a person none of whose workspaces allows the scopes: the message, no choice, only Deny', async () => {
    const viewer = await createUser(t, { name: 'Only Viewer' });
    await addMember(t, viewerWorkspace.id, viewer.id, 'viewer');
    const page = await d.newPage('en-US');
    await connectFromApp(page, (await authorizeRequest('linksWrite')).url, '/app');
    await page.getByLabel('Email').fill(viewer.email);
    await page.getByLabel('Password').fill(viewer.password);
    await Promise.all([page.waitForURL((u) => u.pathname === '/app/oauth/consent'), page.getByRole('button', { name: 'Sign in' }).click()]);
    await page.getByRole('alert').filter({ hasText: 'None of your workspaces gives you every one of these permissions' }).waitFor();
    await expect(page.getByLabel('Workspace').count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: 'Allow' }).count()).resolves.toBe(0);
    await d.checkAccessibility(page, 'oauth-consent-none');
    const denied = await decide(page, 'Deny');
    expect(denied.searchParams.get('error')).toBe('access_denied');
  });

  it("the sign-in follows only a same-origin next: another site's address leaves the person on the overview", async () => {
    for (const next of ['https://evil.example/steal', '//evil.example/steal', '/\\evil.example/steal']) {
      const page = await d.newPage('en-US');
      await page.goto(`${origin}/app?next=${encodeURIComponent(next)}`);
      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password').fill(user.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('navigation').first().waitFor();
      expect(new URL(page.url()).origin, next).toBe(origin);
      expect(new URL(page.url()).pathname, next).toBe('/app');
    }
  });
});
