/**
 * Comparison, funnel and reports on the analytics pages in Chromium (operations.md §14): clicks
 * made at chosen times (the app's clock) fall in this week and the week before; with "Compare
 * with: previous period" (kept in the URL) every total shows its change and the earlier figure
 * ("—" when the earlier figure is 0), the chart draws the earlier series, breakdown rows show
 * their change; the funnel gives the conversion rates; the CSV downloaded from the page parses
 * to the API's own groups, with the range, filters and comparison named in its first records;
 * print media hides the navigation and controls and the page fits A4 portrait, in English and
 * Arabic; page.pdf() makes a PDF. Arabic at 375 px: long values and revenue columns are not
 * clipped. axe-core at desktop and 375 px.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildMmdb } from '../helpers/mmdb.js';
import { DESKTOP as DESKTOP_UA, IP_DE, IP_GB, IPHONE } from '../helpers/visitors.js';
import { dashboardRunnable, DESKTOP, OWNER, PHONE, SCREENSHOTS, startDashboard, type Dashboard } from './dashboard-harness.js';

const DAY = 86_400_000;
let pinned: number | undefined;

interface Group {
  key: string;
  clicks: number;
  visitors: number;
  leads: number;
  sales: number;
  revenue: Record<string, number>;
  previous?: { clicks: number; leads: number; sales: number; revenue: Record<string, number> };
}

/** A total's own figure and its change line (the first dl.totals of the page). */
async function totalParts(page: Page, name: string): Promise<{ now: string; delta: string }> {
  const dd = page
    .locator('dl.totals')
    .first()
    .locator('.total')
    .filter({ has: page.getByText(name, { exact: true }) })
    .locator('dd');
  const delta = dd.locator('.lt-delta');
  return {
    now: ((await dd.locator('.lt-now').textContent()) ?? '').trim(),
    delta: (await delta.count()) ? ((await delta.first().textContent()) ?? '').replace(/\s+/g, ' ').trim() : '',
  };
}

/** Cells whose content is wider than the cell (a clipped or overflowing column), as text; a heading row kept for screen readers only (a table collapsed to cards) aside. */
function clippedCells(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`[...document.querySelectorAll('.lt-breakdown th, .lt-breakdown td, dl.totals dd, .lt-funnel li')]
    .filter((el) => el.scrollWidth > el.clientWidth + 1 && !(el.closest('thead') && el.closest('thead').clientWidth <= 1))
    .map((el) => el.textContent.slice(0, 60))`);
}

