/**
 * A link's A/B test on its page in Chromium (operations.md §20): an owner sets one up from the
 * page (the server's 400 shown when the shares do not add up), sees the variants side by side
 * with their clicks, conversions, rates and probability to be best, and the day-by-day chart,
 * then ends it applying a variant: the destination changes. In Arabic at 375 px: right to left,
 * the variants one under the other, a completed test with its winner. axe and screenshots at
 * 1280 and 375 px in both languages. Page code runs as strings (no DOM library here).
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dashboardRunnable, OWNER, PHONE, startDashboard, type Dashboard } from './dashboard-harness.js';

const RANIA = { name: 'Rania Tests', email: 'rania.ab@example.com', password: 'linen-harbour-82-compass' };
const DESKTOP_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const A = 'https://shop.example/spring-a';
const B = 'https://shop.example/spring-b';

describe.skipIf(!dashboardRunnable())("a link's A/B test in Chromium", () => {
  let d: Dashboard;
  let headers: Record<string, string>;
  beforeAll(async () => {
    d = await startDashboard();
    ({ headers } = await d.setUpOwner(await d.newPage()));
    await d.closeContexts();
  });
  afterEach(async () => d.closeContexts());
  afterAll(async () => d?.close());

  const makeLink = async (page: Page, h: Record<string, string>, extra: object = {}): Promise<{ id: string; shortUrl: string; testId: string | null }> => {
    const [collection] = await (await page.request.post(`${d.origin}/api/collections`, { headers: h, data: [{ name: 'Spring' }] })).json();
    const made = await page.request.post(`${d.origin}/api/links`, {
      headers: h,
      data: [{ url: A, collectionId: collection.id, title: 'Spring sale', ...extra }],
    });
    expect(made.status(), await made.text()).toBe(201);
    return (await made.json())[0];
  };
  const resultOf = async (page: Page, h: Record<string, string>, id: string) =>
    (await page.request.get(`${d.origin}/api/links/${id}/test`, { headers: h })).json();

  /** `n` visitors (distinct addresses) of the short link, and leads for the first `leads` of each variant: the clicks' variants. */
  async function traffic(page: Page, h: Record<string, string>, link: { id: string; shortUrl: string }, n: number, leads: number[]) {
    const byVariant: string[][] = [[], []];
    for (let i = 0; i < n; i++) {
      const res = await d.t.inject({
        method: 'GET',
        url: new URL(link.shortUrl).pathname,
        remoteAddress: `198.51.100.${i + 1}`,
        headers: { 'user-agent': DESKTOP_UA },
      });
      expect(res.statusCode, res.body).toBe(302);
      const to = new URL(res.headers.location as string);
      byVariant[`${to.origin}${to.pathname}` === A ? 0 : 1]!.push(to.searchParams.get('ltid')!);
    }
    // The clicks are written in batches: wait until the test counts them all.
    await expect
      .poll(async () => ((await resultOf(page, h, link.id)).variants as { clicks: number }[]).reduce((s, v) => s + v.clicks, 0), { timeout: 20_000 })
      .toBe(n);
    for (const [variant, count] of leads.entries()) {
      for (const clickId of byVariant[variant]!.slice(0, count)) {
        const customer = { customerExternalId: `cus_${clickId}`, customerName: 'Customer' };
        const lead = await page.request.post(`${d.origin}/api/track/lead`, { headers: h, data: { clickId, eventName: 'Sign up', ...customer } });
        expect(lead.status(), await lead.text()).toBeLessThan(300);
      }
    }
    return byVariant;
  }

  it('owner: sets a test up from the page, reads the variants side by side, ends it applying a variant', async () => {
    const page = await d.newPage('en-US');
    await d.signInWithApi(page, OWNER);
    const link = await makeLink(page, headers);
    await page.goto(`${d.origin}/app/links/${link.id}`);
    await page.getByRole('heading', { name: 'A/B test', level: 2 }).waitFor();
    await page.getByText('This link has no A/B test.', { exact: false }).waitFor();

    // Shares that do not add up: the server's 400, naming the field.
    await page.getByLabel('Variant B · Destination (https)').fill(B);
    await page.getByLabel('Share of visitors (%)').nth(1).fill('40');
    await page.getByLabel('Judge by').selectOption('leads');
    await page.getByRole('button', { name: 'Start the test' }).click();
    await page
      .getByRole('alert')
      .getByText(/test\.variants: must have weights adding up to 100 \(these add up to 90\)/)
      .waitFor();
    await page.getByLabel('Share of visitors (%)').nth(1).fill('50');
    await page.getByRole('button', { name: 'Start the test' }).click();
    await page.getByText(/^Running until /).waitFor();
    const started = (await (await page.request.get(`${d.origin}/api/links?id=${link.id}`, { headers })).json())[0];
    expect(started.test).toMatchObject({
      variants: [
        { url: A, weight: 50 },
        { url: B, weight: 50 },
      ],
      metric: 'leads',
      autoApply: true,
    });

    const split = await traffic(page, headers, link, 24, [1, 3]);
    await page.reload();
    const variantA = page.getByRole('listitem', { name: 'Variant A' });
    const variantB = page.getByRole('listitem', { name: 'Variant B' });
    await variantB.waitFor();
    const figure = (item: typeof variantA, name: string) => item.locator('dt', { hasText: name }).locator('xpath=following-sibling::dd[1]');
    expect(await figure(variantA, 'Test clicks').textContent()).toBe(String(split[0]!.length));
    expect(await figure(variantB, 'Test clicks').textContent()).toBe(String(split[1]!.length));
    expect(await figure(variantB, 'Conversions').textContent()).toBe('3');
    // The page writes the API's probability as a percentage; the two add up to 100 %.
    const result = await resultOf(page, headers, link.id);
    const pB = result.variants[1].probabilityBest as number;
    await variantB.getByText(new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 1 }).format(pB)).waitFor();
    expect(pB + (result.variants[0].probabilityBest as number)).toBeCloseTo(1, 2);
    await page.getByRole('img', { name: 'Clicks and conversions of each variant by day' }).waitFor();
    await d.checkAccessibility(page, 'ab-test-en');

    // Ending it with variant A: the destination is A, the test completed with A the winner.
    await page.getByRole('button', { name: 'End and apply Variant A' }).click();
    await page.getByText('The winner is Variant A.', { exact: false }).waitFor();
    await page.getByRole('button', { name: 'Start a new test' }).waitFor();
    const after = (await (await page.request.get(`${d.origin}/api/links?id=${link.id}`, { headers })).json())[0];
    expect(after).toMatchObject({ url: A, test: null, testId: null });
    expect((await resultOf(page, headers, link.id)).winner).toBe(0);
    expect(d.cspViolations).toEqual([]);
  });

  it('in Arabic at 375 px: right to left, the variants one under the other, a completed test with its winner', async () => {
    const page = await d.newPage('ar-EG', PHONE);
    const { headers: h } = await d.workspaceOf(RANIA);
    await d.signInWithApi(page, RANIA);
    const ends = new Date(Date.now() + 7 * 86_400_000).toISOString();
    const link = await makeLink(page, h, {
      test: {
        variants: [
          { url: A, weight: 30 },
          { url: B, weight: 70 },
        ],
        endsAt: ends,
        metric: 'leads',
      },
    });
    await traffic(page, h, link, 16, [0, 2]);
    await page.goto(`${d.origin}/app/links/${link.id}`);
    await page.getByRole('heading', { name: 'اختبار A/B', level: 2 }).waitFor();
    expect(await page.evaluate<string>('document.documentElement.dir')).toBe('rtl');
    await page.getByRole('listitem', { name: 'المتغير B' }).waitFor();
    // One under the other on a phone.
    const boxes = await page.evaluate<{ top: number; left: number }[]>(
      `[...document.querySelectorAll('.ab-variant')].map((e) => { const r = e.getBoundingClientRect(); return { top: r.top, left: r.left }; })`,
    );
    expect(boxes).toHaveLength(2);
    expect(boxes[1]!.top).toBeGreaterThan(boxes[0]!.top);
    await d.checkAccessibility(page, 'ab-test-ar');

    await page.getByRole('button', { name: 'أنهِه الآن وطبّق الفائز' }).click();
    await page.getByText('الفائز هو المتغير B.', { exact: false }).waitFor();
    const after = (await (await page.request.get(`${d.origin}/api/links?id=${link.id}`, { headers: h })).json())[0];
    expect(after).toMatchObject({ url: B, test: null });
    await d.checkAccessibility(page, 'ab-test-completed-ar');
    expect(d.cspViolations).toEqual([]);
  });
});
