/**
 * The Links list with performance in Chromium (operations.md §14): each row's clicks, leads,
 * sales and revenue for the range equal what real redirects (through the server's redirect
 * route) and track calls made; a heading sorts the list (mouse and keyboard, aria-sort); badges
 * in words (expired, expiring within 7 days, password, device and geo targeting, cloaked), the
 * collection and tags; the short URL is a link; rows are selected and get a tag, move to a
 * collection, are exported and deleted, and a refused bulk write changes nothing and says so;
 * at 375 px every row action is inside the screen, in English and Arabic; axe at both widths;
 * a role without analyticsRead sees the list without figures (never asked for) and a note.
 * Page code runs as strings (this file is type-checked without the DOM library).
 */
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFramableSite } from '../helpers/framable-site.js';
import { dashboardRunnable, OWNER, PHONE, startDashboard, type Dashboard } from './dashboard-harness.js';

const DESKTOP_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';
const DAY = 86_400_000;
/** The owners of the Arabic and the analyticsRead tests' workspaces (each test has its own). */
const NOUR = { name: 'Nour Figures', email: 'nour@example.com', password: 'copper-meadow-45-signal' };
const TARIQ = { name: 'Tariq Lists', email: 'tariq@example.com', password: 'harbour-violet-73-anchor' };
type Made = { id: string; shortUrl: string; title: string; tagIds: string[]; collectionId: string };

