/**
 * Single sign-on in Chromium (operations.md §15): the owner sets the provider in Settings →
 * Single sign-on (a real OpenID provider, test/helpers/oidc-provider.ts), sees the domain's TXT
 * record and Verify; the operator vouches for the domain; then a fresh browser signs in with
 * "Sign in with SSO" through the provider's own login and consent pages, and lands signed in.
 * English and Arabic, axe at 1280 and 375 px. A page of another site (attacker.test, the same
 * machine through --host-resolver-rules) that sends the browser to the sign-in cannot sign it in
 * as its own account (login CSRF): the browser is asked first.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startProvider, type TestProvider } from '../helpers/oidc-provider.js';
import { dashboardRunnable, startDashboard, type Dashboard } from './dashboard-harness.js';

describe.runIf(dashboardRunnable())('single sign-on in the dashboard', () => {
  let d: Dashboard;
  let idp: TestProvider;
  let workspaceId: string;
  let attacker: Server;
  let attackerOrigin: string;
  const domain = 'corp-sso.test';

  beforeAll(async () => {
    d = await startDashboard({ SSO_ALLOWED_CIDRS: '127.0.0.1/32' }, { browserArgs: ['--host-resolver-rules=MAP attacker.test 127.0.0.1'] });
    // Another site: its page sends the visitor to the sign-in of the workspace it names.
    attacker = createServer((req, res) => {
      const to = `${d.origin}/api/auth/sso?workspace=${workspaceId}`;
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><title>Cute cats</title><p>Cats!</p><script>location.href = ${JSON.stringify(to)};</script>`);
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    attackerOrigin = `http://attacker.test:${(attacker.address() as AddressInfo).port}`;
    idp = await startProvider({ redirectUri: `${d.origin}/api/auth/sso/callback` });
    idp.accounts.set('sam', { email: `sam@${domain}`, email_verified: true, name: 'Sam Example' });
    const page = await d.newPage();
    ({ workspaceId } = await d.setUpOwner(page));
    await d.closeContexts();
  });
  afterEach(() => d.closeContexts());
  afterAll(async () => {
    await new Promise((resolve) => attacker?.close(resolve));
    await idp?.stop();
    await d?.close();
  });

  it('an owner sets up the provider; its domain shows the TXT record and Verify', async () => {
    const page = await d.newPage();
    await d.signIn(page, { name: 'Maya Founder', email: 'maya@example.com', password: 'violet-harbour-91-lantern' });
    await d.open(page, '/settings/sso', 'Single sign-on');
    await page.getByLabel('Issuer URL').fill(idp.issuer);
    await page.getByLabel('Client ID').fill(idp.clientId);
    await page.getByLabel('Client secret').fill(idp.clientSecret);
    await page.getByLabel('E-mail domains').fill(domain);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Single sign-on saved.').waitFor();
    await page.getByText(`_linktrail.${domain}`).waitFor();
    await page.getByRole('button', { name: `Verify ${domain}` }).click();
    // No such record in this DNS: said, and the domain stays unverified.
    await page
      .getByText(/TXT record|DNS lookup/)
      .first()
      .waitFor();
    await d.checkAccessibility(page, 'sso-settings-en');
    // The secret never comes back to the page.
    expect(await page.content()).not.toContain(idp.clientSecret);

    expect((await d.t.admin('POST', `/workspaces/${workspaceId}/sso/domains/${domain}/verify`)).statusCode).toBe(200);
    const arabic = await d.newPage('ar');
    // Signed in through the API (the context's cookies are the page's).
    const login = await arabic.request.post(`${d.origin}/api/auth/login`, {
      headers: { origin: d.origin },
      data: { email: 'maya@example.com', password: 'violet-harbour-91-lantern' },
    });
    expect(login.status()).toBe(200);
    await d.open(arabic, '/settings/sso', 'الدخول الموحّد');
    await arabic.getByText('موثَّق', { exact: true }).waitFor();
    await d.checkAccessibility(arabic, 'sso-settings-ar');
  });

  it('a fresh browser signs in with SSO through the provider’s pages', async () => {
    const arabic = await d.newPage('ar');
    await arabic.goto(`${d.origin}/app`);
    await arabic.getByRole('heading', { name: 'الدخول عبر SSO' }).waitFor();
    await arabic.getByLabel('بريد العمل الإلكتروني').waitFor();
    await d.checkAccessibility(arabic, 'sign-in-sso-ar');

    const page = await d.newPage();
    await page.goto(`${d.origin}/app`);
    await page.getByRole('heading', { name: 'Sign in with SSO' }).waitFor();
    await page.getByLabel('Work e-mail').fill(`sam@${domain}`);
    await d.checkAccessibility(page, 'sign-in-sso-en');
    await page.getByRole('button', { name: 'Continue with SSO' }).click();
    // The provider's own pages: any password signs the typed login (the `sub`) in; then consent.
    await page.locator('input[name="login"]').fill('sam');
    await page.locator('input[name="password"]').fill('anything');
    await page.screenshot({ path: '/tmp/sso-provider-login.png' });
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    expect(new URL(page.url()).pathname).toMatch(/^\/app/);
    const me = await (await page.request.get(`${d.origin}/api/me`)).json();
    expect(me.user.email).toBe(`sam@${domain}`);
    expect(me.workspaces[0]).toMatchObject({ id: workspaceId, role: 'member' });
    await page.screenshot({ path: '/tmp/sso-signed-in.png' });
  });

  it('another site sending the browser to the sign-in does not sign it in as the attacker (login CSRF): it is asked first', async () => {
    idp.accounts.set('mallory', { email: `mallory@${domain}`, email_verified: true, name: 'Mallory Attacker' });
    const page = await d.newPage();
    await page.goto(`${attackerOrigin}/`);
    // Our page asking; or (unfixed) the provider's login — which the attacker's own provider
    // passes without a word, so the test passes it as the attacker (any password signs `mallory` in).
    const asked = page.getByRole('heading', { name: 'Continue to single sign-on?' });
    const providerLogin = page.locator('input[name="login"]');
    await asked.or(providerLogin).first().waitFor();
    if (await providerLogin.isVisible()) {
      await providerLogin.fill('mallory');
      await page.locator('input[name="password"]').fill('anything');
      await page.getByRole('button', { name: 'Sign-in' }).click();
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.waitForURL((u) => u.origin === d.origin);
    }
    const cookies = await page.context().cookies(d.origin);
    expect(cookies.map((c) => c.name)).not.toContain('lt_session');
    expect((await page.request.get(`${d.origin}/api/me`)).status()).toBe(401);
    // The page names the workspace and its provider, in English and Arabic.
    expect(new URL(page.url()).origin).toBe(d.origin);
    await page.getByText('Acme Campaigns').first().waitFor();
    await page.getByText(new URL(idp.issuer).host).first().waitFor();
    await page.getByRole('heading', { name: 'متابعة الدخول الموحّد؟' }).waitFor();
    await d.checkAccessibility(page, 'sso-confirm');

    // Only if the person chooses to go on: the provider, then signed in as whom it signed in.
    await page.getByRole('button', { name: 'Continue to sign in with Acme Campaigns’s provider' }).click();
    await page.locator('input[name="login"]').fill('mallory');
    await page.locator('input[name="password"]').fill('anything');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    const me = await (await page.request.get(`${d.origin}/api/me`)).json();
    expect(me.user.email).toBe(`mallory@${domain}`);
  });

  it('an e-mail without single sign-on gets a clear page in both languages', async () => {
    const page = await d.newPage();
    await page.goto(`${d.origin}/app`);
    await page.getByRole('heading', { name: 'Sign in with SSO' }).waitFor();
    await page.getByLabel('Work e-mail').fill('someone@elsewhere.test');
    await page.getByRole('button', { name: 'Continue with SSO' }).click();
    await page.getByRole('heading', { name: 'Single sign-on failed' }).waitFor();
    await page.getByText('تعذّر الدخول الموحّد').waitFor();
    await d.checkAccessibility(page, 'sso-error-page');
    await page.screenshot({ path: '/tmp/sso-error-page.png' });
  });
});
