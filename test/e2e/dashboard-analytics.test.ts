/**
 * The analytics page and a link's page in Chromium on a real server (operations.md §10): a
 * visitor opens a short link in another browser (a real redirect; the short URL is on the
 * test server's origin, BASE_URL), the click shows on the link's page once the click batch
 * is written, a lead and a sale tracked with the click id the destination received (the
 * `ltid` query parameter, CLICK_ID_PARAM's default) show in the link's leads and sales and on
 * the overview; on /analytics a link row filters the whole view (URL and chip) and the time
 * zone is kept in the URL; visitors from two countries on two devices (injected with their
 * addresses and User-Agents): a country row and a device row filter the totals and every
 * card, the filters stay in the URL (reload, Back), a chip removes one; on a link's page the
 * other filters work the same. axe-core at desktop (English) and 375 px (English and Arabic).
 */
import type { Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP, IP_DE, IP_GB, IPHONE } from '../helpers/visitors.js';
import { dashboardRunnable, OWNER, PHONE, startDashboard, type Dashboard, reloadUntilTotal, total } from './dashboard-harness.js';

// Headless Chromium names itself HeadlessChrome, a known bot whose clicks are kept but never counted.
const VISITOR_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';

/** A breakdown card's rows as label → clicks (the row's label, without the button's hidden words, and its clicks cell). */
async function cardRows(page: Page, region: string): Promise<Record<string, string>> {
  const rows = page.getByRole('region', { name: region }).locator('tbody tr');
  const out: Record<string, string> = {};
  for (const row of await rows.all()) {
    const cells = row.getByRole('cell');
    out[((await cells.nth(0).locator('.lt-label').textContent()) ?? '').trim()] = ((await cells.nth(1).textContent()) ?? '').trim();
  }
  return out;
}

const param = (page: Page, name: string) => new URL(page.url()).searchParams.get(name);

/** How long a poll of the page waits: a page that reloads its figures on a busy machine takes more than the default second. */
const PATIENT = { timeout: 15_000 };

/**
 * A breakdown row's filter button, once its card shows `region` (the rows of the tab asked for,
 * not the last tab's, which stay while the next load) and is loading nothing: a row clicked
 * sooner may be another tab's ("Filter by Spring" would match "Filter by Spring sale").
 */
async function rowButton(page: Page, region: string, label: string): Promise<Locator> {
  const table = page.getByRole('region', { name: region, exact: true });
  await table.waitFor();
  await expect.poll(() => page.locator('.lt-result').filter({ has: table }).getAttribute('aria-busy'), PATIENT).not.toBe('true');
  return table.getByRole('button', { name: `Filter by ${label}`, exact: true });
}

