/**
 * Settings → Integrations → Stripe in Chromium on a real server (operations.md §12): the owner
 * creates the webhook URL, copies it with its button, pastes a signing secret and sees the
 * connection connected; events signed as Stripe signs them are then posted to that URL and
 * listed on the page with their outcomes (a sale for a click of this workspace, nothing to
 * attribute, test mode, ignored); disconnecting ends the URL. A member sees no Integrations
 * entry. axe at desktop and 375 px, English and Arabic (right-to-left). Screenshots:
 * test/e2e/__screenshots__/dashboard-stripe-*.png.
 */
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { signature, stripeEvent, stripeId } from '../modules/stripe/helpers.js';
import { dashboardRunnable, OWNER, PHONE, startDashboard, type Dashboard } from './dashboard-harness.js';

const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';
const MEMBER = { name: 'Milo Member', email: 'milo@example.com', password: 'copper-valley-58-harbour' };
const SIGNING_SECRET = 'whsec_' + randomBytes(24).toString('hex');

/** A paid checkout session (the fixture of API 2024-06-20) with fresh ids, without a click id unless given. */
const checkout = (extra: Record<string, unknown> = {}, livemode = true) =>
  stripeEvent(
    'checkout.session.completed',
    { id: stripeId('cs'), payment_intent: stripeId('pi'), invoice: null, customer: stripeId('cus'), client_reference_id: null, metadata: {}, ...extra },
    { livemode },
  );
/** An event type the connection does not use. */
const other = () => ({
  ...stripeEvent('checkout.session.completed', {}),
  type: 'customer.created',
  data: { object: { id: stripeId('cus'), object: 'customer' } },
});

