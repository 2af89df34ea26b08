/**
 * The partner portal in Chromium (operations.md §18 "Partner portal"): a partner who accepted
 * their invitation opens /app/partner and sees their program, earnings, figures per UTC day,
 * links (copy, QR), commissions with the customer masked, payouts; makes a link under the
 * program's prefix; sets payout details with their password — in English at 1280 and 375 px
 * and in Arabic, right to left, axe clean, screenshots kept.
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.js';
import { DESKTOP as DESKTOP_UA } from '../helpers/visitors.js';
import { dashboardRunnable, OWNER, PHONE, startDashboard, type Dashboard } from './dashboard-harness.js';

const PARTNER = { name: 'Ana Lima', email: 'ana.portal@example.net', password: 'copper-valley-38-harbor' };

describe.runIf(dashboardRunnable())('the partner portal in the browser', () => {
  let d: Dashboard;
  let key: string;

  const send = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) => {
    const res = await d.t.inject({ method, url, headers: bearer(key), payload: payload as object });
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
    return res.json();
  };

  beforeAll(async () => {
    d = await startDashboard();
    const { workspaceId } = await d.setUpOwner(await d.newPage());
    await d.closeContexts();
    const scopes = ['partnersWrite', 'partnersRead', 'programsWrite', 'programsRead', 'conversionsWrite', 'linksRead'];
    key = (await d.t.admin('POST', `/workspaces/${workspaceId}/keys`, { name: 'program', scopes })).json<{ key: string }>().key;
    const fraudRules = { selfReferral: false, sameVisitor: false, disposableEmail: false, burst: false, duplicateCustomer: false };
    await send('PUT', '/api/program', {
      name: 'Lamp Friends',
      slug: 'lamp-portal',
      landingUrl: 'https://shop.example/',
      currency: 'usd',
      holdingDays: 0,
      minPayout: { usd: 100 },
      fraudRules,
    });
    const [group] = await send('GET', '/api/partner-groups');
    await send('PUT', '/api/partner-groups', [
      {
        id: group.id,
        rewards: [
          { event: 'lead', type: 'flat', amount: 300 },
          { event: 'sale', type: 'percentage', amount: 2000 },
        ],
      },
    ]);
    // The partner accepts their invitation (an account of their own), then earns: a click, a lead, a sale.
    const [partner] = await send('POST', '/api/partners', [{ name: PARTNER.name, email: PARTNER.email, status: 'invited' }]);
    const [invite] = await send('POST', '/api/partner-invites', [{ partnerId: partner.id }]);
    const token = new URL(invite.url).searchParams.get('token');
    const accepted = await d.t.inject({
      method: 'POST',
      url: '/api/partner-invites/accept',
      headers: { origin: d.origin },
      payload: { token, name: PARTNER.name, password: PARTNER.password },
    });
    expect(accepted.statusCode, accepted.body).toBe(200);
    const links = await send('GET', `/api/links?partnerId=${partner.id}`);
    const visit = await d.t.inject({
      method: 'GET',
      url: new URL(links[0].shortUrl).pathname,
      remoteAddress: '81.2.69.160',
      headers: { 'user-agent': DESKTOP_UA },
    });
    const clickId = new URL(visit.headers.location as string).searchParams.get('ltid');
    await send('POST', '/api/track/lead', {
      clickId,
      eventName: 'Sign up',
      customerExternalId: 'c-1',
      customerName: 'Jane Doe',
      customerEmail: 'jane@buyer.example',
    });
    await send('POST', '/api/track/sale', { customerExternalId: 'c-1', customerName: 'Jane Doe', amount: 12_000, currency: 'usd' });
  });
  afterEach(() => d.closeContexts());
  afterAll(() => d?.close());

  async function portalAs(locale: string, viewport?: { width: number; height: number }): Promise<Page> {
    const page = await d.newPage(locale, viewport);
    await d.signInWithApi(page, PARTNER);
    await page.goto(`${d.origin}/app/partner`);
    return page;
  }

  it('shows the program, figures, links, commissions; makes a link under the prefix; sets payout details', async () => {
    const page = await portalAs('en-US');
    await page.getByRole('heading', { level: 1, name: 'Partner portal' }).waitFor();
    await page.getByRole('heading', { name: 'Lamp Friends' }).waitFor();
    // The click is written in a batch: the figures are read again until it shows.
    await expect
      .poll(
        async () => {
          await page.reload();
          await page.getByRole('heading', { name: 'Last 30 days' }).waitFor();
          return page.locator('.portal-card', { hasText: 'Clicks' }).locator('dd').first().textContent();
        },
        { timeout: 20_000 },
      )
      .toBe('1');
    await page.getByText('Jane D.').first().waitFor();
    await page.getByText('j•••@buyer.example').first().waitFor();
    await expect.poll(() => page.locator('body').textContent()).not.toContain('jane@buyer.example');

    await page.getByLabel('Destination URL').fill('https://evil.example/');
    await page.getByRole('button', { name: 'Create link' }).click();
    await page.getByRole('alert').getByText("is not under one of the program's link prefixes", { exact: false }).waitFor();
    await page.getByLabel('Destination URL').fill('https://shop.example/spring');
    await page.getByLabel('Title (optional)').fill('Spring sale');
    await page.getByRole('button', { name: 'Create link' }).click();
    await page.getByRole('status').getByText('Link created.').waitFor();
    await page.getByText('https://shop.example/spring').waitFor();
    expect(await page.locator('.portal-table img[alt^="QR code of"]').count()).toBe(2);

    await page.getByLabel('Account e-mail').fill('ana.pay@example.net');
    await page.getByLabel('Your password (to confirm it is you)').fill('wrong password entirely');
    await page.getByRole('button', { name: 'Save payout details' }).click();
    await page.getByRole('alert').getByText('is not your current password', { exact: false }).waitFor();
    await page.getByLabel('Account e-mail').fill('ana.pay@example.net');
    await page.getByLabel('Your password (to confirm it is you)').fill(PARTNER.password);
    await page.getByRole('button', { name: 'Save payout details' }).click();
    await page.getByRole('status').getByText('Payout details saved.', { exact: false }).waitFor();
    await page.getByText('a•••@example.net').waitFor();
    await d.checkAccessibility(page, 'partner-portal-en');
    expect(d.cspViolations).toEqual([]);

    // The owner sees how the partner is paid, masked, and when it changed.
    const owner = await d.newPage();
    await d.signIn(owner, OWNER);
    await d.open(owner, '/program/partners', 'Partners');
    await owner.getByText(/Paid by PayPal to a•••@example\.net, changed on /).waitFor();
  });

  it('in Arabic at 375 px, right to left', async () => {
    const page = await portalAs('ar', PHONE);
    await page.getByRole('heading', { level: 1, name: 'بوابة الشركاء' }).waitFor();
    await page.getByRole('heading', { name: 'Lamp Friends' }).waitFor();
    await page.getByRole('heading', { name: 'العمولات' }).waitFor();
    await page.getByText('Jane D.').first().waitFor();
    expect(await page.evaluate<string>('document.documentElement.dir')).toBe('rtl');
    await d.checkAccessibility(page, 'partner-portal-ar');
  });
});
