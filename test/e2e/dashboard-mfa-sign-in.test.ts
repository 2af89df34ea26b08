/**
 * The sign-in page's second step (operations.md §15, issue 27) in Chromium: a person with
 * two-factor on (turned on through the API) gives the password, then a code of their
 * authenticator app or a recovery code — English and Arabic,
 * 1280 and 375 px; a wrong code is said and the right one signs in.
 */
import { Secret, TOTP } from 'otpauth';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dashboardRunnable, OWNER, PHONE, startDashboard, type Dashboard } from './dashboard-harness.js';

describe.runIf(dashboardRunnable())('signing in with a second factor in the dashboard', () => {
  let d: Dashboard;
  let secret: string;
  let recoveryCodes: string[];

  beforeAll(async () => {
    d = await startDashboard();
    const page = await d.newPage();
    const { headers } = await d.setUpOwner(page);
    const started = await page.request.post(`${d.origin}/api/me/mfa/totp`, { headers, data: { password: OWNER.password } });
    secret = (await started.json()).secret;
    const confirmed = await page.request.post(`${d.origin}/api/me/mfa/totp/confirm`, { headers, data: { code: code(Date.now()) } });
    expect(confirmed.status(), await confirmed.text()).toBe(200);
    recoveryCodes = (await confirmed.json()).recoveryCodes;
    await d.closeContexts();
  });
  afterEach(() => d.closeContexts());
  afterAll(() => d?.close());

  const code = (at: number) => new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) }).generate({ timestamp: at });

  it('asks for the code after the password; a wrong one is said; the right one signs in', async () => {
    const arabic = await d.newPage('ar', PHONE);
    await arabic.goto(`${d.origin}/app`);
    await arabic.getByLabel('البريد الإلكتروني').fill(OWNER.email);
    await arabic.getByLabel('كلمة المرور').fill(OWNER.password);
    await arabic.getByRole('button', { name: 'تسجيل الدخول' }).click();
    await arabic.getByLabel('الرمز').waitFor();
    await d.checkAccessibility(arabic, 'sign-in-second-step-ar');

    const page = await d.newPage();
    await page.goto(`${d.origin}/app`);
    await page.getByLabel('Email').fill(OWNER.email);
    await page.getByLabel('Password').fill(OWNER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Code').fill('000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByText('Wrong code. 4 attempts left before you must enter your password again.').waitFor();
    await d.checkAccessibility(page, 'sign-in-second-step-en');
    // A recovery code (the enrolment may have used this 30-second step's code: each works once).
    await page.getByLabel('Code').fill(recoveryCodes[0]!);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
  });
});
