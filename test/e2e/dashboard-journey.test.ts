/**
 * The dashboard's main journey, in one go, on a real server in Debian's Chromium (issue 14,
 * operations.md §10): the first person is made on the setup page (the code the server logs);
 * they create a collection on the collections page and a link in it on the links page, with
 * the keyboard; a visitor opens the short link in a second browser (a real 302 through the
 * server); the click shows on the link's page; an API key made on the keys page records a
 * lead and a sale from outside the browser (POST /api/track/lead and /api/track/sale with the
 * click id the destination received); the overview shows the clicks, leads, sales and revenue.
 * axe-core on every page passed (desktop and 375 px; screenshots dashboard-journey-*.png).
 * Like the other browser files it runs once in CI, in the PGlite pass; with
 * BROWSER_ON_POSTGRES=1 it also runs on PostgreSQL + Redis, in a database of its own (the
 * shared one has users already, so setup would be refused there).
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { issueSetupCode } from '../../src/modules/auth/service.js';
import { onPostgres } from '../helpers/app.js';
import { dropFreshDatabases, freshPostgresUrl } from '../helpers/fresh-database.js';
import { browserRunnable, OWNER, startDashboard, type Dashboard, reloadUntilTotal, total } from './dashboard-harness.js';

// Headless Chromium names itself HeadlessChrome, a known bot whose clicks are kept but never counted.
const VISITOR_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';

/** The focused element's accessible text. */
const focused = (page: Page) =>
  page.evaluate<string>(
    `(() => { const e = document.activeElement; return e ? (e.getAttribute('aria-label') || e.labels?.[0]?.textContent || e.textContent || '').trim() : ''; })()`,
  );

/** Presses Tab until the focused element's text is `name` (the keyboard alone). */
async function tabTo(page: Page, name: string): Promise<void> {
  const seen: string[] = [];
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press('Tab');
    const now = await focused(page);
    if (now === name) return;
    seen.push(now);
  }
  throw new Error(`Tab never reached ${name}: ${seen.join(' | ')}`);
}

