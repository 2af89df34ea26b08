/**
 * The Links page in Chromium (operations.md §10): an owner creates a link with the keyboard
 * alone, sees the API's error at the field it names, follows Import CSV to Links → Import
 * (§13) and imports 2,000 rows that name their collection and tags by name, 3 of them bad
 * (reported by line in the rejected rows' CSV; the 1,997 good ones are written, the total
 * shows), exports the list to a CSV, narrows it by search, collection and tag, copies a short
 * URL, opens a QR code, edits and deletes; a viewer sees no write buttons nor the Import link;
 * axe at both widths in English and in Arabic (right-to-left at 375 px). Page code runs as
 * strings (this file is type-checked without the DOM library).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dashboardRunnable, OWNER, PHONE, startDashboard, type Dashboard } from './dashboard-harness.js';

const VIEWER = { name: 'Vera Viewer', email: 'vera@example.com', password: 'amber-quarry-58-lighthouse' };
/** The owner of the viewer test's workspace, and how many links it holds (more than a page of 50). */
const LIST_OWNER = { name: 'Lina Lists', email: 'lina@example.com', password: 'granite-orchard-36-beacon' };
const LISTED = 60;
/** Items refused by the import: an http destination, none, a creation date that is no date. */
const BAD_ROWS = { 100: 'http', 1001: 'missing', 1900: 'date' } as Record<number, string>;