describe.skipIf(!dashboardRunnable())('the Links list with performance in Chromium', () => {
  let d: Dashboard;
  let origin: string;
  let headers: Record<string, string>;
  // A cloaked link's destination must be one that may be framed: a local https page.
  let site: Awaited<ReturnType<typeof startFramableSite>>;
  beforeAll(async () => {
    site = await startFramableSite();
    d = await startDashboard({ ALLOW_PRIVATE_DESTINATIONS: 'true' });
    origin = d.origin;
    // The setup's owner and workspace, made once; each test signs in itself.
    ({ headers } = await d.setUpOwner(await d.newPage()));
    await d.closeContexts();
  });
  afterEach(async () => d.closeContexts());
  afterAll(async () => {
    await d?.close();
    await site?.close();
  });

  const rowOf = (page: Page, title: string) => page.locator('.links-table tbody tr').filter({ has: page.getByRole('link', { name: title, exact: true }) });
  const figure = (row: Locator, label: string) => row.locator(`td[data-label="${label}"]`).textContent();
  const titles = (page: Page) => page.locator('.links-table tbody tr a.title').allTextContents();
  /** A call as the page's person, in the setup's workspace unless `h` names another. */
  const api = async (page: Page, method: 'get' | 'post' | 'delete', path: string, data?: unknown, h = headers) => {
    const res = await page.request[method](`${origin}${path}`, { headers: h, data });
    expect(res.status(), await res.text()).toBeLessThan(300);
    return res.json();
  };
  /** A visitor's click through the redirect route; the click id the destination was given. */
  const click = async (link: Made, n: number): Promise<string> => {
    const res = await d.t.inject({
      method: 'GET',
      url: new URL(link.shortUrl).pathname,
      remoteAddress: `198.51.100.${n}`,
      headers: { 'user-agent': DESKTOP_UA },
    });
    expect(res.statusCode, res.body).toBe(302);
    return new URL(String(res.headers.location)).searchParams.get('ltid')!;
  };
  /**
   * The links the owner's test ends with, made through the API in the workspace of `h`: Alpha
   * (Autumn, tag Summer; 2 clicks, a lead and a $49.00 sale) and Delta (Spring, expired); it
   * returns once the list's figures count them.
   */
  const alphaAndDelta = async (page: Page, h: Record<string, string>) => {
    const [spring, autumn] = (await api(page, 'post', '/api/collections', [{ name: 'Spring' }, { name: 'Autumn' }], h)) as { id: string }[];
    const [summer] = (await api(page, 'post', '/api/tags', [{ name: 'Summer' }], h)) as { id: string }[];
    const [alpha] = (await api(
      page,
      'post',
      '/api/links',
      [
        { url: 'https://example.com/alpha', title: 'Alpha', collectionId: autumn!.id, tagIds: [summer!.id] },
        { url: 'https://example.com/delta', title: 'Delta', collectionId: spring!.id, expiresAt: new Date(Date.now() - DAY).toISOString() },
      ],
      h,
    )) as Made[];
    const clickId = await click(alpha!, 10);
    await click(alpha!, 11);
    const customer = { customerExternalId: 'cus_rana', customerName: 'Rana Haddad', customerEmail: 'rana@example.com' };
    await api(page, 'post', '/api/track/lead', { clickId, eventName: 'Sign up', ...customer }, h);
    await api(page, 'post', '/api/track/sale', { clickId, eventName: 'Purchase', amount: 4900, currency: 'usd', ...customer }, h);
    await expect
      .poll(async () => ((await api(page, 'get', `/api/links?withStats=true&id=${alpha!.id}`, undefined, h)) as { stats: object }[])[0]?.stats, {
        timeout: 20_000,
        interval: 500,
      })
      .toMatchObject({ clicks: 2, leads: 1, sales: 1, revenue: { usd: 4900 } });
  };

  it('figures from real clicks and track calls, sorting, badges, bulk tag, move, export, delete; en at 1280 and 375 px', async () => {
    const page = await d.newPage('en-US');
    await d.signInWithApi(page, OWNER);
    const [spring, autumn] = (await api(page, 'post', '/api/collections', [{ name: 'Spring' }, { name: 'Autumn' }])) as { id: string }[];
    const [promo, summer, doomed] = (await api(page, 'post', '/api/tags', [{ name: 'Promo' }, { name: 'Summer' }, { name: 'Doomed' }])) as { id: string }[];
    const now = Date.now();
    const made = (await api(page, 'post', '/api/links', [
      { url: 'https://example.com/alpha', title: 'Alpha', collectionId: spring!.id },
      { url: site.url, title: 'Beta', collectionId: spring!.id, password: 'open-sesame-42', expiresAt: new Date(now + 3 * DAY).toISOString(), cloaked: true },
      {
        url: 'https://example.com/gamma',
        title: 'Gamma',
        collectionId: autumn!.id,
        ios: 'https://apps.example.com/gamma',
        geo: { DE: 'https://example.de/gamma' },
        tagIds: [promo!.id],
      },
      { url: 'https://example.com/delta', title: 'Delta', collectionId: spring!.id, expiresAt: new Date(now - DAY).toISOString() },
    ])) as Made[];
    const [alpha, beta, gamma, delta] = made as [Made, Made, Made, Made];

    // Real redirects: Gamma 5 clicks, Alpha 2; a lead and a $49.00 sale on Alpha's first click.
    for (let i = 1; i <= 5; i++) await click(gamma, i);
    const clickId = await click(alpha, 10);
    await click(alpha, 11);
    const customer = { customerExternalId: 'cus_rana', customerName: 'Rana Haddad', customerEmail: 'rana@example.com' };
    await api(page, 'post', '/api/track/lead', { clickId, eventName: 'Sign up', ...customer });
    await api(page, 'post', '/api/track/sale', { clickId, eventName: 'Purchase', amount: 4900, currency: 'usd', ...customer });

    // The figures show once the clicks' batch is written.
    await page.goto(`${origin}/app/links`);
    await expect
      .poll(
        async () => {
          await page.reload();
          await rowOf(page, 'Gamma').waitFor();
          return [await figure(rowOf(page, 'Gamma'), 'Clicks'), await figure(rowOf(page, 'Alpha'), 'Clicks')];
        },
        { timeout: 20_000, interval: 500 },
      )
      .toEqual(['5', '2']);
    expect(await page.getByLabel('Date range').inputValue()).toBe('30d');
    const a = rowOf(page, 'Alpha');
    expect([await figure(a, 'Leads'), await figure(a, 'Sales'), await figure(a, 'Revenue')]).toEqual(['1', '1', '$49.00']);
    expect([await figure(rowOf(page, 'Beta'), 'Clicks'), await figure(rowOf(page, 'Beta'), 'Revenue')]).toEqual(['0', '—']);

    // Newest first, then by clicks (the most first), then the fewest first from the keyboard.
    expect(await titles(page)).toEqual(['Delta', 'Gamma', 'Beta', 'Alpha']);
    const clicksHeading = page.locator('.links-table th').filter({ hasText: 'Clicks' });
    expect(await clicksHeading.getAttribute('aria-sort')).toBeNull();
    await page.getByRole('button', { name: 'Clicks' }).click();
    await expect.poll(() => titles(page).then((t) => t.slice(0, 2))).toEqual(['Gamma', 'Alpha']);
    expect(await clicksHeading.getAttribute('aria-sort')).toBe('descending');
    await page.getByRole('button', { name: 'Clicks' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => clicksHeading.getAttribute('aria-sort')).toBe('ascending');
    await expect.poll(() => titles(page).then((t) => t.slice(2))).toEqual(['Alpha', 'Gamma']);
    await page.getByRole('button', { name: 'Revenue' }).click();
    await expect.poll(() => titles(page).then((t) => t[0])).toBe('Alpha');
    expect(await page.locator('.links-table th[aria-sort="descending"]').textContent()).toMatch(/Revenue \(USD\)/);

    // Badges in words, the collection, the tags; the short URL opens the short link.
    const badges = async (title: string) => rowOf(page, title).locator('.links-meta > span').allTextContents();
    expect(await badges('Beta')).toEqual(['Expires within 7 days', 'Password', 'Cloaked', 'Collection: Spring']);
    expect(await badges('Gamma')).toEqual(['Device targeting', 'Geo targeting', 'Collection: Autumn', 'Tag: #Promo']);
    expect(await badges('Delta')).toEqual(['Expired', 'Collection: Spring']);
    expect(await badges('Alpha')).toEqual(['Collection: Spring']);
    const short = page.getByRole('link', { name: alpha.shortUrl, exact: true });
    expect([await short.getAttribute('href'), await short.getAttribute('target')]).toEqual([alpha.shortUrl, '_blank']);
    await page.getByRole('button', { name: `Copy ${alpha.shortUrl}` }).waitFor();
    await d.checkAccessibility(page, 'links-stats-en');

    // Select Alpha and Beta: add the tag Summer (Alpha had none, Beta none).
    await page.getByRole('checkbox', { name: 'Select Alpha' }).check();
    await page.getByRole('checkbox', { name: 'Select Beta' }).check();
    const bar = page.getByRole('group', { name: 'Actions on the selected links' });
    await bar.getByText('2 selected').waitFor();
    await bar.getByLabel('Add a tag', { exact: true }).selectOption(summer!.id);
    await bar.getByRole('button', { name: 'Apply: Add a tag' }).click();
    await page.getByText('Tag “Summer” added to 2 links.').waitFor();
    const linksNow = async () => Object.fromEntries(((await api(page, 'get', '/api/links?take=100')) as Made[]).map((l) => [l.title, l]));
    let now1 = await linksNow();
    expect([now1.Alpha!.tagIds, now1.Beta!.tagIds, now1.Gamma!.tagIds]).toEqual([[summer!.id], [summer!.id], [promo!.id]]);
    expect(await bar.count()).toBe(0); // the selection is cleared after a change

    // A refused bulk write (a tag deleted meanwhile) changes nothing, and says why.
    await page.getByRole('checkbox', { name: 'Select Gamma' }).check();
    await page.getByRole('checkbox', { name: 'Select Alpha' }).check();
    await bar.getByLabel('Add a tag', { exact: true }).selectOption(doomed!.id);
    await api(page, 'delete', '/api/tags', [doomed!.id]);
    await bar.getByRole('button', { name: 'Apply: Add a tag' }).click();
    await expect.poll(() => bar.getByRole('alert').textContent()).toMatch(/^Nothing was changed: \S/);
    now1 = await linksNow();
    expect([now1.Alpha!.tagIds, now1.Gamma!.tagIds]).toEqual([[summer!.id], [promo!.id]]);

    // Move Gamma and Alpha to Spring… then Alpha to Autumn.
    await bar.getByLabel('Move to collection', { exact: true }).selectOption(autumn!.id);
    await bar.getByRole('button', { name: 'Apply: Move to collection' }).click();
    await page.getByText('2 links moved to “Autumn”.').waitFor();
    now1 = await linksNow();
    expect([now1.Alpha!.collectionId, now1.Gamma!.collectionId, now1.Beta!.collectionId]).toEqual([autumn!.id, autumn!.id, spring!.id]);

    // Select the whole page, then export the selected rows as CSV.
    await page.getByRole('checkbox', { name: 'Select every link on this page' }).check();
    await bar.getByText('4 selected').waitFor();
    await page.getByRole('checkbox', { name: 'Select Delta' }).uncheck();
    await page.getByRole('checkbox', { name: 'Select Alpha' }).uncheck();
    const [download] = await Promise.all([page.waitForEvent('download'), bar.getByRole('button', { name: 'Export selected (CSV)' }).click()]);
    const records = parse(readFileSync((await download.path())!, 'utf8'), { bom: true }) as string[][];
    expect(records[0]!.slice(0, 4)).toEqual(['id', 'shortUrl', 'url', 'title']);
    expect(
      records
        .slice(1)
        .map((r) => r[3])
        .sort(),
    ).toEqual(['Beta', 'Gamma']);
    // A marketer's file: names beside the ids, and the range's figures (no revenue column: neither sold).
    const header = records[0]!;
    expect(header).toEqual(expect.arrayContaining(['collection', 'collectionId', 'tags', 'tagIds', 'partner', 'clicks', 'leads', 'sales']));
    expect(header.some((c) => c.startsWith('revenue_'))).toBe(false);
    const cell = (title: string, column: string) => records.find((r) => r[3] === title)![header.indexOf(column)];
    expect(['collection', 'tags', 'clicks', 'leads', 'sales'].map((c) => cell('Gamma', c))).toEqual(['Autumn', 'Promo', '5', '0', '0']);
    expect(['collection', 'tags', 'clicks'].map((c) => cell('Beta', c))).toEqual(['Spring', 'Summer', '0']);
    await page.getByText('2 links exported.').waitFor();

    // Delete the selected asks in the page's own dialog (never the browser's): focus on Cancel,
    // Escape and Cancel send nothing; "Delete 2 links" removes Beta and Gamma, in one request.
    const native: string[] = [];
    page.on('dialog', (dialog) => {
      native.push(dialog.message());
      void dialog.dismiss();
    });
    const deletes: string[] = [];
    page.on('request', (r) => r.method() === 'DELETE' && deletes.push(r.url()));
    const question = page.getByRole('alertdialog', { name: 'Delete 2 links?' });
    await bar.getByRole('button', { name: 'Delete selected' }).click();
    await question.getByText('Their short links stop working; their clicks stay in analytics.').waitFor();
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Cancel');
    await d.checkAccessibility(page, 'links-delete-dialog-en');
    await page.keyboard.press('Escape');
    await question.waitFor({ state: 'hidden' });
    // The focus goes back to the button that opened the question (once the dialog has closed).
    await expect.poll(() => page.evaluate('document.activeElement.textContent')).toBe('Delete selected');
    await bar.getByRole('button', { name: 'Delete selected' }).click();
    await question.getByRole('button', { name: 'Cancel' }).click();
    await question.waitFor({ state: 'hidden' });
    expect(deletes).toEqual([]);
    expect([...(await titles(page))].sort()).toEqual(['Alpha', 'Beta', 'Delta', 'Gamma']);
    await bar.getByRole('button', { name: 'Delete selected' }).click();
    await question.getByRole('button', { name: 'Delete 2 links' }).click();
    await page.getByText('2 links deleted.').waitFor();
    expect(deletes).toEqual([`${origin}/api/links`]);
    expect(native).toEqual([]);
    await expect.poll(() => titles(page).then((t) => [...t].sort())).toEqual(['Alpha', 'Delta']);
    expect(Object.keys(await linksNow()).sort()).toEqual(['Alpha', 'Delta']);
    void beta;
    void delta;

    // A phone: rows are cards, every action of every row inside the screen.
    await page.setViewportSize(PHONE);
    await page.getByRole('checkbox', { name: 'Select Alpha' }).check();
    await expectAllInside(page);
    await d.checkAccessibility(page, 'links-stats-selected-en');
    expect(d.cspViolations).toEqual([]);
  });

  it('Arabic at 375 px and 1280 px: the figures, no clipped column, every row action reachable', async () => {
    const own = await d.workspaceOf(NOUR);
    const page = await d.newPage('ar-EG', PHONE);
    await d.signInWithApi(page, NOUR);
    await alphaAndDelta(page, own.headers);
    await page.goto(`${origin}/app/links`);
    await page.getByRole('button', { name: 'النقرات' }).waitFor();
    expect(await page.evaluate('[document.documentElement.lang, document.documentElement.dir]')).toEqual(['ar', 'rtl']);
    await expect.poll(() => figure(rowOf(page, 'Alpha'), 'الإيرادات')).toMatch(/49/);
    expect(await rowOf(page, 'Delta').locator('.links-badge').allTextContents()).toEqual(['منتهي الصلاحية']);
    await page.getByRole('checkbox', { name: 'تحديد Alpha' }).check();
    await page.getByRole('group', { name: 'إجراءات على الروابط المحددة' }).waitFor();
    await expectAllInside(page);
    await d.checkAccessibility(page, 'links-stats-ar');
    // The delete question right-to-left, focus on Cancel; Escape keeps the link.
    await page.getByRole('button', { name: 'حذف المحدد' }).click();
    const question = page.getByRole('alertdialog', { name: /^هل تريد حذف .+ من الروابط؟$/ });
    await question.waitFor();
    expect(await page.evaluate('document.activeElement.textContent')).toBe('إلغاء');
    await d.checkAccessibility(page, 'links-delete-dialog-ar');
    await page.keyboard.press('Escape');
    await question.waitFor({ state: 'hidden' });
    expect(await rowOf(page, 'Alpha').count()).toBe(1);
    // At 1280 px: no cell's content is cut (each fits its cell).
    await page.setViewportSize({ width: 1280, height: 800 });
    const clipped = await page.evaluate<string[]>(
      `[...document.querySelectorAll('.links-table th, .links-table td')].filter((c) => c.scrollWidth > c.clientWidth + 1).map((c) => c.textContent)`,
    );
    expect(clipped).toEqual([]);
    expect(d.cspViolations).toEqual([]);
  });

  it('without analyticsRead: the list without figures, asked for without withStats, and a note saying why', async () => {
    // A workspace of its own with one link, Alpha.
    const own = await d.workspaceOf(TARIQ);
    const page = await d.newPage('en-US');
    await d.signInWithApi(page, TARIQ);
    const [collection] = (await api(page, 'post', '/api/collections', [{ name: 'Spring' }], own.headers)) as { id: string }[];
    await api(page, 'post', '/api/links', [{ url: 'https://example.com/alpha', title: 'Alpha', collectionId: collection!.id }], own.headers);
    // Every role has analyticsRead today; the page is shown a workspace whose role lacks it.
    await page.route('**/api/me', async (route) => {
      const res = await route.fetch();
      const me = (await res.json()) as { workspaces: { scopes: string[] }[] };
      for (const w of me.workspaces) w.scopes = w.scopes.filter((scope) => scope !== 'analyticsRead');
      await route.fulfill({ response: res, json: me });
    });
    const asked: string[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/api/links') asked.push(new URL(r.url()).search);
    });
    await page.goto(`${origin}/app/links`);
    await rowOf(page, 'Alpha').waitFor();
    await page.getByText('Your role may not read analytics', { exact: false }).waitFor();
    expect(await page.locator('.links-table th').allTextContents()).toEqual(['', 'Link', 'Created▼', 'Actions']);
    expect(await page.getByLabel('Date range').count()).toBe(0);
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.filter((q) => q.includes('withStats'))).toEqual([]);
  });
});

/** Every button, checkbox and link of the rows and the bulk bar lies inside the screen's width (nothing needs sideways scrolling). */
async function expectAllInside(page: Page): Promise<void> {
  const outside = await page.evaluate<string[]>(`(() => {
    const width = document.documentElement.clientWidth;
    return [...document.querySelectorAll('.links-table button, .links-table input, .links-table a, .links-bulk button, .links-bulk select')]
      .filter((el) => { const r = el.getBoundingClientRect(); return r.width === 0 || r.left < 0 || r.right > width; })
      .map((el) => el.outerHTML.slice(0, 80));
  })()`);
  expect(outside).toEqual([]);
  expect(await page.locator('.links-table tbody tr').count()).toBeGreaterThan(0);
}