describe.skipIf((onPostgres && process.env.BROWSER_ON_POSTGRES !== '1') || !browserRunnable())(
  'the dashboard journey in Chromium: setup → collection and link → a real click → lead and sale → overview',
  () => {
    let d: Dashboard;
    beforeAll(async () => {
      d = await startDashboard(onPostgres ? { DATABASE_URL: await freshPostgresUrl() } : {});
    });
    afterEach(async () => d.closeContexts());
    afterAll(async () => {
      await d?.close();
      await dropFreshDatabases();
    });

    it('from nothing to the first sale, in the browser', async () => {
      const { origin } = d;
      const page = await d.newPage('en-US');
      const nav = page.getByRole('navigation').first();
      /** Navigates by the app's own links and waits until nothing is loading. */
      const go = async (link: string, heading: string) => {
        await page.getByRole('link', { name: link, exact: true }).first().click();
        await page.getByRole('heading', { level: 1, name: heading }).waitFor();
        await expect.poll(() => page.locator('[aria-busy="true"]').count()).toBe(0);
      };

      // 1. The first person, on the setup page (the URL the server logs while nobody has an account).
      const code = await issueSetupCode({ ctx: { db: d.t.database.db, now: new Date() } });
      expect(code, 'a setup code: nobody has an account yet').toBeTruthy();
      await page.goto(`${origin}/app/setup?code=${code}`);
      await page.getByRole('heading', { name: 'Set up Linktrail' }).waitFor();
      await d.checkAccessibility(page, 'journey-setup');
      await page.getByLabel('Your name').focus();
      await page.keyboard.type(OWNER.name);
      await page.keyboard.press('Tab');
      await page.keyboard.type(OWNER.email);
      await page.keyboard.press('Tab');
      await page.keyboard.type(OWNER.password);
      await page.keyboard.press('Tab');
      await page.keyboard.type(OWNER.workspaceName);
      await page.keyboard.press('Enter');
      await nav.getByRole('link', { name: 'Overview', exact: true }).waitFor();
      await page.getByText('No clicks in this range yet').waitFor();
      expect(new URL(page.url()).pathname).toBe('/app');
      await d.checkAccessibility(page, 'journey-overview-empty');

      // 2. A collection on the collections page, with the keyboard.
      await go('Links', 'Links');
      await go('Collections', 'Collections');
      await page.getByText('No collections yet.', { exact: false }).waitFor();
      await tabTo(page, 'New collection');
      await page.keyboard.press('Enter');
      await expect.poll(() => focused(page)).toMatch(/^Name/);
      await page.keyboard.type('Spring launch');
      await page.keyboard.press('Enter');
      await page.getByRole('status').getByText('Created “Spring launch”.').waitFor();
      await d.checkAccessibility(page, 'journey-collections');

      // 3. A link in that collection on the links page, with the keyboard: New link, the
      //    destination, the collection (the only one, chosen), a title, Enter.
      await go('Links', 'Links');
      await page.getByText('No links yet', { exact: false }).waitFor();
      await expect.poll(() => page.locator('#links-filter-collectionId option').count()).toBe(2);
      await tabTo(page, 'New link');
      await page.keyboard.press('Enter');
      await page.getByRole('dialog', { name: 'New link' }).waitFor();
      await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('link-url');
      await page.keyboard.type('https://example.com/spring-sale');
      await page.keyboard.press('Tab');
      expect(await page.evaluate('document.activeElement?.selectedOptions?.[0]?.textContent')).toBe('Spring launch');
      await page.keyboard.press('Tab');
      await page.keyboard.type('Spring sale');
      await page.keyboard.press('Enter');
      const title = page.getByRole('link', { name: 'Spring sale' });
      await title.waitFor();
      expect(await page.getByRole('dialog').count()).toBe(0);
      const shortUrl = ((await page.locator('.links-short bdi').first().textContent()) ?? '').trim();
      expect(new URL(shortUrl).origin).toBe(origin);
      await d.checkAccessibility(page, 'journey-links');

      // 4. A visitor opens the short link in a second browser: a real 302 through the server to
      //    the destination, which receives the click id (ltid). The destination is not reachable
      //    from here: the browser's request for it is what counts.
      const visitor = await d.browser.newContext({ userAgent: VISITOR_UA });
      const tab = await visitor.newPage();
      const redirects: number[] = [];
      let landed: URL | undefined;
      tab.on('response', (r) => {
        if (r.url().startsWith(shortUrl)) redirects.push(r.status());
      });
      tab.on('request', (r) => {
        if (new URL(r.url()).hostname === 'example.com') landed = new URL(r.url());
      });
      await tab.goto(shortUrl).catch(() => undefined);
      await visitor.close();
      expect(redirects).toEqual([302]);
      expect(landed?.pathname).toBe('/spring-sale');
      const clickId = landed!.searchParams.get('ltid');
      expect(clickId).toMatch(/^[0-9a-f-]{36}$/);

      // 5. The link's page (from its row): the click shows once its batch is written.
      await title.click();
      await page.getByRole('heading', { level: 1, name: 'Spring sale' }).waitFor();
      expect(await page.getByRole('link', { name: shortUrl }).count()).toBe(1);
      await reloadUntilTotal(page, 'Clicks', '1');
      await page
        .getByRole('region', { name: 'Devices: Device' })
        .getByRole('cell', { name: /Desktop/ })
        .waitFor();
      await page.getByText('No leads or sales for this link yet').waitFor();
      await d.checkAccessibility(page, 'journey-link');

      // 6. An API key on the keys page, allowed to record conversions only.
      await go('Settings', 'Settings');
      await go('API keys', 'API keys');
      await page.getByRole('button', { name: 'New API key', exact: true }).click();
      await page.getByLabel('Name').fill('Checkout backend');
      await page.getByRole('checkbox', { name: /conversionsWrite Record leads and sales/ }).check();
      await page.getByRole('button', { name: 'Create key' }).click();
      const shown = page.getByRole('textbox', { name: 'Your new API key' });
      await shown.waitFor();
      const key = await shown.inputValue();
      await d.checkAccessibility(page, 'journey-key');
      await page.getByRole('button', { name: 'Done' }).click();

      // 7. The visitor signs up and buys: the shop's backend tells Linktrail, through the API
      //    (from outside the browser, with the key).
      const track = (path: string, body: object) =>
        fetch(`${origin}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const customer = { customerExternalId: 'user-42', customerName: 'Ada Lovelace', customerEmail: 'ada@example.com' };
      const lead = await track('/api/track/lead', { clickId, eventName: 'Sign up', ...customer });
      expect(lead.status, await lead.text()).toBe(200);
      const sale = await track('/api/track/sale', { ...customer, amount: 4900, currency: 'usd' });
      expect(sale.status, await sale.text()).toBe(200);
      // The key records; it reads nothing.
      expect((await fetch(`${origin}/api/links`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(403);

      // 8. The overview: one click, one lead, one sale, $49.00 of revenue (its sales are all in usd); the link at the top.
      await go('Overview', 'Overview');
      await page.getByRole('heading', { name: 'Top links' }).waitFor();
      await page.getByRole('img', { name: 'Clicks, leads and sales per day' }).waitFor();
      expect([await total(page, 'Clicks'), await total(page, 'Leads'), await total(page, 'Sales'), await total(page, 'Revenue')]).toEqual([
        '1',
        '1',
        '1',
        '$49.00',
      ]);
      const row = page.getByRole('row').filter({ hasText: 'Spring sale' });
      // Clicks, visitors, leads, sales, revenue, leads per click, sales per click.
      expect((await row.getByRole('cell').allTextContents()).slice(1)).toEqual(['1', '1', '1', '1', '$49.00', '100%', '100%']);
      await d.checkAccessibility(page, 'journey-overview');
      expect(d.cspViolations).toEqual([]);
    }, 90_000);
  },
);
