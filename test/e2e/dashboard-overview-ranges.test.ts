/**
 * The overview's ranges in Chromium: Today (hour by hour), Month to date, and custom dates, as
 * on the analytics page, kept in the URL across a reload; a click made now counts in Today;
 * Arabic at 375 px.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP as DESKTOP_UA } from '../helpers/visitors.js';
import { within } from '../helpers/wait.js';
import { dashboardRunnable, OWNER, PHONE, startDashboard, total, type Dashboard } from './dashboard-harness.js';

describe.skipIf(!dashboardRunnable())('the overview’s ranges', () => {
  let d: Dashboard;
  beforeAll(async () => {
    d = await startDashboard();
    const page = await d.newPage();
    const { headers } = await d.setUpOwner(page);
    const made = await page.request.post(`${d.origin}/api/collections`, { headers, data: [{ name: 'Spring' }] });
    const collectionId = (await made.json())[0].id as string;
    const links = await page.request.post(`${d.origin}/api/links`, { headers, data: [{ collectionId, url: 'https://shop.example/', title: 'Spring sale' }] });
    const link = (await links.json())[0] as { shortUrl: string };
    const visit = await d.t.inject({ method: 'GET', url: new URL(link.shortUrl).pathname, headers: { 'user-agent': DESKTOP_UA } });
    expect(visit.statusCode).toBe(302);
    const counted = async () =>
      ((await (await page.request.get(`${d.origin}/api/analytics?groupBy=link`, { headers })).json()) as { clicks: number }[])[0]?.clicks === 1;
    expect(await within(20_000, counted), 'the click counted').toBe(true);
    await d.closeContexts();
  });
  afterEach(async () => d.closeContexts());
  afterAll(async () => d?.close());

  async function overview(locale = 'en-US', viewport?: { width: number; height: number }) {
    const page = await d.newPage(locale, viewport);
    const res = await page.request.post(`${d.origin}/api/auth/login`, {
      headers: { origin: d.origin },
      data: { email: OWNER.email, password: OWNER.password },
    });
    expect(res.status(), await res.text()).toBe(200);
    await page.goto(`${d.origin}/app`);
    return page;
  }

  it('Today, Month to date and custom dates; the URL keeps the choice', async () => {
    const page = await overview();
    const range = page.getByLabel('Date range');
    await expect
      .poll(() => range.locator('option').allTextContents())
      .toEqual(expect.arrayContaining(['Today', 'Last 24 hours', 'Last 7 days', 'Last 30 days', 'Month to date', 'Custom dates']));
    await range.selectOption('today');
    await expect.poll(() => new URL(page.url()).searchParams.get('range')).toBe('today');
    await expect.poll(() => total(page, 'Clicks')).toMatch(/^1/);
    await page.getByRole('img', { name: /per hour/ }).waitFor();
    await range.selectOption('mtd');
    await expect.poll(() => new URL(page.url()).searchParams.get('range')).toBe('mtd');
    await expect.poll(() => total(page, 'Clicks')).toMatch(/^1/);
    await range.selectOption('custom');
    await page.getByLabel('Start date').fill('2026-01-01');
    await page.getByLabel('End date').fill('2026-01-31');
    await expect.poll(() => new URL(page.url()).searchParams.get('start')).toBe('2026-01-01');
    await expect.poll(() => total(page, 'Clicks')).toMatch(/^0/);
    await page.reload();
    expect(await page.getByLabel('Date range').inputValue()).toBe('custom');
    expect(await page.getByLabel('End date').inputValue()).toBe('2026-01-31');
    expect(d.cspViolations).toEqual([]);
  });

  it('Arabic at 375 px: the ranges translated, no overflow', async () => {
    const page = await overview('ar-EG', PHONE);
    await page.getByLabel('الفترة الزمنية').selectOption('today');
    await expect.poll(() => total(page, 'النقرات')).toMatch(/^(1|١)/);
    await d.checkAccessibility(page, 'overview-today-ar');
  });
});