describe.skipIf(!dashboardRunnable())('the Links page in Chromium', () => {
  let d: Dashboard;
  let origin: string;
  /** The setup's owner and workspace (made once; each test signs in itself). */
  let owner: { workspaceId: string; headers: Record<string, string> };
  beforeAll(async () => {
    d = await startDashboard();
    origin = d.origin;
    owner = await d.setUpOwner(await d.newPage());
    await d.closeContexts();
  });
  afterEach(async () => d.closeContexts());
  afterAll(async () => d?.close());

  const text = (page: Page, selector: string) => page.locator(selector).first().textContent();

  it('owner: keyboard create, field error, Import CSV of 2,000 by names and export, search and filters, copy, QR, edit, delete', async () => {
    const page = await d.clipboardPage('en-US');
    await d.signInWithApi(page, OWNER);
    const made = await page.request.post(`${origin}/api/collections`, { headers: owner.headers, data: [{ name: 'Spring' }, { name: 'Autumn' }] });
    expect(made.status(), await made.text()).toBe(201);
    const [spring, autumn] = (await made.json()) as { id: string }[];

    await page.goto(`${origin}/app/links`);
    await page.getByText('No links yet — create one with New link or import a CSV').waitFor();
    expect(await page.locator('.empty').getByRole('link', { name: 'import a CSV' }).getAttribute('href')).toBe('/app/links/import');
    await d.checkAccessibility(page, 'links-empty-en');
    const emptyAr = await d.newPage('ar-EG', PHONE);
    await d.signInWithApi(emptyAr, OWNER);
    await emptyAr.goto(`${origin}/app/links`);
    expect(await emptyAr.locator('.empty').getByRole('link', { name: 'استورد ملف CSV' }).getAttribute('href')).toBe('/app/links/import');
    await d.checkAccessibility(emptyAr, 'links-empty-ar');
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
    for (const label of ['Password', 'Expires at (your time)', 'iOS destination URL', 'Destinations by country'])
      expect(await page.getByLabel(label, { exact: true }).count(), label).toBe(1);
    await d.checkAccessibility(page, 'links-form-en');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);

    // Import CSV opens Links → Import. The file names collections and tags (an existing
    // collection in another case, new tags); rows naming none go to the collection chosen there.
    const lines = ['url,title,collection,tags,created'];
    for (let i = 0; i < 2000; i++) {
      const bad = BAD_ROWS[i];
      const url = bad === 'missing' ? '' : `${bad === 'http' ? 'http' : 'https'}://shop.example.com/item/${i}`;
      const tags = i % 10 === 0 ? '"Clearance; summer"' : '';
      lines.push(`${url},"Item ${i}, imported",${i % 2 === 0 ? 'autumn' : ''},${tags},${bad === 'date' ? 'next Tuesday' : ''}`);
    }
    const dir = mkdtempSync(join(tmpdir(), 'links-csv-'));
    writeFileSync(join(dir, 'links.csv'), lines.join('\r\n') + '\r\n');
    await page.getByRole('link', { name: 'Import CSV' }).click();
    await page.getByRole('heading', { level: 1, name: 'Import' }).waitFor();
    await page.getByLabel('File to import').setInputFiles(join(dir, 'links.csv'));
    await page.getByText('The first 10 of 2,000 rows, as they will be imported:').waitFor();
    expect(await page.getByLabel('Read it as').inputValue()).toBe('csv');
    expect(await page.getByLabel('Collection', { exact: true }).inputValue()).toBe('collection');
    expect(await page.getByLabel('Tags', { exact: true }).inputValue()).toBe('tags');
    await page.getByLabel('Collection of the imported links').fill('Spring');
    await page.getByRole('button', { name: 'Start import' }).click();
    await page.getByRole('heading', { name: 'Result' }).waitFor({ timeout: 60_000 });
    await page.getByText('2,000 of 2,000 rows').waitFor();
    const total = (name: string) =>
      page
        .locator('.imp-totals .total')
        .filter({ has: page.getByText(name, { exact: true }) })
        .locator('dd')
        .textContent();
    expect([await total('Created'), await total('Updated'), await total('Unchanged'), await total('Not imported')]).toEqual(['1,997', '0', '0', '3']);
    // The rejected rows: spreadsheet line numbers (the header is line 1, so item i is line i + 2), the field, the reason, the row as it was.
    const [rejectedFile] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download the rows not imported (CSV)' }).click(),
    ]);
    const rejected = parse(readFileSync((await rejectedFile.path())!, 'utf8'), { bom: true }) as string[][];
    expect(rejected[0]).toEqual(['line', 'field', 'reason', 'error', 'url', 'title', 'collection', 'tags', 'created']);
    expect(rejected.slice(1).map(([line, field, reason, , url]) => [line, field, reason, url])).toEqual([
      ['102', 'url', 'http_not_upgraded', 'http://shop.example.com/item/100'],
      ['1003', 'url', 'required', ''],
      ['1902', 'createdAt', 'import_date', 'https://shop.example.com/item/1900'],
    ]);
    await page.getByRole('link', { name: 'See the links' }).click();
    await page.getByText('Links 1–50 of 1,998').waitFor();

    // Paging.
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByText('Links 51–100 of 1,998').waitFor();
    await page.getByRole('button', { name: 'Previous' }).click();
    await page.getByText('Links 1–50 of 1,998').waitFor();

    // Export: every link the filters match.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    const csv = readFileSync((await download.path())!, 'utf8');
    const records = csv
      .replace(/^\uFEFF/, '')
      .trimEnd()
      .split('\r\n');
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
    // The odd items went to the collection chosen on the Import page; the tags were made from their names.
    await page.getByLabel('Collection', { exact: true }).selectOption(spring!.id);
    await page.getByText('Links 1–50 of 1,000').waitFor();
    await page.getByLabel('Collection', { exact: true }).selectOption('');
    await page.getByLabel('Tag', { exact: true }).selectOption({ label: 'Clearance' });
    // Every tenth item but 100 and 1900 (refused).
    await page.getByText('Links 1–50 of 198').waitFor();
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
    // Delete asks in the page's own dialog (never the browser's): Escape and Cancel keep the link, Delete removes it.
    const native: string[] = [];
    page.on('dialog', (dialog) => {
      native.push(dialog.message());
      void dialog.dismiss();
    });
    const deletes: string[] = [];
    page.on('request', (r) => r.method() === 'DELETE' && deletes.push(r.url()));
    const remove = page.getByRole('button', { name: 'Delete Spring sale, extended' });
    const question = page.getByRole('alertdialog', { name: 'Delete the link “Spring sale, extended”?' });
    await remove.click();
    await question.getByText('Its short link stops working; its clicks stay in analytics.').waitFor();
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Cancel');
    await page.keyboard.press('Escape');
    await question.waitFor({ state: 'hidden' });
    await remove.click();
    await question.getByRole('button', { name: 'Cancel' }).click();
    await question.waitFor({ state: 'hidden' });
    expect(await page.getByRole('link', { name: 'Spring sale, extended' }).count()).toBe(1);
    expect(deletes).toEqual([]);
    await remove.click();
    await question.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByText('No links match this search and these filters.', { exact: false }).waitFor();
    expect(deletes).toEqual([`${origin}/api/links`]);
    expect(native).toEqual([]);
    expect(d.cspViolations).toEqual([]);
  });

  it('a viewer sees no write buttons; Arabic at 375 px is right-to-left', async () => {
    // A workspace of its own holding LISTED links, its owner and the viewer.
    const { workspaceId, headers } = await d.workspaceOf(LIST_OWNER);
    const seeder = await d.newPage('en-US');
    await d.signInWithApi(seeder, LIST_OWNER);
    const made = await seeder.request.post(`${origin}/api/collections`, { headers, data: [{ name: 'Catalogue' }] });
    expect(made.status(), await made.text()).toBe(201);
    const [catalogue] = (await made.json()) as { id: string }[];
    const links = Array.from({ length: LISTED }, (_, i) => ({ url: `https://shop.example.com/item/${i}`, title: `Item ${i}`, collectionId: catalogue!.id }));
    const seeded = await seeder.request.post(`${origin}/api/links`, { headers, data: links });
    expect(seeded.status(), await seeded.text()).toBe(201);
    const user = await d.t.admin('POST', '/users', VIEWER);
    expect(user.statusCode, user.body).toBe(201);
    const member = await d.t.admin('POST', `/workspaces/${workspaceId}/members`, { userId: user.json<{ id: string }>().id, role: 'viewer' });
    expect(member.statusCode, member.body).toBe(201);
    const page = await d.newPage('en-US');
    await d.signInWithApi(page, VIEWER);
    await page.goto(`${origin}/app/links`);
    await page.getByText(`Links 1–50 of ${LISTED}`).waitFor();
    expect(await page.getByRole('button', { name: 'Export CSV' }).count()).toBe(1);
    for (const name of ['New link', 'Import CSV', /^Edit /, /^Delete /]) expect(await page.getByRole('button', { name }).count(), String(name)).toBe(0);
    expect(await page.getByRole('link', { name: 'Import CSV' }).count()).toBe(0);
    // Rows per page, and a jump to a page by its number (the viewer pages too).
    await page.getByLabel('Rows per page').selectOption('25');
    await page.getByText(`Links 1–25 of ${LISTED}`).waitFor();
    await page.getByLabel('Go to page (of 3)').fill('3');
    await page.getByRole('button', { name: 'Go', exact: true }).click();
    await page.getByText(`Links 51–${LISTED} of ${LISTED}`).waitFor();
    await page.getByLabel('Rows per page').selectOption('100');
    await page.getByText(`Links 1–${LISTED} of ${LISTED}`).waitFor();

    // On the free plan the form hides what the plan forbids, and says so. The free plan's 60
    // requests a minute would count the seeding and the viewer's pages, so the operator's
    // override lifts the limit: only the plan's features are under test.
    const downgraded = await d.t.admin('PATCH', `/workspaces/${workspaceId}`, { plan: 'free', rateLimitPerMinute: 10_000 });
    expect(downgraded.statusCode, downgraded.body).toBe(200);
    const ar = await d.newPage('ar-EG', PHONE);
    await d.signInWithApi(ar, LIST_OWNER);
    await ar.goto(`${origin}/app/links`);
    await ar.getByRole('button', { name: 'رابط جديد' }).waitFor();
    expect(await ar.getByRole('link', { name: 'استيراد CSV' }).getAttribute('href')).toBe('/app/links/import');
    await ar
      .getByText(`الروابط ١–٥٠ من ${LISTED.toLocaleString('ar-EG')}`)
      .or(ar.getByText(`الروابط 1–50 من ${LISTED}`))
      .waitFor();
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
