/**
 * The Links page in Chromium (operations.md §10): an owner creates a link with the keyboard
 * alone, sees the API's error at the field it names, imports 2,000 links from a CSV with 3 bad
 * rows (reported by row number; the 1,997 good ones are written, the total shows), exports
 * the list to a CSV, narrows it by search and collection, copies a short URL, opens a QR code,
 * edits and deletes; a viewer sees no write buttons; axe at both widths in English and in
 * Arabic (right-to-left at 375 px). Page code runs as strings (this file is type-checked
 * without the DOM library).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dashboardRunnable, OWNER, PHONE, startDashboard, type Dashboard } from './dashboard-harness.js';

const VIEWER = { name: 'Vera Viewer', email: 'vera@example.com', password: 'amber-quarry-58-lighthouse' };
const BAD_ROWS = { 100: 'http', 1001: 'missing', 1900: 'tag' } as Record<number, string>;

describe.skipIf(!dashboardRunnable)('the Links page in Chromium', () => {
  let d: Dashboard;
  let origin: string;
  let workspaceId: string;
  beforeAll(async () => {
    d = await startDashboard();
    origin = d.origin;
  });
  afterEach(async () => d.closeContexts());
  afterAll(async () => d?.close());

  const text = (page: Page, selector: string) => page.locator(selector).first().textContent();

  it('owner: keyboard create, field error, CSV import of 2,000 and export, search and filter, copy, QR, edit, delete', async () => {
    const page = await d.newPage('en-US');
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    const owner = await d.setUpOwner(page);
    workspaceId = owner.workspaceId;
    const made = await page.request.post(`${origin}/api/collections`, { headers: owner.headers, data: [{ name: 'Spring' }, { name: 'Autumn' }] });
    expect(made.status(), await made.text()).toBe(201);
    const [spring, autumn] = (await made.json()) as { id: string }[];

    await page.goto(`${origin}/app/links`);
    await page.getByText('No links yet — create one with New link or import a CSV').waitFor();
    await expect.poll(() => page.locator('#links-filter-collectionId option').count()).toBe(3);

    // The keyboard alone: Tab to New link, Enter, type, Tab, type, Enter.
    for (let i = 0; i < 30 && (await page.evaluate('document.activeElement?.textContent')) !== 'New link'; i++) await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'New link' }).waitFor();
    expect(await page.evaluate('document.activeElement?.id')).toBe('link-url');
    expect(await page.evaluate('document.activeElement?.labels[0]?.textContent')).toBe('Destination URL');
    await page.keyboard.type('https://example.com/spring-sale');
    await page.keyboard.press('Tab'); // Collection (Spring, the first, is chosen)
    await page.keyboard.press('Tab'); // Title
    await page.keyboard.type('Spring sale');
    await page.keyboard.press('Enter');
    await page.getByRole('link', { name: 'Spring sale' }).waitFor();
    expect(await page.getByRole('dialog').count()).toBe(0);
    await d.checkAccessibility(page, 'links-en');

    // The API's own message at the field it names.
    await page.getByRole('button', { name: 'New link' }).click();
    await page.getByLabel('Destination URL', { exact: true }).fill('http://example.com/plain');
    await page.getByRole('button', { name: 'Create link' }).click();
    await page.locator('#link-url-error').waitFor();
    expect(await text(page, '#link-url-error')).toMatch(/https/);
    expect(await page.getByLabel('Destination URL', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('Destination URL', { exact: true }).getAttribute('aria-describedby')).toBe('link-url-error');
    expect(await page.evaluate('document.activeElement?.id')).toBe('link-url');
    // The setup's workspace is on the enterprise plan: every feature field is there.
    for (const label of ['Password', 'Expires at (your time)', 'iOS destination URL', 'Destinations by country']) expect(await page.getByLabel(label, { exact: true }).count(), label).toBe(1);
    await d.checkAccessibility(page, 'links-form-en');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);

    // Import: 2,000 rows, 3 bad (two found in the browser, one by the API: an unknown tag).
    const lines = ['url,title,collectionId,tagIds'];
    for (let i = 0; i < 2000; i++) {
      const bad = BAD_ROWS[i];
      const url = bad === 'missing' ? '' : `${bad === 'http' ? 'http' : 'https'}://shop.example.com/item/${i}`;
      const tag = bad === 'tag' ? '0191d8a0-0000-7000-8000-00000000dead' : '';
      lines.push(`${url},"Item ${i}, imported",${i % 2 === 0 ? autumn!.id : ''},${tag}`);
    }
    const dir = mkdtempSync(join(tmpdir(), 'links-csv-'));
    writeFileSync(join(dir, 'links.csv'), lines.join('\r\n') + '\r\n');
    await page.getByRole('button', { name: 'Import CSV' }).click();
    await page.getByLabel('CSV file').setInputFiles(join(dir, 'links.csv'));
    await page.getByLabel('Collection for rows without collectionId').selectOption(spring!.id);
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByText('1,997 links imported, 3 rows not imported.').waitFor({ timeout: 30_000 });
    const reported = await page.locator('.links-problems tbody tr').evaluateAll((rows) => rows.map((r) => (r as unknown as { innerText: string }).innerText.split('\t').slice(0, 2)));
    // Spreadsheet row numbers: the header is row 1, so item i is row i + 2.
    expect(reported).toEqual([
      ['102', 'url'],
      ['1003', 'url'],
      ['1902', 'tagIds[0]'],
    ]);
    expect(await text(page, '.links-batches')).toContain('Batch 1 (rows 2–2001): 1,997 links written.');
    expect(await page.locator('#links-import-progress').getAttribute('value')).toBe('2000');
    await page.getByText('Links 1–50 of 1,998').waitFor();
    await d.checkAccessibility(page, 'links-import-en');
    await page.getByRole('button', { name: 'Import CSV' }).click();

    // Paging.
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByText('Links 51–100 of 1,998').waitFor();
    await page.getByRole('button', { name: 'Previous' }).click();
    await page.getByText('Links 1–50 of 1,998').waitFor();

    // Export: every link the filters match.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    const csv = readFileSync((await download.path())!, 'utf8');
    const records = csv.replace(/^\uFEFF/, '').trimEnd().split('\r\n');
    expect(records[0]).toMatch(/^id,shortUrl,url,title,/);
    expect(records).toHaveLength(1999);
    expect(csv).toContain('"Item 7, imported"');
    expect(csv).toContain('https://example.com/spring-sale');

    // Search (debounced) and a collection filter narrow the table.
    await page.getByLabel('Search').fill('SPRING-sale');
    await page.getByText('Links 1–1 of 1').waitFor();
    expect(await page.locator('.links-table tbody tr').count()).toBe(1);
    await page.getByLabel('Search').fill('');
    await page.getByLabel('Collection', { exact: true }).selectOption(autumn!.id);
    await page.getByText('Links 1–50 of 998').waitFor();
    await page.getByLabel('Search').fill('item 19');
    // Autumn holds the even items: 190–198 and 1902–1998 (1900 was refused), 5 + 49.
    await page.getByText('Links 1–50 of 54').waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByText('Links 1–50 of 1,998').waitFor();

    // Copy, QR, edit, delete.
    await page.getByLabel('Search').fill('spring-sale');
    await page.getByText('Links 1–1 of 1').waitFor();
    const shortUrl = await text(page, '.links-short bdi');
    await page.getByRole('button', { name: `Copy ${shortUrl}` }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(shortUrl);
    await page.getByRole('button', { name: 'QR code of Spring sale' }).click();
    const qr = page.getByRole('img', { name: `QR code for ${shortUrl}` });
    await qr.waitFor();
    await expect.poll(() => qr.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(240);
    expect(await page.getByRole('link', { name: 'Download SVG' }).getAttribute('href')).toMatch(/^\/api\/qr\?.*format=svg/);
    await page.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('button', { name: 'Edit Spring sale' }).click();
    await page.getByLabel('Title').fill('Spring sale, extended');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('link', { name: 'Spring sale, extended' }).waitFor();
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete Spring sale, extended' }).click();
    await page.getByText('No links match this search and these filters.', { exact: false }).waitFor();
    expect(d.cspViolations).toEqual([]);
  });

  it('a viewer sees no write buttons; Arabic at 375 px is right-to-left', async () => {
    const user = await d.t.admin('POST', '/users', VIEWER);
    expect(user.statusCode, user.body).toBe(201);
    const member = await d.t.admin('POST', `/workspaces/${workspaceId}/members`, { userId: user.json<{ id: string }>().id, role: 'viewer' });
    expect(member.statusCode, member.body).toBe(201);
    const page = await d.newPage('en-US');
    await d.signIn(page, VIEWER);
    await page.goto(`${origin}/app/links`);
    await page.getByText('Links 1–50 of 1,997').waitFor();
    expect(await page.getByRole('button', { name: 'Export CSV' }).count()).toBe(1);
    for (const name of ['New link', 'Import CSV', /^Edit /, /^Delete /]) expect(await page.getByRole('button', { name }).count(), String(name)).toBe(0);

    // On the free plan the form hides what the plan forbids, and says so.
    const downgraded = await d.t.admin('PATCH', `/workspaces/${workspaceId}`, { plan: 'free' });
    expect(downgraded.statusCode, downgraded.body).toBe(200);
    const ar = await d.newPage('ar-EG', PHONE);
    const login = await ar.request.post(`${origin}/api/auth/login`, { headers: { origin }, data: { email: OWNER.email, password: OWNER.password } });
    expect(login.status(), await login.text()).toBe(200);
    await ar.goto(`${origin}/app/links`);
    await ar.getByRole('button', { name: 'رابط جديد' }).waitFor();
    await ar.getByText('الروابط ١–٥٠ من ١٬٩٩٧').or(ar.getByText('الروابط 1–50 من 1,997')).waitFor();
    expect(await ar.evaluate('[document.documentElement.lang, document.documentElement.dir]')).toEqual(['ar', 'rtl']);
    await d.checkAccessibility(ar, 'links-ar');
    await ar.getByRole('button', { name: 'رابط جديد' }).click();
    await ar.getByLabel('عنوان URL للوجهة').waitFor();
    expect(await ar.getByLabel('كلمة المرور', { exact: true }).count()).toBe(0);
    expect(await ar.getByLabel('عنوان الوجهة لأجهزة iOS').count()).toBe(0);
    await ar.getByText('خطتك (free) لا تشمل', { exact: false }).waitFor();
    await d.checkAccessibility(ar, 'links-form-ar');
    expect(d.cspViolations).toEqual([]);
  });
});
