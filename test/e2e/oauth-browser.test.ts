/**
 * Connecting an app in a real browser (operations.md §9): a third-party site on
 * http://localhost:<port> (a node:http server whose /callback is the app's registered
 * redirect URI) links to the authorize URL of Linktrail on http://127.0.0.1:<port>, another
 * site. Chromium follows it to the sign-in page, signs in, reads the consent page (the app's
 * name, the scopes in words, a choice among the two workspaces the user owns — not the one
 * where they are a viewer), allows, and lands on the callback with the code and the state;
 * the test exchanges the code and uses the token. Deny comes back with access_denied.
 * Screenshots of the sign-in, consent and callback pages go to test/e2e/__screenshots__/oauth-*.png.
 * Skips itself when /usr/bin/chromium is not installed.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SCOPE_GUIDE } from '../../src/http/scope-guide.js';
import { bearer, startTestApp, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/process.js';
import { addMember, asSession, createUser, login, type TestUser } from '../modules/people/helpers.js';

const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOTS = 'test/e2e/__screenshots__';
const APP_NAME = 'Pipeline Reporter';

describe.skipIf(!existsSync(CHROMIUM))('connecting an OAuth app in Chromium', () => {
  let t: TestApp;
  let origin: string;
  let client: Server;
  let clientOrigin: string;
  let redirectUri: string;
  /** Every request the third-party site received, as path + query. */
  const clientHits: string[] = [];
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  let user: TestUser;
  const owned: { id: string; name: string }[] = [];
  let viewerWorkspace: { id: string; name: string };
  let app: { clientId: string; clientSecret: string };
  /** A link in the second owned workspace (the one the consent chooses). */
  let chosenLinkId: string;

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const [appPort, clientPort] = [await freePort(), await freePort()];
    origin = `http://127.0.0.1:${appPort}`;
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
      res.end(`<!doctype html><html><head><title>${APP_NAME}</title></head><body>${body}</body></html>`);
    });
    await new Promise<void>((resolve) => client.listen(clientPort, '127.0.0.1', resolve));

    t = await startTestApp({ env: { BASE_URL: origin } });
    await t.runtime.app.listen({ port: appPort, host: '127.0.0.1' });

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

    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });

  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close();
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    if (client) {
      client.closeAllConnections();
      await new Promise<void>((resolve) => client.close(() => resolve()));
    }
  });

  /** An authorize URL with a fresh state and PKCE pair. */
  function authorizeRequest(scope: string): { url: string; state: string; verifier: string } {
    const verifier = randomBytes(32).toString('base64url');
    const state = randomBytes(16).toString('base64url');
    const url = new URL('/oauth/authorize', origin);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: app.clientId,
      redirect_uri: redirectUri,
      scope,
      state,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString();
    return { url: url.href, state, verifier };
  }

  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 900, height: 900 } });
    contexts.push(context);
    return context.newPage();
  }

  /** From the app's own site, the cross-site link to the authorize endpoint; resolves on the page it lands on. */
  async function connectFromApp(page: Page, authorizeUrl: string, lands: '/oauth/sign-in' | '/oauth/authorize'): Promise<void> {
    await page.goto(`${clientOrigin}/?to=${encodeURIComponent(authorizeUrl)}`);
    await Promise.all([page.waitForURL((u) => u.origin === origin && u.pathname === lands), page.click('#connect')]);
  }

  /** Signs in on the sign-in page and waits for the consent page it returns to. */
  async function signIn(page: Page): Promise<void> {
    await page.fill('input[name="email"]', user.email);
    await page.fill('input[name="password"]', user.password);
    await Promise.all([page.waitForURL((u) => u.origin === origin && u.pathname === '/oauth/authorize'), page.click('button[type="submit"]')]);
    await expect(page.locator('h1').textContent()).resolves.toBe(`Connect ${APP_NAME}?`);
  }

  const workspaceOptions = (page: Page) =>
    page.locator('select[name="workspaceId"] option').evaluateAll((els) => els.map((o) => ({ id: o.getAttribute('value'), name: o.textContent })));

  /** Clicks a consent button; resolves with the callback URL the browser lands on. */
  async function decide(page: Page, decision: 'allow' | 'deny'): Promise<URL> {
    await Promise.all([page.waitForURL((u) => u.origin === clientOrigin && u.pathname === '/callback', { timeout: 15_000 }), page.click(`button[value="${decision}"]`)]);
    return new URL(page.url());
  }

  it('sends the visitor to sign in, then shows the consent page: the app, the scopes in words, only the workspaces that can grant them', async () => {
    const page = await newPage();
    await connectFromApp(page, authorizeRequest('linksRead linksWrite').url, '/oauth/sign-in');
    await expect(page.locator('h1').textContent()).resolves.toBe('Sign in to Linktrail');
    await page.screenshot({ path: `${SCREENSHOTS}/oauth-sign-in.png`, fullPage: true });

    await signIn(page);
    await expect(page.locator('li').allTextContents()).resolves.toEqual([`linksRead: ${SCOPE_GUIDE.linksRead}`, `linksWrite: ${SCOPE_GUIDE.linksWrite}`]);
    await expect(page.locator('p', { hasText: `${APP_NAME} asks to act in one of your workspaces` }).isVisible()).resolves.toBe(true);
    // The viewer workspace cannot grant linksWrite, so it is not offered.
    await expect(workspaceOptions(page)).resolves.toEqual(owned);
    await expect(page.locator('button[value="allow"]').isVisible()).resolves.toBe(true);
    await expect(page.locator('button[value="deny"]').isVisible()).resolves.toBe(true);
    await page.screenshot({ path: `${SCREENSHOTS}/oauth-consent.png`, fullPage: true });

    // Signed in now: the next connect from the app's site goes straight to the consent page
    // (the SameSite=Lax session cookie rides the cross-site top-level navigation). linksRead
    // alone is within a viewer's role, so the viewer workspace is offered this time.
    await connectFromApp(page, authorizeRequest('linksRead').url, '/oauth/authorize');
    await expect(page.locator('h1').textContent()).resolves.toBe(`Connect ${APP_NAME}?`);
    await expect(workspaceOptions(page).then((o) => o.map((w) => w.id).sort())).resolves.toEqual([...owned.map((w) => w.id), viewerWorkspace.id].sort());
    expect(clientHits.filter((h) => h.startsWith('/callback'))).toEqual([]);
  });

  // The consent page's CSP form-action names the app's callback origin besides 'self': Chromium
  // applies form-action to the redirect that answers the form (without it: net::ERR_ABORTED here).
  it('Allow: lands on the callback with the code and the state; the code buys a token for the chosen workspace', async () => {
    const page = await newPage();
    const request = authorizeRequest('linksRead linksWrite');
    await connectFromApp(page, request.url, '/oauth/sign-in');
    await signIn(page);
    const chosen = owned[1]!;
    await page.selectOption('select[name="workspaceId"]', chosen.id);
    const landed = await decide(page, 'allow');
    expect(landed.searchParams.get('state')).toBe(request.state);
    const code = landed.searchParams.get('code');
    expect(code).toMatch(/^ltac_/);
    await expect(page.locator('#code').textContent()).resolves.toBe(code);
    await page.screenshot({ path: `${SCREENSHOTS}/oauth-callback.png`, fullPage: true });

    // The app's backend exchanges the code (client_secret_post) and calls the API.
    const tokenRes = await fetch(`${origin}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: code!, redirect_uri: redirectUri, code_verifier: request.verifier, client_id: app.clientId, client_secret: app.clientSecret }),
    });
    const tokens = (await tokenRes.json()) as { access_token: string; scope: string; workspace_id: string };
    expect(tokenRes.status, JSON.stringify(tokens)).toBe(200);
    expect(tokens).toMatchObject({ token_type: 'Bearer', scope: 'linksRead linksWrite', workspace_id: chosen.id });
    // It acts in the chosen workspace: it sees that workspace's link (the other owned one has none).
    const links = await fetch(`${origin}/api/links`, { headers: bearer(tokens.access_token) });
    const visible = (await links.json()) as { id: string }[];
    expect(links.status, JSON.stringify(visible)).toBe(200);
    expect(visible.map((l) => l.id)).toEqual([chosenLinkId]);
    // Nothing beyond the grant: analyticsRead is the app's but was not asked for.
    expect((await fetch(`${origin}/api/analytics`, { headers: bearer(tokens.access_token) })).status).toBe(403);
  });

  it('Deny: lands on the callback with error=access_denied and the state, and no code', async () => {
    const page = await newPage();
    const request = authorizeRequest('linksRead');
    await connectFromApp(page, request.url, '/oauth/sign-in');
    await signIn(page);
    const denied = await decide(page, 'deny');
    expect(denied.searchParams.get('error')).toBe('access_denied');
    expect(denied.searchParams.get('state')).toBe(request.state);
    expect(denied.searchParams.get('code')).toBeNull();
  });
});