describe.skipIf(!dashboardRunnable())('comparison, funnel and reports in Chromium', () => {
  let d: Dashboard;
  let dir: string;
  beforeAll(async () => {
    // Region and city from trusted edge headers (as Cloudflare's cf-region and cf-ipcity), and a city database whose licence asks for a credit.
    dir = mkdtempSync(join(tmpdir(), 'lt-city-'));
    const cityDb = join(dir, 'city.mmdb');
    writeFileSync(
      cityDb,
      buildMmdb([{ cidr: '81.2.69.0/24', record: { country: { iso_code: 'GB' }, city: { names: { en: 'London' } } } }], {
        databaseType: 'DBIP-City-Lite',
        description: 'dbip.com IP to City Lite',
      }),
    );
    d = await startDashboard(
      { REGION_HEADER: 'x-edge-region', CITY_HEADER: 'x-edge-city', GEOIP_CITY_DB: cityDb },
      { clock: () => new Date(pinned ?? Date.now()) },
    );
  });
  afterEach(async () => d.closeContexts());
  afterAll(async () => {
    await d?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('compares with the previous week, shows the funnel, exports the view as CSV and prints it', async () => {
    const { origin } = d;
    const page = await d.newPage('en-US');
    const { headers } = await d.setUpOwner(page);
    const longCampaign = 'spring-launch-with-an-unusually-long-campaign-name-that-must-wrap-inside-its-card-2026';
    const longCity = 'Llanfairpwllgwyngyllgogerychwyrndrobwllllantysiliogogogoch';
    const collection = await page.request.post(`${origin}/api/collections`, { headers, data: [{ name: 'Spring' }] });
    expect(collection.status(), await collection.text()).toBe(201);
    const collectionId = (await collection.json())[0].id as string;
    const made = await page.request.post(`${origin}/api/links`, {
      headers,
      data: [
        { collectionId, url: 'https://example.com/spring', title: 'Spring sale' },
        { collectionId, url: `https://example.com/=launch?utm_source=newsletter&utm_campaign=${longCampaign}`, title: '=cmd|calc' },
      ],
    });
    expect(made.status(), await made.text()).toBe(201);
    const [spring, launch] = (await made.json()) as { id: string; shortUrl: string }[];

    // The week before: 2 clicks from the UK. This week: 1 from the UK, 3 from Germany (one on a phone), 1 from the UK on the long campaign.
    const PLACES: Record<string, [string, string]> = { [IP_GB]: ['England', 'London'], [IP_DE]: ['Bavaria', 'Munich'] };
    const click = async (link: { shortUrl: string }, ip: string, ua: string, at?: number, city = PLACES[ip]![1]) => {
      pinned = at;
      try {
        const place = { 'x-edge-region': PLACES[ip]![0], 'x-edge-city': city };
        const res = await d.t.inject({ method: 'GET', url: new URL(link.shortUrl).pathname, remoteAddress: ip, headers: { 'user-agent': ua, ...place } });
        expect(res.statusCode, res.body).toBe(302);
        return new URL(res.headers.location as string).searchParams.get('ltid')!;
      } finally {
        pinned = undefined;
      }
    };
    const earlier = Date.now() - 9 * DAY;
    await click(spring!, IP_GB, DESKTOP_UA, earlier);
    await click(spring!, IP_GB, DESKTOP_UA, earlier + 60_000);
    const clickId = await click(spring!, IP_GB, DESKTOP_UA);
    await click(spring!, IP_DE, DESKTOP_UA);
    await click(spring!, IP_DE, DESKTOP_UA);
    await click(spring!, IP_DE, IPHONE);
    await click(launch!, IP_GB, DESKTOP_UA, undefined, longCity);
    const customer = { customerExternalId: 'cus_rana', customerName: 'Rana Haddad' };
    for (const [kind, data] of [
      ['lead', { clickId, eventName: 'Sign up', ...customer }],
      ['sale', { clickId, eventName: 'Purchase', amount: 4900, currency: 'usd', ...customer }],
      ['sale', { clickId, eventName: 'Refill', amount: 1000, currency: 'eur', ...customer }],
    ] as const) {
      const res = await page.request.post(`${origin}/api/track/${kind}`, { headers, data });
      expect(res.status(), await res.text()).toBeLessThan(300);
    }
    // The clicks are written by the background writer: wait for all seven.
    const api = async (query: string) => (await (await page.request.get(`${origin}/api/analytics?${query}`, { headers })).json()) as Group[];
    const start = new Date(Date.now() - 20 * DAY).toISOString().slice(0, 10);
    await expect.poll(async () => (await api(`groupBy=link&startDate=${start}`)).reduce((n, g) => n + g.clicks, 0), { timeout: 20_000 }).toBe(7);

    // The comparison is chosen on the page and kept in the URL.
    await d.open(page, '/analytics?range=7d', 'Analytics');
    await page.getByLabel('Compare with').selectOption('previous');
    await expect.poll(() => new URL(page.url()).searchParams.get('compare')).toBe('previous');
    await expect.poll(() => totalParts(page, 'Clicks')).toEqual({ now: '5', delta: '▲ Up +150% (was 2)' });
    // Nothing in the earlier week: a dash, no percentage of nothing.
    expect(await totalParts(page, 'Leads')).toEqual({ now: '1', delta: '— No change to show (nothing in the earlier period) (was 0)' });
    expect((await totalParts(page, 'Revenue')).now).toBe('€10.00 · $49.00');
    // Visitors beside clicks: the API's visitor-days of the week.
    const week = await api(`groupBy=timeseries&startDate=${new Date(Date.now() - 6 * DAY).toISOString().slice(0, 10)}&timezone=UTC&compare=previous`);
    const visitors = week.reduce((n, g) => n + g.visitors, 0);
    expect(visitors).toBeGreaterThan(0);
    expect((await totalParts(page, 'Visitors')).now).toBe(String(visitors));
    // The chart draws the earlier series too (uPlot's legend names them).
    // Off the chart, its legend gives each series' total for the period.
    const legend = (name: string) => page.locator('.u-legend tr', { hasText: name }).locator('.u-value').textContent();
    expect(await legend('Clicks (earlier)')).toBe('2');
    expect(await legend('Leads (earlier)')).toBe('0');
    // A breakdown row shows its change: the UK 2 then 2, Germany new.
    const country = page.getByRole('region', { name: 'Locations: Country' });
    const gb = country.getByRole('row').filter({ hasText: 'United Kingdom' });
    expect((await gb.getByRole('cell').nth(1).textContent())?.replace(/\s+/g, ' ')).toBe('2= No change 0% (was 2)');
    const de = country.getByRole('row').filter({ hasText: 'Germany' });
    expect((await de.getByRole('cell').nth(1).textContent())?.replace(/\s+/g, ' ')).toBe('3— No change to show (nothing in the earlier period) (was 0)');
    // The funnel: clicks → leads → sales with the rates.
    const funnel = page.getByRole('list', { name: 'Clicks to leads to sales, with the conversion rates' });
    expect((await funnel.locator('[data-step="leads"]').textContent())?.replace(/\s+/g, ' ')).toBe('Leads120% of clicks');
    // Two sales of one lead: the share stays at 100 % and a note says why.
    expect((await funnel.locator('[data-step="sales"]').textContent())?.replace(/\s+/g, ' ')).toBe('Sales2100% of leads · 40% of clicks');
    await page.getByText('More sales than leads (or clicks): some customers bought several times', { exact: false }).waitFor();
    expect(await page.getByText('More leads than clicks', { exact: false }).count()).toBe(0);
    await page.reload();
    expect(await page.getByLabel('Compare with').inputValue()).toBe('previous');
    await d.checkAccessibility(page, 'analytics-compare-en');

    // Places: region and city tabs of the locations card (named as the edge names them); a city row filters the view.
    await page.getByRole('group', { name: 'Locations: Break down by' }).getByRole('button', { name: 'City' }).click();
    const cities = page.getByRole('region', { name: 'Locations: City' });
    await cities.getByRole('button', { name: 'Filter by Munich' }).waitFor();
    expect(new URL(page.url()).searchParams.getAll('by')).toEqual(['location:city']);
    await cities.getByRole('button', { name: 'Filter by London' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('city')).toBe('London');
    await expect.poll(() => totalParts(page, 'Clicks')).toEqual({ now: '1', delta: '▼ Down -50% (was 2)' });
    await page.getByRole('button', { name: 'Remove filter City: London' }).click();
    await page.getByRole('group', { name: 'Locations: Break down by' }).getByRole('button', { name: 'Region' }).click();
    await page.getByRole('region', { name: 'Locations: Region' }).getByRole('button', { name: 'Filter by Bavaria' }).waitFor();
    // The city database's credit, under the places card.
    await page
      .locator('.lt-card', { has: page.getByRole('heading', { name: 'Locations' }) })
      .getByRole('link', { name: 'IP Geolocation by DB-IP' })
      .waitFor();
    await page.getByRole('group', { name: 'Locations: Break down by' }).getByRole('button', { name: 'Country' }).click();

    // A filter, then the CSV: its first records name the view, its rows are the API's groups.
    await country.getByRole('button', { name: 'Filter by United Kingdom' }).click();
    await page.getByRole('button', { name: 'Remove filter Country: United Kingdom' }).waitFor();
    await expect.poll(() => totalParts(page, 'Clicks')).toEqual({ now: '2', delta: '= No change 0% (was 2)' });
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    await page.getByRole('status').filter({ hasText: 'The CSV is downloaded.' }).waitFor();
    expect(download.suggestedFilename()).toMatch(/^analytics-workspace-\d{4}-\d{2}-\d{2}\.csv$/);
    const text = await readFile((await download.path())!, 'utf8');
    const records = parse(text.replace(/^\uFEFF/, ''), { relax_column_count: false }) as string[][];
    expect(records[0]![0]).toBe('Analytics report');
    expect(records[1]!.slice(0, 2)[0]).toBe('Date range');
    expect(records[1]![1]).toMatch(/^Last 7 days: /);
    expect(records[3]!.slice(0, 2)).toEqual(['Active filters', 'Country: United Kingdom']);
    expect(records[4]!.slice(0, 2)).toEqual(['Compare with', 'Previous period']);
    const heading = records[6]!;
    expect(heading.slice(0, 9)).toEqual(['Breakdown', 'groupBy', 'Key', 'Label', 'Clicks', 'Visitors', 'Leads', 'Sales', 'Revenue (EUR)']);
    const col = (name: string) => heading.indexOf(name);
    const rows = records.slice(7);
    const tz = new URL(page.url()).searchParams.get('tz') ?? (await page.evaluate<string>('Intl.DateTimeFormat().resolvedOptions().timeZone'));
    const q = `startDate=${await page.evaluate<string>(`new Intl.DateTimeFormat('en-CA', { timeZone: ${JSON.stringify(tz)} }).format(Date.now() - 6 * 86400000)`)}&timezone=${encodeURIComponent(tz)}&country=GB&compare=previous`;
    for (const groupBy of ['timeseries', 'country', 'device', 'referrer', 'utm_source', 'link']) {
      const want = await api(`${q}&groupBy=${groupBy}${groupBy === 'timeseries' ? '&interval=day&sort=asc&take=5000' : '&take=100'}`);
      const got = rows.filter((r) => r[col('groupBy')] === groupBy);
      expect(
        got.map((r) => [
          r[col('Key')],
          r[col('Clicks')],
          r[col('Visitors')],
          r[col('Leads')],
          r[col('Sales')],
          r[col('Earlier: Clicks')],
          r[col('Revenue (USD)')],
        ]),
        groupBy,
      ).toEqual(
        want.map((g) => [
          g.key,
          String(g.clicks),
          String(g.visitors),
          String(g.leads),
          String(g.sales),
          String(g.previous?.clicks),
          ((g.revenue.usd ?? 0) / 100).toFixed(2),
        ]),
      );
    }
    expect(rows.filter((r) => r[col('groupBy')] === 'country').map((r) => r[col('Label')])).toEqual(['United Kingdom']);
    // A value that a spreadsheet would run as a formula is written with a leading quote.
    expect(text).not.toMatch(/(^|,)=cmd/m);

    // Print: no navigation or controls, the view in one line, A4 portrait fits; a PDF is made.
    await page.setViewportSize({ width: 794, height: 1123 }); // A4 at 96 dpi
    await page.emulateMedia({ media: 'print' });
    expect(await page.getByRole('navigation').first().isVisible()).toBe(false);
    expect(await page.getByLabel('Compare with').isVisible()).toBe(false);
    expect(await page.getByRole('button', { name: 'Export CSV' }).isVisible()).toBe(false);
    expect(await page.locator('.lt-print-only').textContent()).toMatch(
      /Last 7 days: .* · Active filters: Country: United Kingdom · Compare with: Previous period/,
    );
    expect(await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `${SCREENSHOTS}/dashboard-analytics-print-en.png`, fullPage: true });
    const pdf = await page.pdf({ format: 'A4', printBackground: true, path: `${SCREENSHOTS}/dashboard-analytics-print-en.pdf` });
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    await page.emulateMedia({ media: 'screen' });
    await page.setViewportSize(DESKTOP);

    // The overview and a link's page compare the same way.
    await d.open(page, '/?compare=previous', 'Overview');
    await page.getByLabel('Date range').selectOption('7d');
    await expect.poll(() => totalParts(page, 'Clicks')).toEqual({ now: '5', delta: '▲ Up +150% (was 2)' });
    await d.checkAccessibility(page, 'overview-compare-en');
    await d.open(page, `/links/${spring!.id}?range=7d&compare=year`, 'Spring sale');
    await expect.poll(() => totalParts(page, 'Clicks')).toEqual({ now: '4', delta: '— No change to show (nothing in the earlier period) (was 0)' });
    await page.getByRole('list', { name: 'Clicks to leads to sales, with the conversion rates' }).waitFor();
    await d.checkAccessibility(page, 'link-compare-en');
    await page.setViewportSize({ width: 794, height: 1123 });
    await page.emulateMedia({ media: 'print' });
    expect(await page.getByRole('button', { name: 'Copy the short URL' }).isVisible()).toBe(false);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `${SCREENSHOTS}/dashboard-link-print-en.png`, fullPage: true });
    await page.emulateMedia({ media: 'screen' });

    // Arabic at 375 px: the comparison, long values and revenue columns unclipped; print right to left.
    const ar = await d.newPage('ar-EG', PHONE);
    await ar.goto(`${origin}/app`);
    await ar.getByLabel('البريد الإلكتروني').fill(OWNER.email);
    await ar.getByLabel('كلمة المرور').fill(OWNER.password);
    await ar.getByRole('button', { name: 'تسجيل الدخول' }).click();
    await ar.getByRole('navigation').first().waitFor();
    await ar.goto(`${origin}/app/analytics?range=7d&compare=previous&by=utm:utm_campaign&by=location:city`);
    await ar.getByRole('region', { name: 'المواقع: المدينة' }).getByText(longCity).waitFor();
    await ar.getByRole('region', { name: 'الحملات (UTM): الحملة' }).getByText(longCampaign).waitFor();
    await expect.poll(() => ar.locator('[aria-busy="true"]').count()).toBe(0);
    expect(await ar.getByLabel('قارن مع').inputValue()).toBe('previous');
    expect(await clippedCells(ar)).toEqual([]);
    await d.checkAccessibility(ar, 'analytics-compare-ar');
    await ar.setViewportSize(PHONE);
    expect(await clippedCells(ar)).toEqual([]);
    await ar.emulateMedia({ media: 'print' });
    await ar.setViewportSize({ width: 794, height: 1123 });
    expect(await ar.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBeLessThanOrEqual(0);
    await ar.screenshot({ path: `${SCREENSHOTS}/dashboard-analytics-print-ar.png`, fullPage: true });
    expect((await ar.pdf({ format: 'A4' })).subarray(0, 5).toString()).toBe('%PDF-');
    await ar.emulateMedia({ media: 'screen' });
    await ar.setViewportSize(PHONE);
    await ar.goto(`${origin}/app?compare=previous`);
    await ar.locator('dl.totals').waitFor();
    await d.checkAccessibility(ar, 'overview-compare-ar');
    expect(d.cspViolations).toEqual([]);
  }, 120_000);
});
