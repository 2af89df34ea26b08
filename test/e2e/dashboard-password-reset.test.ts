/**
 * Password reset in the dashboard (operations.md §15, issue 27), in Chromium against a real SMTP
 * server: "Forgot your password?" on the sign-in page, the same message whatever the address,
 * the mailed link's page, and signing in with the new password — in English and Arabic, at 1280
 * and 375 px.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSmtp, type TestSmtp } from '../helpers/smtp.js';
import { dashboardRunnable, OWNER, PHONE, startDashboard, type Dashboard } from './dashboard-harness.js';

describe.runIf(dashboardRunnable())('password reset in the dashboard', () => {
  let d: Dashboard;
  let smtp: TestSmtp;
  const NEW_PASSWORD = 'juniper-compass-84-tide';

  beforeAll(async () => {
    smtp = await startSmtp();
    d = await startDashboard({ SMTP_URL: smtp.url, MAIL_FROM: 'Linktrail <links@lt.test>' });
    await d.setUpOwner(await d.newPage());
    await d.closeContexts();
  });
  afterEach(() => d.closeContexts());
  afterAll(async () => {
    await d?.close();
    await smtp?.close();
  });

  it('asks for a link from the sign-in page, sets a new password with it, and signs in with that', async () => {
    const page = await d.newPage();
    await page.goto(`${d.origin}/app`);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
    await d.checkAccessibility(page, 'forgot-password-en');
    await page.getByLabel('Email').fill(OWNER.email);
    await page.getByRole('button', { name: 'Mail me a link' }).click();
    const sentText = 'If an account uses this address, a link is on its way. It works once, for one hour. Check your spam folder if it does not arrive.';
    await page.getByText(sentText).waitFor();

    // An unknown address reads the same.
    const other = await d.newPage();
    await other.goto(`${d.origin}/app/forgot-password`);
    await other.getByLabel('Email').fill('nobody@example.com');
    await other.getByRole('button', { name: 'Mail me a link' }).click();
    await other.getByText(sentText).waitFor();

    const mail = await smtp.messageTo(OWNER.email);
    const link = /https?:\/\/\S+\/app\/reset-password\?token=[\w-]+/.exec(mail!.text ?? '')![0];
    const arabic = await d.newPage('ar', PHONE);
    await arabic.goto(link);
    await arabic.getByRole('heading', { name: 'اختر كلمة مرور جديدة' }).waitFor();
    await d.checkAccessibility(arabic, 'reset-password-ar');

    const reset = await d.newPage();
    await reset.goto(link);
    await reset.getByLabel('New password').fill(NEW_PASSWORD);
    await reset.getByRole('button', { name: 'Set the new password' }).click();
    await reset.getByText('Your password is changed and every session of your account has ended.', { exact: false }).waitFor();
    await d.checkAccessibility(reset, 'reset-password-done-en');
    await reset.getByRole('link', { name: 'Sign in' }).click();
    await d.signIn(reset, { ...OWNER, password: NEW_PASSWORD });
    await reset.getByRole('navigation', { name: 'Main' }).waitFor();

    // The link was used: opened again, it is refused with the reason.
    const again = await d.newPage();
    await again.goto(link);
    await again.getByLabel('New password').fill('another-long-passphrase-5');
    await again.getByRole('button', { name: 'Set the new password' }).click();
    await again.getByText(/is not a valid reset link/).waitFor();
    expect(smtp.received.filter((m) => JSON.stringify(m.to).includes('nobody@example.com'))).toHaveLength(0);
  });
});