describe.skipIf(!dashboardRunnable())('Settings → Integrations → Stripe in Chromium', () => {
  let d: Dashboard;
  let origin: string;
  let headers: Record<string, string>;
  let workspaceId: string;
  beforeAll(async () => {
    d = await startDashboard();
    origin = d.origin;
    // The setup's owner and workspace, made once; each test signs in itself.
    ({ workspaceId, headers } = await d.setUpOwner(await d.newPage()));
    await d.closeContexts();
  });
  afterEach(async () => d.closeContexts());
  afterAll(async () => d?.close());

  const newPage = (locale?: string, viewport?: { width: number; height: number }) => d.clipboardPage(locale, viewport);
  const open = (page: Page, path: string, heading: string) => d.open(page, path, heading);
  /** Posts an event to the webhook URL as Stripe does, signed with `secret` by the official `stripe` package. */
  const post = (url: string, event: object, secret = SIGNING_SECRET) => {
    const body = JSON.stringify(event);
    return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': signature(body, secret) }, body });
  };
  /** A click of this workspace (a link, visited), for a checkout to be attributed to. */
  const aClick = async (page: Page): Promise<string> => {
    const madeCollection = await page.request.post(`${origin}/api/collections`, { headers, data: [{ name: 'Pricing page' }] });
    expect(madeCollection.status(), await madeCollection.text()).toBe(201);
    const [collection] = await madeCollection.json();
    const made = await page.request.post(`${origin}/api/links`, {
      headers,
      data: [{ collectionId: collection.id, url: 'https://example.com/pricing', title: 'Pricing' }],
    });
    expect(made.status(), await made.text()).toBe(201);
    const { id: linkId, shortUrl } = (await made.json())[0];
    expect((await d.t.inject({ url: new URL(shortUrl).pathname, headers: { 'user-agent': BROWSER_UA } })).statusCode).toBe(302);
    let clickId = '';
    await expect
      .poll(async () => (clickId = (await (await page.request.get(`${origin}/api/analytics?linkId=${linkId}`, { headers })).json())[0]?.id ?? ''), {
        timeout: 20_000,
      })
      .not.toBe('');
    return clickId;
  };

  it('connect, copy the URL, paste the secret, see the events and their outcomes, disconnect', async () => {
    const page = await newPage();
    await d.signInWithApi(page, OWNER);
    await open(page, '/settings/integrations', 'Integrations');
    await page.getByRole('heading', { level: 2, name: 'Stripe' }).waitFor();
    await page.getByText('Not connected.').waitFor();
    await d.checkAccessibility(page, 'stripe-none-en');

    await page.getByRole('button', { name: 'Create the webhook URL' }).click();
    await page.getByText('Waiting for the signing secret').waitFor();
    await page.getByRole('button', { name: 'Copy: Webhook URL' }).click();
    await page.getByRole('button', { name: /^Copied/ }).waitFor();
    const url = await page.evaluate<string>('navigator.clipboard.readText()');
    expect(url).toMatch(new RegExp(`^${origin}/webhooks/stripe/[A-Za-z0-9_-]{16,}$`));
    await page.getByText(url, { exact: true }).waitFor();
    for (const type of ['checkout.session.completed', 'checkout.session.async_payment_succeeded', 'invoice.paid', 'charge.refunded'])
      await page.getByText(type, { exact: true }).waitFor();
    // This server's BASE_URL is on this machine: the page says Stripe cannot post to it.
    await page
      .getByRole('note')
      .getByText(/^Stripe cannot reach this URL/)
      .waitFor();
    await d.checkAccessibility(page, 'stripe-pending-en');
    // Until the secret is pasted, the URL answers 400 to every event.
    expect((await post(url, checkout())).status).toBe(400);

    await page.getByLabel('Signing secret', { exact: true }).fill(SIGNING_SECRET);
    await page.getByRole('button', { name: 'Connect', exact: true }).click();
    await page.getByText('Connected', { exact: true }).first().waitFor();
    await page.getByText('Live payments only').waitFor();
    // The secret is never shown again.
    expect(await page.getByLabel('Signing secret', { exact: true }).inputValue()).toBe('');
    expect(await page.content()).not.toContain(SIGNING_SECRET);
    await page.getByText('No event received yet').waitFor();

    // Events as Stripe sends them: a wrong signature records nothing.
    expect((await post(url, checkout(), 'whsec_wrong')).status).toBe(400);
    const clickId = await aClick(page);
    const sale = checkout({ client_reference_id: clickId });
    const outcomes: [{ id: string }, string][] = [
      [sale, 'Sale recorded'],
      // Another app's own id in client_reference_id, no customer known: nothing to attribute.
      [checkout({ client_reference_id: 'user_8812', customer_details: { email: 'nobody@example.com', name: 'Nobody' } }), 'Nothing to attribute'],
      [checkout({}, false), 'Test mode: no sale'],
      [other(), 'Ignored'],
    ];
    for (const [event] of outcomes) {
      const res = await post(url, event);
      expect(res.status, await res.text()).toBe(200);
    }
    await page.getByRole('button', { name: 'Refresh' }).click();
    const table = page.getByRole('region', { name: 'Events Stripe sent' });
    for (const [event, outcome] of outcomes) {
      const row = table.getByRole('row').filter({ hasText: event.id });
      await row.getByText(outcome, { exact: true }).waitFor();
    }
    // The unattributed one says why.
    await table.getByRole('row').filter({ hasText: outcomes[1]![0].id }).getByText('The customer has no lead or click').waitFor();
    // The sale's row names the sale made, and the sale is there.
    const saleRow = table.getByRole('row').filter({ hasText: sale.id });
    const saleId = (await saleRow.getByRole('cell').nth(2).textContent())?.trim() ?? '';
    expect(saleId).toMatch(/\S{8,}/);
    const events = await (await page.request.get(`${origin}/api/events?type=sale`, { headers })).json();
    expect(events.map((e: { id: string }) => e.id)).toContain(saleId);
    await d.checkAccessibility(page, 'stripe-connected-en');

    await page.getByRole('button', { name: 'Disconnect' }).click();
    await page.getByRole('button', { name: 'Yes, disconnect' }).click();
    await page.getByText('Not connected.').waitFor();
    expect((await post(url, checkout())).status).toBe(404);
    expect(d.cspViolations).toEqual([]);
  });

  it('Arabic at 375 px: right-to-left, translated, no overflow', async () => {
    const page = await newPage('ar-EG', PHONE);
    await d.signInWithApi(page, OWNER);
    await open(page, '/settings/integrations', 'التكاملات');
    expect(await page.evaluate<string>('document.documentElement.dir')).toBe('rtl');
    await page.getByRole('button', { name: 'إنشاء عنوان خطاف الويب' }).click();
    await page.getByText('بانتظار سرّ التوقيع').waitFor();
    await page
      .getByRole('note')
      .getByText(/^لا يستطيع Stripe الوصول إلى هذا العنوان/)
      .waitFor();
    await page.getByLabel('سرّ التوقيع', { exact: true }).fill(SIGNING_SECRET);
    await page.getByRole('button', { name: 'ربط', exact: true }).click();
    await page.getByText('مربوط', { exact: true }).first().waitFor();
    const url = (await page.locator('.stripe-url code').textContent()) ?? '';
    const ignored = other();
    expect((await post(url, ignored)).status).toBe(200);
    await page.getByRole('button', { name: 'تحديث' }).click();
    await page
      .getByRole('region', { name: 'الأحداث التي أرسلها Stripe' })
      .getByRole('row')
      .filter({ hasText: ignored.id })
      .getByText('تم تجاهله', { exact: true })
      .waitFor();
    await d.checkAccessibility(page, 'stripe-connected-ar');
  });

  it('a member sees no Integrations entry and cannot open it', async () => {
    const owner = await newPage();
    await d.signInWithApi(owner, OWNER);
    const invite = await owner.request.post(`${origin}/api/workspaces/${workspaceId}/invites`, {
      headers: { origin },
      data: { email: MEMBER.email, role: 'member' },
    });
    expect(invite.status(), await invite.text()).toBe(201);
    const token = new URL((await invite.json()).url).searchParams.get('token');
    const page = await newPage();
    const accepted = await page.request.post(`${origin}/api/invites/accept`, {
      headers: { origin },
      data: { token, name: MEMBER.name, password: MEMBER.password },
    });
    expect(accepted.status(), await accepted.text()).toBe(201);
    await page.goto(`${origin}/app/settings/integrations`);
    await page.getByText('There is no page here.').waitFor();
    expect(await page.getByRole('link', { name: 'Integrations' }).count()).toBe(0);
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).count()).toBe(0);
    expect((await page.request.get(`${origin}/api/integrations/stripe`, { headers: { 'x-workspace-id': workspaceId } })).status()).toBe(403);
  });
});