describe.skipIf(!dashboardRunnable())('analytics pages in Chromium', () => {
  let d: Dashboard;
  beforeAll(async () => {
    d = await startDashboard();
  });
  afterEach(async () => d.closeContexts());
  afterAll(async () => d?.close());

  it('a real click, a lead and a sale on the link page and the overview; filters, time zone, both languages', async () => {
    const { origin } = d;
    const page = await d.newPage('en-US');
    const { headers } = await d.setUpOwner(page);
    const collection = await page.request.post(`${origin}/api/collections`, { headers, data: [{ name: 'Spring' }] });
    expect(collection.status(), await collection.text()).toBe(201);
    const collectionId = (await collection.json())[0].id as string;
    const partner = await page.request.post(`${origin}/api/partners`, { headers, data: [{ name: 'Nadia Partner' }] });
    expect(partner.status(), await partner.text()).toBe(201);
    const partnerId = (await partner.json())[0].id as string;
    const made = await page.request.post(`${origin}/api/links`, {
      headers,
      data: [{ collectionId, url: 'https://example.com/spring-sale', title: 'Spring sale', partnerId }],
    });
    expect(made.status(), await made.text()).toBe(201);
    const link = (await made.json())[0] as { id: string; shortUrl: string };
    expect(new URL(link.shortUrl).origin).toBe(origin);

    // Nothing yet: the empty state, then the API's own error text for a range it refuses.
    await page.goto(`${origin}/app/analytics`);
    await page.getByText('No clicks in this range yet').waitFor();
    await page.goto(`${origin}/app/analytics?range=custom&start=2026-03-10&end=2026-03-01`);
    const refused = page.getByRole('alert').filter({ hasText: 'Could not load the analytics' });
    await refused.waitFor();
    expect(await refused.textContent()).toMatch(/Could not load the analytics: \S/);

    // A visitor in another browser opens the short link: a real 302 through the server.
    const visitor = await d.browser.newContext({ userAgent: VISITOR_UA });
    let landed: URL | undefined;
    const tab = await visitor.newPage();
    tab.on('request', (r) => {
      if (new URL(r.url()).hostname === 'example.com') landed = new URL(r.url());
    });
    // The destination is not reachable from here: the browser's request for it is what counts.
    await tab.goto(link.shortUrl).catch(() => undefined);
    await visitor.close();
    expect(landed?.pathname).toBe('/spring-sale');
    const clickId = landed!.searchParams.get('ltid');
    expect(clickId).toMatch(/^[0-9a-f-]{36}$/);

    // The link's page: the click shows once its batch is written.
    await page.goto(`${origin}/app/links/${link.id}`);
    await page.getByRole('heading', { name: 'Spring sale' }).waitFor();
    expect(await page.getByRole('link', { name: link.shortUrl }).count()).toBe(1);
    await page.getByText('No leads or sales for this link yet').waitFor();
    await reloadUntilTotal(page, 'Clicks', '1');
    await page.getByRole('img', { name: 'Clicks, leads and sales per day' }).waitFor();
    await page
      .getByRole('region', { name: 'Devices: Device' })
      .getByRole('cell', { name: /Desktop/ })
      .waitFor();

    // A lead and a sale with the click id, through the API with the page's session.
    const customer = { customerExternalId: 'cus_rana', customerName: 'Rana Haddad', customerEmail: 'rana@example.com' };
    const lead = await page.request.post(`${origin}/api/track/lead`, { headers, data: { clickId, eventName: 'Sign up', ...customer } });
    expect(lead.status(), await lead.text()).toBeLessThan(300);
    const sale = await page.request.post(`${origin}/api/track/sale`, {
      headers,
      data: { clickId, eventName: 'Purchase', amount: 4900, currency: 'usd', ...customer },
    });
    expect(sale.status(), await sale.text()).toBeLessThan(300);

    // The events name their customer: no request per customer.
    const asked: string[] = [];
    page.on('request', (r) => asked.push(new URL(r.url()).pathname));
    await page.reload();
    const events = page.getByRole('region', { name: 'Leads and sales of this link, newest first' });
    await events.waitFor();
    const rows = events.getByRole('row');
    await expect.poll(() => rows.count(), PATIENT).toBe(3); // the header and two events
    expect(asked).not.toContain('/api/customers');
    expect(await rows.nth(1).textContent()).toMatch(/Sale.*Purchase.*Rana Haddad.*cus_rana.*\$49\.00/);
    expect(await rows.nth(2).textContent()).toMatch(/Lead.*Sign up.*Rana Haddad/);
    await expect.poll(() => total(page, 'Leads'), PATIENT).toBe('1');
    expect(await total(page, 'Sales')).toBe('1');
    expect(await total(page, 'Revenue')).toBe('$49.00');
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    await page.getByRole('button', { name: 'Copy the short URL' }).click();
    await page.getByRole('status').filter({ hasText: 'Copied to the clipboard.' }).waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(link.shortUrl);
    await page.getByText('Show the chart as a table').click();
    await d.checkAccessibility(page, 'link-en');

    // The overview counts them too.
    await page.goto(`${origin}/app`);
    await page.getByRole('heading', { name: 'Top links' }).waitFor();
    expect([await total(page, 'Clicks'), await total(page, 'Leads'), await total(page, 'Sales')]).toEqual(['1', '1', '1']);
    // Revenue is money with its currency's symbol…
    await expect.poll(() => total(page, 'Revenue'), PATIENT).toBe('$49.00');
    // … and, once the sales are in two currencies, one total per currency: never one sum.
    const euros = await page.request.post(`${origin}/api/track/sale`, { headers, data: { eventName: 'Refill', amount: 1000, currency: 'eur', ...customer } });
    expect(euros.status(), await euros.text()).toBeLessThan(300);
    await page.reload();
    await page.getByRole('heading', { name: 'Top links' }).waitFor();
    expect(await total(page, 'Revenue')).toBe('€10.00 · $49.00');
    expect(await page.getByText('currencies are not converted').count()).toBe(0);
    await d.checkAccessibility(page, 'overview-en');

    // Analytics: the same totals per currency; a link row filters the whole view; the chip removes the filter.
    await page.goto(`${origin}/app/analytics`);
    await expect.poll(() => total(page, 'Revenue'), PATIENT).toBe('€10.00 · $49.00');
    await (await rowButton(page, 'Links: Link', 'Spring sale')).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('linkId'), PATIENT).toBe(link.id);
    const chip = page.getByRole('button', { name: 'Remove filter Link: Spring sale' });
    await chip.waitFor();
    await expect.poll(() => total(page, 'Clicks'), PATIENT).toBe('1');
    // Every row is a filter, an unknown country too.
    await page.getByRole('region', { name: 'Locations: Country' }).getByRole('button', { name: 'Filter by Unknown' }).waitFor();
    // Another breakdown of the same card, kept in the URL.
    await page.getByRole('group', { name: 'Devices: Break down by' }).getByRole('button', { name: 'Browser' }).click();
    await page
      .getByRole('region', { name: 'Devices: Browser' })
      .getByRole('cell', { name: /Chrome/ })
      .waitFor();
    expect(new URL(page.url()).searchParams.getAll('by')).toEqual(['device:browser']);

    // The time zone: sent to the API and kept in the URL, the filter stays.
    await page.getByRole('combobox', { name: 'Time zone' }).fill('tokyo');
    await page.getByRole('option', { name: /Asia\/Tokyo/ }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('tz'), PATIENT).toBe('Asia/Tokyo');
    await expect.poll(() => total(page, 'Clicks'), PATIENT).toBe('1');
    await page.reload();
    expect(await page.getByLabel('Time zone').inputValue()).toBe('Asia/Tokyo');
    await chip.waitFor();
    await d.checkAccessibility(page, 'analytics-en');
    // A partner row adds the partner filter: two chips, and a button that clears both.
    await page.getByRole('group', { name: 'Links: Break down by' }).getByRole('button', { name: 'Partner' }).click();
    await (await rowButton(page, 'Links: Partner', 'Nadia Partner')).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('partnerId'), PATIENT).toBe(partnerId);
    await page.getByRole('button', { name: 'Remove filter Partner: Nadia Partner' }).waitFor();
    await page.getByRole('button', { name: 'Clear all filters' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('linkId'), PATIENT).toBe(null);
    expect(new URL(page.url()).searchParams.get('partnerId')).toBe(null);
    expect(await chip.count()).toBe(0);
    // Back brings the filters back.
    await page.goBack();
    await chip.waitFor();
    await chip.click();
    await page.getByRole('button', { name: 'Remove filter Partner: Nadia Partner' }).click();
    await expect.poll(() => page.getByRole('group', { name: 'Active filters' }).count(), PATIENT).toBe(0);
    // A range of the hours of the last day.
    await page.getByLabel('Date range').selectOption('24h');
    await page.getByRole('img', { name: 'Clicks, leads and sales per hour' }).waitFor();
    expect(new URL(page.url()).searchParams.get('range')).toBe('24h');
    // Custom dates: one day is shown by the hour, a long span by the month.
    await page.getByLabel('Date range').selectOption('custom');
    await expect.poll(() => new URL(page.url()).searchParams.get('range'), PATIENT).toBe('custom');
    const end = new URL(page.url()).searchParams.get('end')!;
    await page.getByLabel('Start date').fill(end);
    await expect.poll(() => new URL(page.url()).searchParams.get('start'), PATIENT).toBe(end);
    await page.getByRole('img', { name: 'Clicks, leads and sales per hour' }).waitFor();
    await expect.poll(() => total(page, 'Clicks'), PATIENT).toBe('1');
    await page.getByLabel('Start date').fill(new Date(Date.parse(end) - 200 * 86_400_000).toISOString().slice(0, 10));
    await page.getByRole('img', { name: 'Clicks, leads and sales per month' }).waitFor();

    // Visitors from two countries on two devices: GB desktop ×2, GB phone, DE desktop, DE phone
    // (and the real visit above: unknown country, desktop).
    for (const [ip, ua] of [
      [IP_GB, DESKTOP],
      [IP_GB, DESKTOP],
      [IP_GB, IPHONE],
      [IP_DE, DESKTOP],
      [IP_DE, IPHONE],
    ] as const) {
      const res = await d.t.inject({ method: 'GET', url: new URL(link.shortUrl).pathname, remoteAddress: ip, headers: { 'user-agent': ua } });
      expect(res.statusCode, res.body).toBe(302);
    }
    await page.goto(`${origin}/app/analytics`);
    await expect
      .poll(
        async () => {
          await page.reload();
          await page.locator('dl.totals').first().waitFor();
          return total(page, 'Clicks');
        },
        { timeout: 20_000, interval: 500 },
      )
      .toBe('6');
    // A country row: the totals and every card count only that country's clicks.
    await (await rowButton(page, 'Locations: Country', 'United Kingdom')).click();
    await expect.poll(() => param(page, 'country'), PATIENT).toBe('GB');
    const gbChip = page.getByRole('button', { name: 'Remove filter Country: United Kingdom' });
    await gbChip.waitFor();
    await expect.poll(() => total(page, 'Clicks'), PATIENT).toBe('3');
    await expect.poll(() => cardRows(page, 'Devices: Device'), PATIENT).toEqual({ Desktop: '2', Mobile: '1' });
    await expect.poll(() => cardRows(page, 'Locations: Country'), PATIENT).toEqual({ 'United Kingdom': '3' });
    // The row filtered by is no button any more; a device row adds its filter (both apply).
    expect(await page.getByRole('button', { name: 'Filter by United Kingdom' }).count()).toBe(0);
    // With the keyboard: the focus moves to the new filter's chip.
    await (await rowButton(page, 'Devices: Device', 'Mobile')).press('Enter');
    await expect.poll(() => param(page, 'device'), PATIENT).toBe('mobile');
    expect(param(page, 'country')).toBe('GB');
    const mobileChip = page.getByRole('button', { name: 'Remove filter Device: Mobile' });
    await mobileChip.waitFor();
    await expect.poll(() => page.evaluate<string | null>("document.activeElement.getAttribute('aria-label')"), PATIENT).toBe('Remove filter Device: Mobile');
    await expect.poll(() => total(page, 'Clicks'), PATIENT).toBe('1');
    await expect.poll(() => cardRows(page, 'Devices: Device'), PATIENT).toEqual({ Mobile: '1' });
    // Removing the country chip keeps the device filter: both countries' phones.
    await gbChip.click();
    await expect.poll(() => param(page, 'country'), PATIENT).toBe(null);
    await expect.poll(() => total(page, 'Clicks'), PATIENT).toBe('2');
    await expect.poll(() => cardRows(page, 'Locations: Country'), PATIENT).toEqual({ Germany: '1', 'United Kingdom': '1' });
    // Kept by a reload; Back brings the country back.
    await page.reload();
    await mobileChip.waitFor();
    await expect.poll(() => total(page, 'Clicks'), PATIENT).toBe('2');
    await page.goBack();
    await gbChip.waitFor();
    await expect.poll(() => total(page, 'Clicks'), PATIENT).toBe('1');
    // A collection row: its name on the chip, asked of the API again after a reload.
    await page.getByRole('group', { name: 'Links: Break down by' }).getByRole('button', { name: 'Collection' }).click();
    await (await rowButton(page, 'Links: Collection', 'Spring')).click();
    await expect.poll(() => param(page, 'collectionId'), PATIENT).toBe(collectionId);
    await page.reload();
    await page.getByRole('button', { name: 'Remove filter Collection: Spring' }).waitFor();
    await expect.poll(() => total(page, 'Clicks'), PATIENT).toBe('1');
    expect(await page.getByRole('group', { name: 'Active filters' }).getByRole('button').count()).toBe(4); // three chips and Clear all
    await d.checkAccessibility(page, 'analytics-filters-en');

    // A link's page: its link is fixed, a country row filters the rest of the page the same way.
    await page.goto(`${origin}/app/links/${link.id}`);
    await (await rowButton(page, 'Locations: Country', 'Germany')).click();
    await expect.poll(() => param(page, 'country'), PATIENT).toBe('DE');
    expect(param(page, 'linkId')).toBe(null);
    await page.getByRole('button', { name: 'Remove filter Country: Germany' }).waitFor();
    await expect.poll(() => total(page, 'Clicks'), PATIENT).toBe('2');
    await expect.poll(() => cardRows(page, 'Devices: Device'), PATIENT).toEqual({ Desktop: '1', Mobile: '1' });

    // Arabic at 375 px: right to left, translated, no horizontal overflow.
    const ar = await d.newPage('ar-EG', PHONE);
    await ar.goto(`${origin}/app`);
    await ar.getByLabel('البريد الإلكتروني').fill(OWNER.email);
    await ar.getByLabel('كلمة المرور').fill(OWNER.password);
    await ar.getByRole('button', { name: 'تسجيل الدخول' }).click();
    await ar.getByRole('navigation').first().waitFor();
    // The overview's revenue in Arabic: one total per currency, each written by Intl with its symbol.
    const arRevenue = await ar.evaluate<string>(
      "[['eur', 10], ['usd', 49]].map(([c, n]) => new Intl.NumberFormat('ar', { style: 'currency', currency: c }).format(n)).join(' · ')",
    );
    expect(arRevenue).toMatch(/€.* · .*US\$/);
    // The symbol with Latin letters (US$) is isolated left to right so that it reads as written.
    await expect.poll(async () => (await total(ar, 'الإيرادات')).replace(/[\u2066\u2069]/g, ''), PATIENT).toBe(arRevenue);
    expect(await total(ar, 'الإيرادات')).toContain('\u2066US$\u2069');
    await d.checkAccessibility(ar, 'overview-ar');
    await ar.goto(`${origin}/app/analytics?linkId=${link.id}&country=DE&device=mobile`);
    await ar.getByRole('button', { name: 'إزالة عامل التصفية الرابط: Spring sale' }).waitFor();
    // The country named by Intl in Arabic, the device in the page's words.
    const germany = await ar.evaluate<string>("new Intl.DisplayNames(['ar'], { type: 'region' }).of('DE')");
    await ar.getByRole('button', { name: `إزالة عامل التصفية البلد: ${germany}` }).waitFor();
    await ar.getByRole('button', { name: 'إزالة عامل التصفية الجهاز: هاتف محمول' }).waitFor();
    await ar.getByRole('button', { name: 'إزالة كل عوامل التصفية' }).waitFor();
    await ar.getByRole('heading', { name: 'الأجهزة' }).waitFor();
    // Written by Intl for Arabic (this Chromium's ICU may use Latin or Arabic-Indic digits).
    expect(await total(ar, 'النقرات')).toBe(await ar.evaluate<string>("new Intl.NumberFormat('ar').format(1)"));
    expect(await ar.evaluate('document.documentElement.dir')).toBe('rtl');
    await d.checkAccessibility(ar, 'analytics-ar');
    await ar.goto(`${origin}/app/links/${link.id}?country=DE`);
    await ar.getByRole('button', { name: `إزالة عامل التصفية البلد: ${germany}` }).waitFor();
    await ar.getByRole('heading', { name: 'العملاء المحتملون والمبيعات' }).waitFor();
    await ar.getByRole('region', { name: 'العملاء المحتملون والمبيعات لهذا الرابط، الأحدث أولًا' }).waitFor();
    await d.checkAccessibility(ar, 'link-ar');
    expect(d.cspViolations).toEqual([]);
  }, 180_000); // one long journey: over 90 s on a shared, busy 2-core machine
});
