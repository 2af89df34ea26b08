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
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WEB_ROOT } from '../../src/modules/dashboard/files.js';
import { issueSetupCode } from '../../src/modules/auth/service.js';
import { onPostgres, startTestApp, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/process.js';

const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOTS = 'test/e2e/__screenshots__';
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 375, height: 740 };
const PERSON = { name: 'Maya Founder', email: 'maya@example.com', password: 'violet-harbour-91-lantern', workspaceName: 'Acme Campaigns' };

const runnable = existsSync(CHROMIUM) && existsSync(`${WEB_ROOT}/index.html`) && !onPostgres;

describe.skipIf(!runnable)('the dashboard in Chromium', () => {
  let t: TestApp;
  let origin: string;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  /** Console messages about the Content-Security-Policy: there must be none. */
  const cspViolations: string[] = [];

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    t = await startTestApp({ env: { BASE_URL: origin } });
    await t.runtime.app.listen({ port, host: '127.0.0.1' });
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
  });

  async function newPage(locale: string, viewport = DESKTOP): Promise<Page> {
    const context = await browser.newContext({ locale, viewport });
    contexts.push(context);
    const page = await context.newPage();
    page.on('console', (m) => {
      if (/content security policy/i.test(m.text())) cspViolations.push(m.text());
    });
    return page;
  }

  /** axe-core at the page's current width and at 375 px: no serious or critical violations. */
  async function checkAccessibility(page: Page, name: string): Promise<void> {
    const size = page.viewportSize() ?? DESKTOP;
    for (const viewport of [size, PHONE]) {
      await page.setViewportSize(viewport);
      // Evaluated through the DevTools protocol, so the page's CSP (no inline script) is kept.
      await page.evaluate(AXE_SOURCE);
      // Strings run in the page (this file is type-checked without the DOM library).
      const violations = await page.evaluate<string[]>(`axe.run().then((r) => r.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => v.id + ': ' + v.help + ' ' + JSON.stringify(v.nodes.map((n) => n.target))))`);
      expect(violations, `${name} at ${viewport.width}px`).toEqual([]);
      await page.screenshot({ path: `${SCREENSHOTS}/dashboard-${name}-${viewport.width}.png`, fullPage: true });
    }
    await page.setViewportSize(size);
  }

  it('first-user setup, sign out, sign in, the overview', async () => {
    const code = await issueSetupCode({ db: t.database.db });
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
      const visit = await t.inject({ url: shortPath, headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36' } });
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
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    expect(overflow).toBeLessThanOrEqual(0);
    expect(await page.evaluate('document.documentElement.dir')).toBe('rtl');
    await checkAccessibility(page, 'overview-ar');
    expect(cspViolations).toEqual([]);
  });
});
