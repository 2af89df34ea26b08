/**
 * Single sign-on in Chromium (operations.md §15): the owner sets the provider in Settings →
 * Single sign-on (a real OpenID provider, test/helpers/oidc-provider.ts), sees the domain's TXT
 * record and Verify; the operator vouches for the domain; then a fresh browser signs in with
 * "Sign in with SSO" through the provider's own login and consent pages, and lands signed in.
 * English and Arabic, axe at 1280 and 375 px.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startProvider, type TestProvider } from '../helpers/oidc-provider.js';
import { dashboardRunnable, startDashboard, type Dashboard } from './dashboard-harness.js';

describe.runIf(dashboardRunnable)('single sign-on in the dashboard', () => {
  let d: Dashboard;
  let idp: TestProvider;
  let workspaceId: string;
  const domain = 'corp-sso.test';

  beforeAll(async () => {
    d = await startDashboard({ SSO_ALLOWED_CIDRS: '127.0.0.1/32' });
    idp = await startProvider({ redirectUri: `${d.origin}/api/auth/sso/callback` });
    idp.accounts.set('sam', { email: `sam@${domain}`, email_verified: true, name: 'Sam Example' });
    const page = await d.newPage();
    ({ workspaceId } = await d.setUpOwner(page));
    await d.closeContexts();
  });
  afterEach(() => d.closeContexts());
  afterAll(async () => {
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
    await page.getByText(/TXT record|DNS lookup/).first().waitFor();
    await d.checkAccessibility(page, 'sso-settings-en');
    // The secret never comes back to the page.
    expect(await page.content()).not.toContain(idp.clientSecret);

    expect((await d.t.admin('POST', `/workspaces/${workspaceId}/sso/domains/${domain}/verify`)).statusCode).toBe(200);
    const arabic = await d.newPage('ar');
    // Signed in through the API (the context's cookies are the page's).
    const login = await arabic.request.post(`${d.origin}/api/auth/login`, { headers: { origin: d.origin }, data: { email: 'maya@example.com', password: 'violet-harbour-91-lantern' } });
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
