/**
 * Partner applications in Chromium (operations.md §18 "Applications"): the public page
 * BASE_URL/apply/{slug} in English at 1280 px and in Arabic at 375 px (right to left), axe clean
 * with no horizontal overflow, sends its form and thanks the applicant; the owner's Partner
 * program → Applications lists them with what they wrote, approves one (who is mailed an
 * invitation) and rejects the other, asked first (who is mailed a notice); the page in Arabic at
 * 375 px too. Screenshots: test/e2e/__screenshots__/dashboard-applications-*.png, and each
 * step's under APPLY_SHOTS (a temp directory by default).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.js';
import { startSmtp, type TestSmtp } from '../helpers/smtp.js';
import { dashboardRunnable, OWNER, PHONE, startDashboard, type Dashboard } from './dashboard-harness.js';

const SHOTS = process.env.APPLY_SHOTS ?? mkdtempSync(join(tmpdir(), 'lt-apply-'));

describe.runIf(dashboardRunnable())('partner applications in the browser', () => {
  let d: Dashboard;
  let smtp: TestSmtp;
  let key: string;

  beforeAll(async () => {
    smtp = await startSmtp();
    d = await startDashboard({ SMTP_URL: smtp.url, MAIL_FROM: 'Linktrail <links@lt.test>' });
    const { workspaceId } = await d.setUpOwner(await d.newPage());
    await d.closeContexts();
    key = (await d.t.admin('POST', `/workspaces/${workspaceId}/keys`, { name: 'program', scopes: ['partnersRead', 'partnersWrite', 'programsWrite'] })).json<{
      key: string;
    }>().key;
    const program = await d.t.inject({
      method: 'PUT',
      url: '/api/program',
      headers: bearer(key),
      payload: {
        name: 'Lamp Friends',
        slug: 'lamp-friends',
        landingUrl: 'https://shop.example/',
        currency: 'usd',
        termsUrl: 'https://shop.example/terms',
        applications: { open: true, autoApprove: false },
      },
    });
    expect(program.statusCode, program.body).toBe(200);
    // A partner already in the program: the page shows nothing of them.
    await d.t.inject({ method: 'POST', url: '/api/partners', headers: bearer(key), payload: [{ name: 'Quiet Partner', email: 'quiet@example.net' }] });
  });
  afterEach(() => d.closeContexts());
  afterAll(async () => {
    await d?.close();
    await smtp?.close();
  });

  const shot = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

  async function fill(page: Page, labels: { name: string; email: string; website: string; promotion: string; terms: RegExp }, values: Record<string, string>) {
    await page.getByLabel(labels.name).fill(values.name!);
    await page.getByLabel(labels.email).fill(values.email!);
    await page.getByLabel(labels.website).fill(values.website!);
    await page.getByLabel(labels.promotion).fill(values.promotion!);
    await page.getByRole('checkbox', { name: labels.terms }).check();
  }

  it('the page in English at 1280 px: the program and its terms, the form sent and thanked; a missed checkbox is named', async () => {
    const page = await d.newPage();
    await page.goto(`${d.origin}/apply/lamp-friends`);
    await page.getByRole('heading', { level: 1, name: 'Become a partner of Lamp Friends' }).waitFor();
    expect(await page.evaluate<string>('document.documentElement.lang')).toBe('en');
    expect(await page.getByRole('link', { name: 'terms' }).getAttribute('href')).toBe('https://shop.example/terms');
    expect(await page.content()).not.toContain('Quiet Partner');
    await d.checkAccessibility(page, 'applications-apply-en');
    await shot(page, 'apply-en-1280');
    const labels = {
      name: 'Name',
      email: 'E-mail',
      website: 'Website (optional)',
      promotion: 'How will you promote us? (optional)',
      terms: /I accept the program’s terms/,
    };
    await fill(page, labels, { name: 'Ana Lima', email: 'ana@example.net', website: 'ana.example', promotion: 'A lamp newsletter\nwith 4,000 readers' });
    await page.getByRole('checkbox', { name: labels.terms }).uncheck();
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('alert').getByText('Accept the program’s terms to apply.').waitFor();
    expect(await page.getByLabel('Name').inputValue()).toBe('Ana Lima');
    await shot(page, 'apply-en-error-1280');
    await page.getByRole('checkbox', { name: labels.terms }).check();
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('status').getByText('Your application has been received.').waitFor();
    await d.checkAccessibility(page, 'applications-sent-en');
    await shot(page, 'apply-en-sent-1280');
    expect(d.cspViolations).toEqual([]);
  });

  it('the page in Arabic at 375 px, right to left, from the browser’s language', async () => {
    const page = await d.newPage('ar', PHONE);
    await page.goto(`${d.origin}/apply/lamp-friends`);
    await page.getByRole('heading', { level: 1, name: 'انضمّ إلى شركاء Lamp Friends' }).waitFor();
    expect(await page.evaluate<string>('document.documentElement.dir')).toBe('rtl');
    await d.checkAccessibility(page, 'applications-apply-ar');
    await page.setViewportSize(PHONE);
    await shot(page, 'apply-ar-375');
    await fill(
      page,
      { name: 'الاسم', email: 'البريد الإلكتروني', website: 'الموقع الإلكتروني (اختياري)', promotion: 'كيف ستروّج لنا؟ (اختياري)', terms: /أوافق على/ },
      { name: 'عمر خالد', email: 'omar@example.net', website: 'https://omar.example', promotion: 'قناة يوتيوب عن الإضاءة' },
    );
    await page.getByRole('button', { name: 'تقديم الطلب' }).click();
    await page.getByRole('status').getByText('تسلّمنا طلبك.', { exact: false }).waitFor();
    await shot(page, 'apply-ar-sent-375');
    expect(d.cspViolations).toEqual([]);
  });

  it('the owner’s Applications page lists them, approves one (an invitation mailed) and rejects the other (asked first, a notice mailed)', async () => {
    const owner = await d.newPage();
    await d.signIn(owner, OWNER);
    await d.open(owner, '/program/applications', 'Applications');
    const ana = owner.locator('li.program-application', { hasText: 'Ana Lima' });
    await ana.getByText('https://ana.example/').waitFor();
    await ana.getByText('A lamp newsletter', { exact: false }).waitFor();
    expect(await ana.locator('a').count()).toBe(0);
    await owner.locator('li.program-application', { hasText: 'عمر خالد' }).waitFor();
    expect(await owner.locator('li.program-application').count()).toBe(2);
    await owner.getByText('http://127.0.0.1', { exact: false }).first().waitFor();
    await d.checkAccessibility(owner, 'applications-owner-en');
    await shot(owner, 'owner-applications-en-1280');

    await ana.getByRole('button', { name: 'Approve Ana Lima' }).click();
    await owner.getByRole('status').getByText('\u2068Ana Lima\u2069 approved: an invitation is on its way to them.').waitFor();
    const invitation = await smtp.messageTo('ana@example.net');
    expect(invitation?.text).toMatch(/\/app\/partner\/invite\?token=[\w-]{43}/);

    await owner.getByRole('button', { name: 'Reject عمر خالد' }).click();
    await owner.getByRole('alertdialog').getByRole('button', { name: 'Reject' }).click();
    await owner.getByRole('status').getByText('Application of \u2068عمر خالد\u2069 rejected: they are told by e-mail.').waitFor();
    const notice = await smtp.messageTo('omar@example.net');
    expect(notice?.text).toContain('Your application was not accepted.');
    await owner.getByText('No application waits.', { exact: false }).waitFor();
    await shot(owner, 'owner-applications-done-1280');
    expect(d.cspViolations).toEqual([]);
  });

  it('the Applications page in Arabic at 375 px', async () => {
    const sent = await d.t.inject({
      method: 'POST',
      url: '/api/apply/lamp-friends',
      remoteAddress: '198.51.100.9',
      payload: { name: 'ليلى', email: 'layla@example.net', promotion: 'مدوّنة عن التصميم الداخلي، تُنشر كل أسبوع', acceptTerms: true },
    });
    expect(sent.statusCode, sent.body).toBe(202);
    const owner = await d.newPage('ar', PHONE);
    await d.signInWithApi(owner, OWNER);
    await d.open(owner, '/program/applications', 'الطلبات');
    await owner.locator('li.program-application', { hasText: 'ليلى' }).getByRole('button', { name: 'اعتمد ليلى' }).waitFor();
    expect(await owner.evaluate<string>('document.documentElement.dir')).toBe('rtl');
    await d.checkAccessibility(owner, 'applications-owner-ar');
    await owner.setViewportSize(PHONE);
    await shot(owner, 'owner-applications-ar-375');
  });
});
