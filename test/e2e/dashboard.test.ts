/**
 * The dashboard in Chromium on a real server (operations.md §10): the first user is made
 * through the setup page (the setup URL's code), signs out and in again, and lands on the
 * overview; the Arabic pages are right-to-left and fit 375 px without horizontal scrolling.
 * axe-core checks every page at desktop width and at 375 px (no serious or critical
 * violations), and the page's CSP must never be violated. Screenshots go to
 * test/e2e/__screenshots__/dashboard-*.png. Runs once, in the PGlite run (the pages are the
 * same on PostgreSQL), and needs the built dashboard (dist/web, made by npm install/ci);
 * skips itself without /usr/bin/chromium.
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { issueSetupCode } from '../../src/modules/auth/service.js';
import { dashboardRunnable, OWNER as PERSON, PHONE, startDashboard, type Dashboard } from './dashboard-harness.js';

describe.skipIf(!dashboardRunnable())('the dashboard in Chromium', () => {
  let d: Dashboard;
  let t: Dashboard['t'];
  let origin: string;
  let cspViolations: string[];
  beforeAll(async () => {
    d = await startDashboard();
    ({ t, origin, cspViolations } = d);
  });
  afterEach(async () => d.closeContexts());
  afterAll(async () => d?.close());
  const newPage = (locale: string, viewport?: { width: number; height: number }): Promise<Page> => d.newPage(locale, viewport);
  const checkAccessibility = (page: Page, name: string) => d.checkAccessibility(page, name);

  it('first-user setup, sign out, sign in, the overview', async () => {
    const code = await issueSetupCode({ ctx: { db: t.database.db, now: new Date() } });
    expect(code).toBeTruthy();
    const page = await newPage('en-US');

    const root = await page.goto(`${origin}/`);
    expect(page.url()).toBe(`${origin}/app`);
    expect(root?.headers()['content-security-policy']).toContain("script-src 'self'");

    await page.goto(`${origin}/app/setup?code=${code}`);
    await expect.poll(() => page.getByRole('heading', { name: 'Set up Linktrail' }).count()).toBe(1);
    await checkAccessibility(page, 'setup-en');
    await page.getByLabel('Your name').fill(PERSON.name);
    await page.getByLabel('Email').fill(PERSON.email);
    await page.getByLabel('Password').fill(PERSON.password);
    await page.getByLabel('Workspace name').fill(PERSON.workspaceName);
    await page.getByRole('button', { name: 'Create account' }).click();

    const nav = page.getByRole('navigation');
    await nav.getByRole('link', { name: 'Overview' }).waitFor();
    for (const name of ['Overview', 'Links', 'Analytics', 'Conversions', 'Settings']) {
      expect(await nav.getByRole('link', { name, exact: true }).count(), name).toBe(1);
    }
    expect(await page.getByRole('combobox', { name: 'Workspace' }).inputValue()).toBeTruthy();
    await page.getByText('No clicks in this range yet').waitFor();
    await checkAccessibility(page, 'overview-en');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Email').fill(PERSON.email);
    await page.getByLabel('Password').fill('not-the-password-at-all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    // The API's own message, in the page's language.
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toMatch(/\S/);
    await checkAccessibility(page, 'sign-in-en');

    await page.getByLabel('Password').fill(PERSON.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();

    // A link and two clicks, made through the API with the page's own session.
    const me = await (await page.request.get(`${origin}/api/me`)).json();
    const headers = { 'x-workspace-id': me.workspaces[0].id, origin };
    const collection = await page.request.post(`${origin}/api/collections`, { headers, data: [{ name: 'Spring' }] });
    expect(collection.status(), await collection.text()).toBe(201);
    const made = await page.request.post(`${origin}/api/links`, {
      headers,
      data: [{ collectionId: (await collection.json())[0].id, url: 'https://example.com/spring-sale', title: 'Spring sale' }],
    });
    expect(made.status(), await made.text()).toBe(201);
    const shortPath = new URL((await made.json())[0].shortUrl).pathname;
    for (let i = 0; i < 2; i++) {
      const visit = await t.inject({
        url: shortPath,
        headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36' },
      });
      expect(visit.statusCode).toBe(302);
    }
    // Clicks are written in batches, soon after the redirect.
    await expect
      .poll(async () => (await (await page.request.get(`${origin}/api/analytics?groupBy=link`, { headers })).json())[0]?.clicks, { timeout: 20_000 })
      .toBe(2);
    await page.reload();
    await page.getByRole('heading', { name: 'Top links' }).waitFor();
    await page.getByRole('img', { name: 'Clicks, leads and sales per day' }).waitFor();
    expect(await page.getByRole('cell', { name: /Spring sale/ }).count()).toBe(1);
    await checkAccessibility(page, 'overview-data-en');
    expect(cspViolations).toEqual([]);
  });

  it('Arabic: right-to-left, translated navigation, no horizontal overflow at 375 px', async () => {
    const page = await newPage('ar-EG', PHONE);
    await page.goto(`${origin}/app`);
    await page.getByRole('button', { name: 'تسجيل الدخول' }).waitFor();
    expect(await page.evaluate('[document.documentElement.lang, document.documentElement.dir]')).toEqual(['ar', 'rtl']);
    await checkAccessibility(page, 'sign-in-ar');
    await page.getByLabel('البريد الإلكتروني').fill(PERSON.email);
    await page.getByLabel('كلمة المرور').fill(PERSON.password);
    await page.getByRole('button', { name: 'تسجيل الدخول' }).click();
    await page.getByRole('navigation').getByRole('link', { name: 'نظرة عامة' }).waitFor();
    await page.getByRole('heading', { name: 'أكثر الروابط نقرًا' }).waitFor();
    expect(await page.evaluate('document.documentElement.dir')).toBe('rtl');
    await checkAccessibility(page, 'overview-ar');
    expect(cspViolations).toEqual([]);
  });
});
