/**
 * Settings → Webhooks in Chromium on a real server (operations.md §11): an owner registers an
 * endpoint pointing at a receiver this test runs, choosing its events; sees the secret once
 * (copied, and gone after a reload); sends a test and sees it in the delivery log, signed
 * with that secret; rolls the secret (both sign for a day); a failing delivery is retried
 * from the log, and failed ones recovered; edits, disables, enables and deletes it. A member
 * and a viewer (no webhook scopes) see no Webhooks entry and cannot open the page. axe at
 * desktop and 375 px, English and Arabic (right-to-left). Screenshots:
 * test/e2e/__screenshots__/dashboard-webhooks-*.png.
 */
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dashboardRunnable, OWNER, PHONE, startDashboard, type Dashboard } from './dashboard-harness.js';

const MEMBER = { name: 'Milo Member', email: 'milo@example.com', password: 'copper-valley-58-harbour' };
const VIEWER = { name: 'Vera Viewer', email: 'vera@example.com', password: 'quiet-meadow-47-compass' };

interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A webhook receiver on 127.0.0.1: keeps what it is sent, answers `status` (changeable). */
async function startReceiver(): Promise<{ url: string; received: Received[]; answer: { status: number }; close: () => Promise<void> }> {
  const received: Received[] = [];
  const answer = { status: 200 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.status < 300 ? 'thanks' : 'receiver is down');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks/linktrail`, received, answer, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Standard Webhooks' signature of one request with one secret (`whsec_` + base64 key). */
function sign(secret: string, id: string, timestamp: string, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return 'v1,' + createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
}
const signaturesOf = (r: Received) => String(r.headers['webhook-signature'] ?? '').split(' ');
/** Regular-expression text matching `text` as it is. */
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/** What the receiver was sent for endpoint `id` (test events name it): other tests' late deliveries left out. */
const sentTo = (received: Received[], id: string) => received.filter((r) => (JSON.parse(r.body) as { data?: { webhookId?: string } }).data?.webhookId === id);
const verifies = (r: Received, secret: string) =>
  signaturesOf(r).includes(sign(secret, String(r.headers['webhook-id']), String(r.headers['webhook-timestamp']), r.body));

describe.skipIf(!dashboardRunnable())('Settings → Webhooks in Chromium', () => {
  let d: Dashboard;
  let origin: string;
  let workspaceId: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    receiver = await startReceiver();
    // Loopback is allowed in tests; a failed attempt waits an hour, so only Retry sends it again;
    // the delivery worker (off in test apps by default) sends from this app's own database.
    d = await startDashboard({
      ALLOW_PRIVATE_DESTINATIONS: 'true',
      WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
      WEBHOOK_RETRY_DELAYS: '1h',
      WEBHOOK_DELIVERY: 'true',
    });
    origin = d.origin;
    ({ workspaceId } = await d.setUpOwner(await d.newPage()));
    await d.closeContexts();
  });
  // Each test starts from a workspace without endpoints and a receiver that answers 200.
  afterEach(async () => {
    const page = await d.newPage();
    const login = await page.request.post(`${origin}/api/auth/login`, { headers: { origin }, data: { email: OWNER.email, password: OWNER.password } });
    expect(login.status(), await login.text()).toBe(200);
    const headers = { 'x-workspace-id': workspaceId, origin };
    for (const { id } of await (await page.request.get(`${origin}/api/webhooks`, { headers })).json()) {
      expect((await page.request.delete(`${origin}/api/webhooks/${id}`, { headers })).status()).toBe(200);
    }
    receiver.answer.status = 200;
    await d.closeContexts();
  });
  afterAll(async () => {
    await d?.close();
    await receiver?.close();
  });

  const newPage = (locale?: string, viewport?: { width: number; height: number }) => d.clipboardPage(locale, viewport);
  const open = (page: Page, path: string, heading: string) => d.open(page, path, heading);
  /** Presses Tab until the focused element's label or text is `name` (the keyboard alone). */
  const tabTo = async (page: Page, name: string) => {
    const seen: string[] = [];
    for (let i = 0; i < 60; i++) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate<string>(
        `(() => { const e = document.activeElement; return e ? (e.getAttribute('aria-label') || e.labels?.[0]?.textContent || e.textContent || '').trim() : ''; })()`,
      );
      if (focused === name) return;
      seen.push(focused);
    }
    throw new Error(`Tab never reached ${name}: ${seen.join(' | ')}`);
  };
  const clipboard = (page: Page) => page.evaluate<string>('navigator.clipboard.readText()');
  const log = (page: Page) => page.getByRole('region', { name: 'Delivery log' });
  /** Refreshes the log until a row holds `text`. */
  const logShows = async (page: Page, text: RegExp) =>
    expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Refresh' }).click();
          await expect.poll(() => page.getByRole('button', { name: 'Refresh' }).isEnabled()).toBe(true);
          return log(page).getByRole('row').filter({ hasText: text }).count();
        },
        { timeout: 20_000, interval: 500 },
      )
      .toBeGreaterThan(0);

  it('an owner registers an endpoint, sees its secret once, tests it, rolls the secret, retries, recovers, edits, disables and deletes it', async () => {
    const page = await newPage();
    await d.signIn(page, OWNER);
    await open(page, '/settings/webhooks', 'Webhooks');
    const nav = page.getByRole('navigation', { name: 'Section' });
    expect(await nav.getByRole('link', { name: 'Webhooks' }).getAttribute('aria-current')).toBe('page');
    await page.getByText('No endpoints yet').waitFor();

    await page.getByRole('button', { name: 'New endpoint' }).click();
    // The form opens with the focus on its address.
    await expect.poll(() => page.evaluate<string>('document.activeElement.getAttribute("name")')).toBe('url');
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByLabel('Description').fill('CRM sync');
    // Each event says what it is and which read scopes it needs (the program's four among them).
    expect(await page.getByRole('checkbox').count()).toBe(10);
    await page.getByRole('checkbox', { name: /commission\.created A partner earned a commission Needs programsRead/ }).waitFor();
    await page.getByRole('checkbox', { name: /link\.created A link was created Needs linksRead/ }).check();
    await page.getByRole('checkbox', { name: /sale\.created .* analyticsRead, customersRead/ }).check();
    // None chosen is said on the page, not sent.
    await page.getByRole('checkbox', { name: /link\.created/ }).uncheck();
    await page.getByRole('checkbox', { name: /sale\.created/ }).uncheck();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('alert').getByText('Choose at least one event.').waitFor();
    await page.getByRole('checkbox', { name: /link\.created/ }).check();
    await page.getByRole('checkbox', { name: /sale\.created/ }).check();
    await d.checkAccessibility(page, 'webhooks-form-en');
    await page.getByRole('button', { name: 'Add endpoint' }).click();

    const shown = page.getByRole('textbox', { name: 'Signing secret' });
    await shown.waitFor();
    const secret = await shown.inputValue();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await page.getByText('it will not be shown again').waitFor();
    await page.getByRole('button', { name: 'Copy: Signing secret' }).click();
    await page.getByRole('button', { name: /^Copied/ }).waitFor();
    expect(await clipboard(page)).toBe(secret);
    const item = page.getByRole('listitem').filter({ hasText: receiver.url });
    await item.getByText('CRM sync').waitFor();
    await item.getByText('Active').waitFor();
    await d.checkAccessibility(page, 'webhooks-created-en');
    await page.getByRole('button', { name: 'Done' }).click();
    // Shown once: not after a reload, nor anywhere the API answers.
    await page.reload();
    await item.waitFor();
    expect(await page.getByRole('textbox', { name: 'Signing secret' }).count()).toBe(0);
    expect(await page.content()).not.toContain(secret.slice(6));
    const listed = await (await page.request.get(`${origin}/api/webhooks`, { headers: { 'x-workspace-id': workspaceId } })).text();
    expect(listed).not.toContain(secret.slice(6));
    const { id } = (JSON.parse(listed) as { id: string }[])[0]!;

    // Its page: a test is sent and its delivery is in the log.
    await item.getByRole('link', { name: `Deliveries and settings of ${receiver.url}` }).click();
    const facts = page.getByRole('region', { name: new RegExp(escape(receiver.url)) });
    await facts.getByText('CRM sync').waitFor();
    expect(await nav.getByRole('link', { name: 'Webhooks' }).getAttribute('aria-current')).toBe('true');
    await log(page).getByText('No deliveries yet').waitFor();
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page.getByText('A test event is on its way').waitFor();
    const row = log(page).getByRole('row').filter({ hasText: 'webhook.test' });
    await row.first().waitFor();
    expect(await row.count()).toBe(1);
    // The receiver answers 200: the delivery succeeds (pending only until the worker sends it).
    await logShows(page, /webhook\.test.*Succeeded.*200/);
    expect(sentTo(receiver.received, id)).toHaveLength(1);
    await d.checkAccessibility(page, 'webhooks-endpoint-en');

    // Roll the secret: the new one is shown once.
    await page.getByRole('button', { name: 'Roll the secret' }).click();
    await page.getByRole('button', { name: 'Yes, make a new secret' }).click();
    const rolled = await page.getByRole('textbox', { name: 'Signing secret' }).inputValue();
    expect(rolled).toMatch(/^whsec_/);
    expect(rolled).not.toBe(secret);
    await page.getByRole('button', { name: 'Done' }).click();

    // Retry from the log; recover what failed since yesterday (the form's default).
    await row.getByRole('button', { name: /^Retry webhook\.test / }).click();
    await page.getByText('queued to be sent again').waitFor();
    await expect.poll(() => sentTo(receiver.received, id).length, { timeout: 20_000 }).toBe(2);
    // Both attempts succeeded: nothing to recover.
    await page.getByRole('button', { name: 'Send failed deliveries again' }).click();
    await page.getByText('No delivery failed since that time.').waitFor();

    // Edit the events; disable (no test then), enable; delete.
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    await page.getByRole('checkbox', { name: /link\.clicked/ }).check();
    await page.getByRole('checkbox', { name: /sale\.created/ }).uncheck();
    await page.getByLabel('Description').fill('');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await facts.getByText('link.clicked').waitFor();
    expect(await facts.getByText('sale.created').count()).toBe(0);
    expect(await facts.getByText('CRM sync').count()).toBe(0);
    await page.getByRole('button', { name: 'Disable', exact: true }).click();
    await page.getByRole('button', { name: 'Yes, disable' }).click();
    await facts.getByText('Disabled by hand').waitFor();
    expect(await page.getByRole('button', { name: 'Send a test event' }).isDisabled()).toBe(true);
    expect(
      await log(page)
        .getByRole('button', { name: /^Retry/ })
        .count(),
    ).toBe(0);
    const after = await page.request.get(`${origin}/api/webhooks`, { headers: { 'x-workspace-id': workspaceId } });
    expect((await after.json())[0]).toMatchObject({ disabled: true, disabledReason: 'manual', description: null, events: ['link.created', 'link.clicked'] });
    await d.checkAccessibility(page, 'webhooks-disabled-en');
    await page.getByRole('button', { name: 'Enable', exact: true }).click();
    await facts.getByText('Active').waitFor();
    await page.getByRole('button', { name: 'Delete endpoint' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await page.getByText('No endpoints yet').waitFor();
    expect(page.url()).toBe(`${origin}/app/settings/webhooks`);
    expect(d.cspViolations).toEqual([]);
  });

  it('deliveries reach the receiver signed with the secret; a failure shows its answer and Retry sends it again', async () => {
    const page = await newPage();
    await d.signIn(page, OWNER);
    const made = await page.request.post(`${origin}/api/webhooks`, {
      headers: { 'x-workspace-id': workspaceId, origin },
      data: { url: receiver.url, events: ['link.created'] },
    });
    expect(made.status(), await made.text()).toBe(201);
    const { id, secret } = await made.json();
    const received = () => sentTo(receiver.received, id);
    await open(page, `/settings/webhooks/${id}`, 'Webhooks');
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await expect.poll(() => received().length, { timeout: 20_000 }).toBe(1);
    const first = received()[0]!;
    expect(JSON.parse(first.body)).toMatchObject({ type: 'webhook.test', data: { webhookId: id } });
    expect(verifies(first, secret)).toBe(true);
    await logShows(page, /webhook\.test.*Succeeded.*200/);

    // After a roll both secrets sign, for a day.
    await page.getByRole('button', { name: 'Roll the secret' }).click();
    await page.getByRole('button', { name: 'Yes, make a new secret' }).click();
    const rolled = await page.getByRole('textbox', { name: 'Signing secret' }).inputValue();
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await expect.poll(() => received().length, { timeout: 20_000 }).toBe(2);
    const second = received()[1]!;
    expect(signaturesOf(second)).toHaveLength(2);
    expect(verifies(second, rolled) && verifies(second, secret)).toBe(true);

    // The receiver fails: the log says so, with its answer; Retry sends the same event again.
    receiver.answer.status = 500;
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await expect.poll(() => received().length, { timeout: 20_000 }).toBe(3);
    await logShows(page, /webhook\.test.*500/);
    // It waits for its retry, an hour away: one pending, none due. The filter shows it alone, then the two successes.
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Refresh' }).click();
          return log(page)
            .getByText(/pending ·/)
            .textContent();
        },
        { timeout: 10_000, interval: 500 },
      )
      .toBe('1 pending · each waiting for its next attempt');
    await log(page).getByLabel('Show').selectOption('pending');
    await expect.poll(() => log(page).getByRole('row').filter({ hasText: 'webhook.test' }).count()).toBe(1);
    await log(page)
      .getByRole('row')
      .filter({ hasText: /Pending.*500/ })
      .waitFor();
    await log(page).getByLabel('Show').selectOption('succeeded');
    await expect.poll(() => log(page).getByRole('row').filter({ hasText: 'webhook.test' }).count()).toBe(2);
    // The outcome cell, not the row: an event id or a duration (1,500 ms) may contain "500" too.
    const answered500 = () =>
      log(page)
        .getByRole('row')
        .filter({ has: page.locator('.wh-outcome', { hasText: /^500\b/ }) });
    expect(await answered500().count()).toBe(0);
    await log(page).getByLabel('Show').selectOption('');
    await expect.poll(() => log(page).getByRole('row').filter({ hasText: 'webhook.test' }).count()).toBe(3);
    const failing = answered500().first();
    await failing.getByText('Answer').click();
    await failing.getByText('receiver is down').waitFor();
    await d.checkAccessibility(page, 'webhooks-log-en');
    receiver.answer.status = 200;
    await failing.getByRole('button', { name: /^Retry webhook\.test/ }).click();
    await expect.poll(() => received().length, { timeout: 20_000 }).toBe(4);
    expect(received()[3]!.headers['webhook-id']).toBe(received()[2]!.headers['webhook-id']);
  });

  it('the keyboard alone registers an endpoint and sends a test', async () => {
    const page = await newPage();
    await d.signIn(page, OWNER);
    await open(page, '/settings/webhooks', 'Webhooks');
    await tabTo(page, 'New endpoint');
    await page.keyboard.press('Enter');
    await page.keyboard.type(receiver.url);
    // Description, then the first event.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Space');
    expect(await page.getByRole('checkbox', { name: /link\.created/ }).isChecked()).toBe(true);
    await tabTo(page, 'Add endpoint');
    await page.keyboard.press('Enter');
    await page.getByRole('textbox', { name: 'Signing secret' }).waitFor();
    // The secret takes the focus: it is read by a screen reader at once.
    expect(await page.evaluate<string>('document.activeElement.getAttribute("aria-label")')).toBe('Signing secret');
    await tabTo(page, 'Done');
    await page.keyboard.press('Enter');
    await tabTo(page, `Deliveries and settings of ${receiver.url}`);
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Send a test event' }).waitFor();
    await tabTo(page, 'Send a test event');
    await page.keyboard.press('Enter');
    await log(page).getByRole('row').filter({ hasText: 'webhook.test' }).first().waitFor();
  });

  it('a member and a viewer (no webhook scopes) see no Webhooks entry and cannot open it', async () => {
    const owner = await newPage();
    await d.signIn(owner, OWNER);
    for (const [person, role] of [
      [MEMBER, 'member'],
      [VIEWER, 'viewer'],
    ] as const) {
      const invite = await owner.request.post(`${origin}/api/workspaces/${workspaceId}/invites`, { headers: { origin }, data: { email: person.email, role } });
      expect(invite.status(), await invite.text()).toBe(201);
      const token = new URL((await invite.json()).url).searchParams.get('token');
      const page = await newPage();
      const accepted = await page.request.post(`${origin}/api/invites/accept`, {
        headers: { origin },
        data: { token, name: person.name, password: person.password },
      });
      expect(accepted.status(), await accepted.text()).toBe(201);
      await page.goto(`${origin}/app`);
      const nav = page.getByRole('navigation', { name: 'Main' });
      await nav.getByRole('link', { name: 'Overview' }).waitFor();
      expect(await nav.getByRole('link', { name: 'Settings' }).count(), role).toBe(0);
      await page.goto(`${origin}/app/settings/webhooks`);
      await page.getByText('There is no page here.').waitFor();
      expect(await page.getByRole('link', { name: 'Webhooks' }).count(), role).toBe(0);
      // And the API agrees: the scope is missing.
      const listed = await page.request.get(`${origin}/api/webhooks`, { headers: { 'x-workspace-id': workspaceId } });
      expect(listed.status(), role).toBe(403);
    }
  });

  it('Arabic at 375 px: right-to-left, translated, no overflow', async () => {
    const page = await newPage('ar-EG', PHONE);
    const login = await page.request.post(`${origin}/api/auth/login`, { headers: { origin }, data: { email: OWNER.email, password: OWNER.password } });
    expect(login.status()).toBe(200);
    await open(page, '/settings/webhooks', 'خطافات الويب');
    expect(await page.evaluate<string>('document.documentElement.dir')).toBe('rtl');
    await page.getByRole('button', { name: 'نقطة استقبال جديدة' }).click();
    await page.getByLabel('عنوان نقطة الاستقبال').fill(receiver.url);
    await page.getByRole('checkbox', { name: /link\.deleted/ }).check();
    await d.checkAccessibility(page, 'webhooks-form-ar');
    await page.getByRole('button', { name: 'إضافة نقطة الاستقبال' }).click();
    await page.getByRole('textbox', { name: 'سرّ التوقيع' }).waitFor();
    await d.checkAccessibility(page, 'webhooks-created-ar');
    await page.getByRole('button', { name: 'تم' }).click();
    await page
      .getByRole('link', { name: /^عمليات التسليم والإعدادات/ })
      .first()
      .click();
    await page.getByRole('button', { name: 'إرسال حدث تجريبي' }).click();
    await page.getByRole('region', { name: 'سجل التسليم' }).getByRole('row').filter({ hasText: 'webhook.test' }).first().waitFor();
    await d.checkAccessibility(page, 'webhooks-endpoint-ar');
  });
});
