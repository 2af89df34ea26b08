/**
 * Settings → Tracking in Chromium (operations.md §19): an owner lists the hostnames (one exact,
 * one wildcard), saves and gets the publishable key, copies the script tag that carries it,
 * rotates keeping the former key 24 hours (the new key and the former's end shown), lets
 * browsers report sales (the API confirms each step); a lead from a page of the site (the
 * publishable key, Origin https://shop.example) shows on the conversions page as from a browser,
 * a lead from a server (an API key) as from a server. In English at 1280 px and Arabic at 375 px
 * (the API's refusal of a bad hostname in Arabic), axe clean at both widths.
 * Page code runs as strings (this file is type-checked without the DOM library).
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP as DESKTOP_UA } from '../helpers/visitors.js';
import { dashboardRunnable, OWNER, PHONE, startDashboard, type Dashboard } from './dashboard-harness.js';

const SITE = 'https://shop.example';
/** The Arabic test's owner, in a workspace of their own (no key yet there). */
const NOUR = { name: 'Nour Tracking', email: 'nour.tracking@example.com', password: 'amber-lantern-38-harbour' };
type Tracking = { publishableKey: string | null; previousKeyExpiresAt: string | null; allowedHostnames: string[]; clientSales: boolean };

describe.skipIf(!dashboardRunnable())('Settings → Tracking in Chromium', () => {
  let d: Dashboard;
  let headers: Record<string, string>;
  let workspaceId: string;
  beforeAll(async () => {
    d = await startDashboard();
    ({ headers, workspaceId } = await d.setUpOwner(await d.newPage()));
    await d.closeContexts();
  });
  afterEach(async () => d.closeContexts());
  afterAll(async () => d?.close());

  /** A call as the page's person in the workspace of `h`. */
  const api = async (page: Page, method: 'get' | 'post', path: string, h: Record<string, string>, data?: unknown) => {
    const res = await page.request[method](`${d.origin}${path}`, { headers: h, data });
    expect(res.status(), await res.text()).toBeLessThan(300);
    return res.json();
  };
  const tracking = (page: Page, h: Record<string, string>) => api(page, 'get', '/api/tracking', h) as Promise<Tracking>;
  const keyField = (page: Page, name: string) => page.getByRole('textbox', { name, exact: true });

  /**
   * A lead from a page of the site (the publishable key, the site's Origin: source client) and one
   * from a server (an API key: source server), each on its own click of a new link.
   */
  async function twoLeads(page: Page, h: Record<string, string>, wsId: string, publishableKey: string) {
    const [collection] = await api(page, 'post', '/api/collections', h, [{ name: 'Shop pages' }]);
    const [link] = await api(page, 'post', '/api/links', h, [{ url: `${SITE}/welcome`, collectionId: collection.id }]);
    const shortId = new URL(link.shortUrl).pathname.slice(1);
    const fromPage = (url: string, body: unknown, ip: string) =>
      d.t.inject({
        method: 'POST',
        url,
        remoteAddress: ip,
        headers: { authorization: `Bearer ${publishableKey}`, origin: SITE, 'content-type': 'application/json', 'user-agent': DESKTOP_UA },
        payload: JSON.stringify(body),
      });
    const click = async (ip: string) => {
      const res = await fromPage('/api/track/click', { shortId }, ip);
      expect(res.statusCode, res.body).toBe(200);
      return res.json<{ clickId: string }>().clickId;
    };
    const browserLead = await fromPage(
      '/api/track/lead/client',
      { clickId: await click('81.2.69.160'), eventName: 'Browser sign-up', customerExternalId: 'cus_page', customerName: 'Page Visitor' },
      '81.2.69.160',
    );
    expect(browserLead.statusCode, browserLead.body).toBe(200);
    expect(browserLead.json()).toMatchObject({ source: 'client' });

    const made = await api(page, 'post', `/api/workspaces/${wsId}/keys`, { origin: d.origin }, { name: 'Checkout server', scopes: ['conversionsWrite'] });
    const serverLead = await d.t.inject({
      method: 'POST',
      url: '/api/track/lead',
      headers: { authorization: `Bearer ${made.key}`, 'content-type': 'application/json' },
      payload: JSON.stringify({
        clickId: await click('5.9.0.1'),
        eventName: 'Server sign-up',
        customerExternalId: 'cus_server',
        customerName: 'Server Customer',
      }),
    });
    expect(serverLead.statusCode, serverLead.body).toBe(200);
    expect(serverLead.json()).toMatchObject({ source: 'server' });
  }

  /** The source badge of the row of an event name in the conversions table: its words and its value. */
  async function sourceOf(page: Page, tableName: string, eventName: string) {
    const row = page.getByRole('region', { name: tableName }).getByRole('row').filter({ hasText: eventName });
    await row.waitFor();
    const badge = row.locator('.conv-source');
    return { words: await badge.textContent(), value: await badge.getAttribute('data-source') };
  }

  it('en at 1280 px: hostnames, the key, the script tag, rotate keeping 24 h, clientSales; leads by source', async () => {
    const page = await d.clipboardPage('en-US');
    await d.signInWithApi(page, OWNER);
    // Settings → Tracking through the settings' own navigation.
    await d.open(page, '/settings', 'Settings');
    await page.getByRole('navigation', { name: 'Section' }).getByRole('link', { name: 'Tracking', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Tracking' }).waitFor();
    await page.getByText('None yet — save hostnames to create one.').waitFor();
    expect(await page.getByText('No hostnames yet: no page may track.').count()).toBe(1);

    // Enter adds a hostname to the list; Save sends the list.
    const hostname = page.getByRole('textbox', { name: 'Hostname to add' });
    await hostname.fill('shop.example');
    await hostname.press('Enter');
    await hostname.fill('*.shop.example');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    const listed = page.getByRole('list', { name: 'Allowed hostnames' }).getByRole('listitem');
    await expect.poll(() => listed.allTextContents()).toEqual(['shop.exampleRemove', '*.shop.exampleRemove']);
    await page.getByRole('button', { name: 'Save hostnames' }).click();
    await page.getByRole('status').filter({ hasText: 'Hostnames saved.' }).waitFor();
    await expect.poll(() => keyField(page, 'Publishable key').inputValue()).toMatch(/^lt_pk_[A-Za-z0-9_-]{43}$/);
    const first = await keyField(page, 'Publishable key').inputValue();
    expect(await tracking(page, headers)).toEqual({
      publishableKey: first,
      previousKeyExpiresAt: null,
      allowedHostnames: ['shop.example', '*.shop.example'],
      clientSales: false,
    });

    // The script tag carries the key and this server's origin, and Copy puts it on the clipboard.
    const tag = `<script src="${d.origin}/attribution.js" data-publishable-key="${first}" defer></script>`;
    expect(await keyField(page, 'The script tag').inputValue()).toBe(tag);
    await page.getByRole('button', { name: 'Copy: script tag' }).click();
    await page.getByRole('status').filter({ hasText: 'Copied' }).waitFor();
    const copied = await page.evaluate<string>('navigator.clipboard.readText()');
    expect(copied).toBe(tag);
    expect(copied).toContain(first);

    // Rotate, keeping the former key 24 hours: asked first, then the new key and the former's end.
    expect(await page.getByRole('radio', { name: 'Keep it working for 24 hours beside the new one' }).isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Rotate key' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Make a new publishable key?' });
    await dialog.getByRole('button', { name: 'Yes, rotate' }).click();
    await page.getByRole('status').filter({ hasText: 'A new key was made.' }).waitFor();
    await expect.poll(() => keyField(page, 'Publishable key').inputValue()).not.toBe(first);
    const second = await keyField(page, 'Publishable key').inputValue();
    expect(second).toMatch(/^lt_pk_/);
    await page.getByText(/^The former key keeps working until .+\.$/).waitFor();
    expect(await keyField(page, 'The script tag').inputValue()).toContain(second);
    const rotated = await tracking(page, headers);
    expect(rotated.publishableKey).toBe(second);
    expect(Date.parse(rotated.previousKeyExpiresAt!) - Date.now()).toBeGreaterThan(23 * 3_600_000);

    // Browsers may report sales: saved at once, the hostnames kept.
    await page.getByRole('checkbox', { name: 'Let browsers report sales' }).check();
    await page.getByRole('status').filter({ hasText: 'Browsers may now report sales.' }).waitFor();
    await expect.poll(async () => (await tracking(page, headers)).clientSales).toBe(true);
    expect((await tracking(page, headers)).allowedHostnames).toEqual(['shop.example', '*.shop.example']);
    await d.checkAccessibility(page, 'tracking-en');

    // A page's lead and a server's, each with its source on the conversions page.
    await twoLeads(page, headers, workspaceId, second);
    await d.open(page, '/conversions', 'Conversions');
    expect(await sourceOf(page, 'Leads and sales (scrolls sideways)', 'Browser sign-up')).toEqual({ words: 'Browser', value: 'client' });
    expect(await sourceOf(page, 'Leads and sales (scrolls sideways)', 'Server sign-up')).toEqual({ words: 'Server', value: 'server' });
    expect(await page.getByRole('columnheader', { name: 'Source' }).count()).toBe(1);
    await d.checkAccessibility(page, 'tracking-conversions-en');
    expect(d.cspViolations).toEqual([]);
  });

  it('ar at 375 px: the API refuses a bad hostname in Arabic; the key, and the sources in Arabic', async () => {
    const page = await d.newPage('ar-EG', PHONE);
    const { headers: h, workspaceId: wsId } = await d.workspaceOf(NOUR);
    await d.signInWithApi(page, NOUR);
    // The person's own workspace is the one the app opens (their only one).
    await d.open(page, '/settings/tracking', 'التتبّع');
    await page.getByText('لا يوجد بعد — احفظ أسماء المضيفين لإنشائه.').waitFor();
    const hostname = page.getByRole('textbox', { name: 'اسم المضيف المراد إضافته' });
    await hostname.fill('shop.example');
    await page.getByRole('button', { name: 'إضافة', exact: true }).click();
    // Typed but not added: Save sends it too, and the API says what is wrong with it.
    await hostname.fill('http://bad host');
    await page.getByRole('button', { name: 'حفظ أسماء المضيفين' }).click();
    const refusal = page.getByRole('alert').filter({ hasText: 'يجب أن يكون اسم مضيف' });
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain('allowedHostnames[1]');
    expect((await tracking(page, h)).publishableKey).toBeNull();
    await d.checkAccessibility(page, 'tracking-error-ar');

    // Removed, the list saves and the key shows.
    await page.getByRole('button', { name: /^إزالة .*http:\/\/bad host/ }).click();
    await page.getByRole('button', { name: 'حفظ أسماء المضيفين' }).click();
    await page.getByRole('status').filter({ hasText: 'حُفظت أسماء المضيفين.' }).waitFor();
    await expect.poll(() => keyField(page, 'المفتاح القابل للنشر').inputValue()).toMatch(/^lt_pk_/);
    const key = await keyField(page, 'المفتاح القابل للنشر').inputValue();
    expect((await tracking(page, h)).publishableKey).toBe(key);
    expect(await keyField(page, 'وسم السكربت').inputValue()).toContain(`data-publishable-key="${key}"`);
    await d.checkAccessibility(page, 'tracking-ar');

    await twoLeads(page, h, wsId, key);
    await d.open(page, '/conversions', 'التحويلات');
    const table = 'العملاء المحتملون والمبيعات (جدول يمكن تمريره أفقيًا)';
    expect(await sourceOf(page, table, 'Browser sign-up')).toEqual({ words: 'المتصفح', value: 'client' });
    expect(await sourceOf(page, table, 'Server sign-up')).toEqual({ words: 'الخادم', value: 'server' });
    await d.checkAccessibility(page, 'tracking-conversions-ar');
    expect(d.cspViolations).toEqual([]);
  });
});
