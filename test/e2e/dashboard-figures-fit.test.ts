/**
 * No figure is ever cut off: every figures table (the analytics cards, the link page's, the
 * overview's top links) at 1280 and 375 px, in English and Arabic, compared with the period
 * before, with long figures (revenue in three currencies, seven-digit amounts) and long
 * referrer hosts — no table scrolls sideways inside its box, no cell's text overflows it, the
 * page does not scroll sideways. Measured in Chromium; a screenshot of each.
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP as DESKTOP_UA, IP_DE, IP_GB, IPHONE } from '../helpers/visitors.js';
import { within } from '../helpers/wait.js';
import { dashboardRunnable, DESKTOP, PHONE, SCREENSHOTS, startDashboard, type Dashboard } from './dashboard-harness.js';

const REFERRERS = ['https://news.ycombinator-discussions-and-long-threads.example/item', 'https://www.a-very-long-newsletter-name.example/issue/42', ''];

/** What a page shows that does not fit: tables that scroll inside their box, cells whose text overflows. */
const UNFIT = `(() => {
  const shown = (e) => e.getClientRects().length > 0;
  const boxes = [...document.querySelectorAll('.lt-scroll')].filter(shown);
  const scrolls = boxes.filter((b) => b.scrollWidth > b.clientWidth + 1).map((b) => (b.getAttribute('aria-label') || 'table') + ': ' + (b.scrollWidth - b.clientWidth) + ' px');
  const cells = [...document.querySelectorAll('.lt-scroll td, .total dd, .lt-funnel li')].filter(shown).filter((c) => c.scrollWidth > c.clientWidth + 1).map((c) => (c.dataset.label || c.className || c.tagName) + ': ' + c.textContent.trim().slice(0, 40));
  const page = document.documentElement.scrollWidth - document.documentElement.clientWidth;
  return { tables: boxes.length, scrolls, cells, page };
})()`;

describe.skipIf(!dashboardRunnable())('figures fit their tables', () => {
  let d: Dashboard;
  let linkId: string;
  let login: { email: string; password: string };

  beforeAll(async () => {
    d = await startDashboard();
    const page = await d.newPage();
    const owner = await d.setUpOwner(page);
    const { headers } = owner;
    login = { email: 'maya@example.com', password: 'violet-harbour-91-lantern' };
    const made = await page.request.post(`${d.origin}/api/collections`, { headers, data: [{ name: 'Autumn campaign with a long name' }] });
    const collectionId = (await made.json())[0].id as string;
    const links = await page.request.post(`${d.origin}/api/links`, {
      headers,
      data: [{ collectionId, url: 'https://shop.example/autumn', title: 'Autumn sale — every store, every country, all week long' }],
    });
    expect(links.status(), await links.text()).toBe(201);
    const link = (await links.json())[0] as { id: string; shortUrl: string };
    linkId = link.id;
    const clickIds: string[] = [];
    let n = 0;
    for (const ip of [IP_GB, IP_DE]) {
      for (const ua of [DESKTOP_UA, IPHONE]) {
        for (const referer of REFERRERS) {
          const res = await d.t.inject({
            method: 'GET',
            url: new URL(link.shortUrl).pathname,
            remoteAddress: ip,
            headers: { 'user-agent': ua, ...(referer ? { referer } : {}) },
          });
          expect(res.statusCode, res.body).toBe(302);
          clickIds.push(new URL(res.headers.location as string).searchParams.get('ltid')!);
          n++;
        }
      }
    }
    // Leads and sales large enough to be long: seven-digit dollars, yen, three-decimal dinars.
    const sales: [number, string][] = [
      [123_456_789, 'usd'],
      [98_765_432, 'jpy'],
      [12_345_678, 'kwd'],
    ];
    for (const [i, [amount, currency]] of sales.entries()) {
      const customer = { customerExternalId: `cus_${i}`, customerName: `Customer ${i}`, customerEmail: `c${i}@example.com` };
      const lead = await page.request.post(`${d.origin}/api/track/lead`, { headers, data: { clickId: clickIds[i], eventName: 'Sign up', ...customer } });
      expect(lead.status(), await lead.text()).toBeLessThan(300);
      const sale = await page.request.post(`${d.origin}/api/track/sale`, {
        headers,
        data: { clickId: clickIds[i], eventName: 'Purchase', amount, currency, ...customer },
      });
      expect(sale.status(), await sale.text()).toBeLessThan(300);
    }
    // The clicks are written in batches: wait until the analytics count them all.
    const counted = async () =>
      ((await (await page.request.get(`${d.origin}/api/analytics?groupBy=link`, { headers })).json()) as { clicks: number }[])[0]?.clicks === n;
    expect(await within(20_000, counted), `the ${n} clicks counted`).toBe(true);
    await d.closeContexts();
  });
  afterEach(async () => d.closeContexts());
  afterAll(async () => d?.close());

  async function signedIn(locale: string, viewport: { width: number; height: number }): Promise<Page> {
    const page = await d.newPage(locale, viewport);
    const res = await page.request.post(`${d.origin}/api/auth/login`, { headers: { origin: d.origin }, data: login });
    expect(res.status(), await res.text()).toBe(200);
    return page;
  }

  for (const [locale, lang] of [
    ['en-US', 'en'],
    ['ar-EG', 'ar'],
  ] as const) {
    for (const viewport of [DESKTOP, PHONE]) {
      it(`${lang} at ${viewport.width} px: analytics, a link's page and the overview, compared with the period before`, async () => {
        const page = await signedIn(locale, viewport);
        for (const [name, path, tables] of [
          ['analytics', '/app/analytics?compare=previous', 4],
          ['link', `/app/links/${linkId}?compare=previous`, 3],
          ['overview', '/app', 1],
        ] as const) {
          await page.goto(`${d.origin}${path}`);
          // Every table drawn and nothing loading: the figures are the ones measured.
          await expect.poll(() => page.locator('.lt-scroll table').count()).toBeGreaterThanOrEqual(tables);
          await expect.poll(() => page.locator('[aria-busy="true"]').count()).toBe(0);
          const unfit = await page.evaluate<{ tables: number; scrolls: string[]; cells: string[]; page: number }>(UNFIT);
          await page.screenshot({ path: `${SCREENSHOTS}/fit-${name}-${lang}-${viewport.width}.png`, fullPage: true });
          expect({ name, scrolls: unfit.scrolls, cells: unfit.cells, page: unfit.page }).toEqual({ name, scrolls: [], cells: [], page: 0 });
        }
      });
    }
  }
});
