/**
 * Daily use in Chromium (operations.md §14): a link's page is named after the link (its h1 and the
 * browser tab, the short URL when it has no title) in both languages; the link form keeps Partner,
 * External ID, Tenant ID and cloaking under an Advanced disclosure, closed for a new link, open when
 * one of them holds a value, and opened by the API's 400 naming one of them (its error at the field).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dashboardRunnable, OWNER, PHONE, SCREENSHOTS, startDashboard, type Dashboard } from './dashboard-harness.js';

describe.skipIf(!dashboardRunnable())('daily use of the dashboard in Chromium', () => {
  let d: Dashboard;
  beforeAll(async () => {
    d = await startDashboard();
  });
  afterEach(async () => d.closeContexts());
  afterAll(async () => d?.close());

  it('a link page titled after its link in English and Arabic; Advanced closed, then opened by a value or a 400', async () => {
    const page = await d.newPage('en-US');
    const { headers } = await d.setUpOwner(page);
    const [collection] = await (await page.request.post(`${d.origin}/api/collections`, { headers, data: [{ name: 'Print' }] })).json();
    const made = await page.request.post(`${d.origin}/api/links`, {
      headers,
      data: [
        { url: 'https://example.com/flyer', collectionId: collection.id, title: 'Flyer' },
        { url: 'https://example.com/poster', collectionId: collection.id, externalId: 'crm-42' },
      ],
    });
    expect(made.status(), await made.text()).toBe(201);
    const [flyer, poster] = (await made.json()) as { id: string; shortUrl: string }[];

    // The link page: its title in the h1 and the tab; the short URL when it has none.
    await page.goto(`${d.origin}/app/links/${flyer!.id}`);
    await page.getByRole('heading', { name: 'Flyer', level: 1 }).waitFor();
    expect(await page.getByRole('heading', { level: 1 }).count()).toBe(1);
    expect(await page.title()).toBe('Flyer · Linktrail');
    await page.screenshot({ path: `${SCREENSHOTS}/daily-link-title-en-1280.png` });
    await page.goto(`${d.origin}/app/links/${poster!.id}`);
    await page.getByRole('heading', { name: poster!.shortUrl, level: 1 }).waitFor();
    expect(await page.title()).toBe(`${poster!.shortUrl} · Linktrail`);
    await page.goto(`${d.origin}/app/links`);
    await expect.poll(() => page.title()).toBe('Links · Linktrail');

    const ar = await d.newPage('ar-EG', PHONE);
    const signedIn = await ar.request.post(`${d.origin}/api/auth/login`, {
      headers: { origin: d.origin },
      data: { email: OWNER.email, password: OWNER.password },
    });
    expect(signedIn.status(), await signedIn.text()).toBe(200);
    await ar.goto(`${d.origin}/app/links/${flyer!.id}`);
    await ar.getByRole('heading', { name: 'Flyer', level: 1 }).waitFor();
    expect(await ar.title()).toBe('Flyer · لينكتريل');
    await ar.screenshot({ path: `${SCREENSHOTS}/daily-link-title-ar-375.png` });
    await ar.goto(`${d.origin}/app/links`);
    await expect.poll(() => ar.title()).toBe('الروابط · لينكتريل');
    await ar.getByRole('button', { name: 'رابط جديد' }).click();
    await ar.getByText('خيارات متقدمة', { exact: true }).waitFor();
    expect(await ar.locator('details.links-advanced').evaluate((el) => (el as unknown as { open: boolean }).open)).toBe(false);

    // A new link: Advanced is closed, its fields hidden; clicking the summary shows them.
    await page.getByRole('button', { name: 'New link' }).click();
    const dialog = page.getByRole('dialog', { name: 'New link' });
    const advanced = dialog.locator('details.links-advanced');
    const isOpen = () => advanced.evaluate((el) => (el as unknown as { open: boolean }).open);
    expect(await isOpen()).toBe(false);
    expect(await dialog.getByLabel('External ID').isVisible()).toBe(false);
    await advanced.scrollIntoViewIfNeeded();
    await d.checkAccessibility(page, 'daily-link-form-closed-en');
    await dialog.getByText('Advanced', { exact: true }).click();
    await dialog.getByLabel('External ID').waitFor();
    expect(await dialog.getByLabel('Tenant ID').isVisible()).toBe(true);
    expect(await dialog.getByLabel('Partner').isVisible()).toBe(true);

    // The API's 400 names Tenant ID while Advanced is closed: it opens, with the error at the field.
    await dialog.getByLabel('Destination URL', { exact: true }).fill('https://example.com/card');
    await dialog.getByLabel('Tenant ID').fill('t'.repeat(256));
    await dialog.getByText('Advanced', { exact: true }).click();
    await expect.poll(isOpen).toBe(false);
    await dialog.getByRole('button', { name: 'Create link' }).click();
    await page.locator('#link-tenantId-error').waitFor({ state: 'visible' });
    expect(await isOpen()).toBe(true);
    expect(await dialog.getByLabel('Tenant ID').getAttribute('aria-invalid')).toBe('true');
    expect(await page.evaluate('document.activeElement?.id')).toBe('link-tenantId');
    await page.screenshot({ path: `${SCREENSHOTS}/daily-link-form-error-en-1280.png` });
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    // Editing a link with an External ID: Advanced is open from the start.
    await page.getByRole('button', { name: `Edit ${poster!.shortUrl}` }).click();
    const edit = page.getByRole('dialog', { name: 'Edit link' });
    await edit.getByLabel('External ID').waitFor();
    expect(await edit.getByLabel('External ID').inputValue()).toBe('crm-42');
    await edit.getByLabel('External ID').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SCREENSHOTS}/daily-link-form-open-en-1280.png` });
    expect(d.cspViolations).toEqual([]);
  });
});
