/**
 * Branded short links in Chromium: the link form's Domain (the short-link host and the
 * workspace's active hosts) and Short path, checked as one types (available, taken, reserved,
 * not a path); the list shows the branded short URL, which redirects; an edit keeps its own
 * path without calling it taken; Arabic at 375 px. Page code runs as strings (this file is
 * type-checked without the DOM library).
 */
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN } from '../helpers/app.js';
import { dashboardRunnable, PHONE, startDashboard, type Dashboard } from './dashboard-harness.js';

describe.skipIf(!dashboardRunnable())('branded short links in the link form', () => {
  let d: Dashboard;
  let headers: Record<string, string>;
  const host = `go-${randomBytes(4).toString('hex')}.example`;

  beforeAll(async () => {
    d = await startDashboard();
    const page = await d.newPage();
    ({ headers } = await d.setUpOwner(page));
    const made = await page.request.post(`${d.origin}/api/collections`, { headers, data: [{ name: 'Spring' }] });
    expect(made.status(), await made.text()).toBe(201);
    const claimed = await page.request.post(`${d.origin}/api/domains`, { headers, data: { host } });
    expect(claimed.status(), await claimed.text()).toBe(201);
    const verified = await page.request.post(`${d.origin}/admin/domains/${(await claimed.json()).id}/verify`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(verified.status(), await verified.text()).toBe(200);
    await d.closeContexts();
  });
  afterEach(async () => d.closeContexts());
  afterAll(async () => d?.close());

  const shortHost = () => new URL(d.origin).host;

  async function signedIn(locale = 'en-US', viewport?: { width: number; height: number }): Promise<Page> {
    const page = await d.newPage(locale, viewport);
    const res = await page.request.post(`${d.origin}/api/auth/login`, {
      headers: { origin: d.origin },
      data: { email: 'maya@example.com', password: 'violet-harbour-91-lantern' },
    });
    expect(res.status(), await res.text()).toBe(200);
    return page;
  }

  async function openNewLink(page: Page, name: string) {
    await d.open(page, '/links', name === 'New link' ? 'Links' : 'الروابط');
    await page.getByRole('button', { name }).click();
    return page.getByRole('dialog', { name: name === 'New link' ? 'New link' : 'رابط جديد' });
  }

  it('types a path: available, then taken, reserved, not a path; creates it on either host; the list shows it and it redirects', async () => {
    const page = await signedIn();
    let dialog = await openNewLink(page, 'New link');
    const domain = dialog.getByLabel('Domain', { exact: true });
    await expect.poll(() => domain.locator('option').allTextContents()).toEqual([shortHost(), host]);
    expect(await domain.inputValue()).toBe(shortHost());
    const status = dialog.locator('#link-key-status');

    const key = `spring-${randomBytes(3).toString('hex')}`;
    await dialog.getByLabel('Destination URL', { exact: true }).fill('https://shop.example/spring');
    await dialog.getByLabel('Short path', { exact: true }).fill('api/x');
    await status.getByText('Reserved: this path belongs to the service itself.', { exact: false }).waitFor();
    expect(await dialog.getByLabel('Short path', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    await dialog.getByLabel('Short path', { exact: true }).fill('/spring');
    await status.getByText('Not a valid short path', { exact: false }).waitFor();
    await dialog.getByLabel('Short path', { exact: true }).fill(key);
    await status.getByText(`Available: ${d.origin}/${key}`).waitFor();
    expect(await dialog.getByLabel('Short path', { exact: true }).getAttribute('aria-invalid')).toBeNull();
    await d.checkAccessibility(page, 'branded-form-en');
    await dialog.getByRole('button', { name: 'Create link' }).click();
    await page.getByText('Link created.').waitFor();
    await page.getByRole('link', { name: `${d.origin}/${key}` }).waitFor();
    const visit = await page.request.get(`${d.origin}/${key}`, { maxRedirects: 0 });
    expect(visit.status()).toBe(302);
    expect(visit.headers().location).toMatch(/^https:\/\/shop\.example\/spring/);

    // The same path again: taken on the short-link host, free on the brand's own host.
    dialog = await openNewLink(page, 'New link');
    await dialog.getByLabel('Destination URL', { exact: true }).fill('https://shop.example/autumn');
    await dialog.getByLabel('Short path', { exact: true }).fill(key);
    await dialog.locator('#link-key-status').getByText('Taken:', { exact: false }).waitFor();
    await dialog.getByLabel('Domain', { exact: true }).selectOption(host);
    await dialog.locator('#link-key-status').getByText(`Available: https://${host}/${key}`).waitFor();
    await dialog.getByRole('button', { name: 'Create link' }).click();
    await page.getByText('Link created.').waitFor();
    await page.getByRole('link', { name: `https://${host}/${key}` }).waitFor();
    const branded = await d.t.inject({ method: 'GET', url: `/${key}`, headers: { host } });
    expect(branded.statusCode).toBe(302);
    expect(branded.headers.location).toMatch(/^https:\/\/shop\.example\/autumn/);

    // An edit shows the link's own path, says nothing about it, and saves without changing it.
    await page.getByRole('button', { name: `Edit ${d.origin}/${key}` }).click();
    dialog = page.getByRole('dialog');
    expect(await dialog.getByLabel('Short path', { exact: true }).inputValue()).toBe(key);
    expect(await dialog.getByLabel('Domain', { exact: true }).inputValue()).toBe(shortHost());
    expect(await dialog.locator('#link-key-status').textContent()).toBe('');
    await dialog.getByLabel('Title').fill('Spring sale');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Changes saved.').waitFor();
    const listed = await page.request.get(`${d.origin}/api/links?key=${key}`, { headers });
    expect(await listed.json()).toMatchObject([{ title: 'Spring sale', key, domain: shortHost(), shortUrl: `${d.origin}/${key}` }]);
    expect(d.cspViolations).toEqual([]);
  });

  it('a form opened before the collections answer takes the default collection when they do, and creates the link', async () => {
    const page = await signedIn();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/collections?*', async (route) => {
      await held;
      await route.continue();
    });
    const dialog = await openNewLink(page, 'New link');
    const collection = dialog.getByLabel('Collection', { exact: true });
    expect(await collection.inputValue()).toBe('');
    release();
    await expect.poll(() => collection.locator('option:checked').textContent()).toBe('Spring');
    const key = `early-${randomBytes(3).toString('hex')}`;
    await dialog.getByLabel('Destination URL', { exact: true }).fill('https://shop.example/early');
    await dialog.getByLabel('Short path', { exact: true }).fill(key);
    await dialog.getByRole('button', { name: 'Create link' }).click();
    await page.getByText('Link created.').waitFor();
    const listed = await page.request.get(`${d.origin}/api/links?key=${key}`, { headers });
    expect(await listed.json()).toMatchObject([{ key, url: 'https://shop.example/early' }]);
  });

  it('Arabic at 375 px: the fields and the check speak Arabic, right-to-left, nothing overflows', async () => {
    const taken = `taken-${randomBytes(3).toString('hex')}`;
    const page = await signedIn('ar-EG', PHONE);
    const [collection] = await (await page.request.get(`${d.origin}/api/collections`, { headers })).json();
    const made = await page.request.post(`${d.origin}/api/links`, {
      headers,
      data: [{ url: 'https://shop.example/', collectionId: collection.id, key: taken }],
    });
    expect(made.status(), await made.text()).toBe(201);
    const dialog = await openNewLink(page, 'رابط جديد');
    await dialog.getByLabel('النطاق').waitFor();
    await dialog.getByLabel('المسار المختصر').fill(taken);
    await dialog.locator('#link-key-status').getByText('مأخوذ:', { exact: false }).waitFor();
    expect(await page.evaluate('[document.documentElement.lang, document.documentElement.dir]')).toEqual(['ar', 'rtl']);
    await d.checkAccessibility(page, 'branded-form-ar');
    expect(d.cspViolations).toEqual([]);
  });
});
