/**
 * Links → Import in Chromium on a real server (operations.md §13), with the Bitly sample
 * export: the source recognised from its columns, a preview of the first rows, one field's
 * column changed (the preview follows), the collection asked for and typed new, http upgraded,
 * the job started, its progress and result, the rejected rows downloaded, the past imports;
 * then an imported link answers on its old short URL (a claimed, operator-verified host) over
 * the app's HTTP. A file whose destination column is not recognised is mapped by hand. axe at
 * desktop and 375 px, English and Arabic (right-to-left). Screenshots:
 * test/e2e/__screenshots__/dashboard-import-*.png.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN } from '../helpers/app.js';
import { dashboardRunnable, OWNER, PHONE, startDashboard, type Dashboard } from './dashboard-harness.js';

const BITLY = 'test/fixtures/imports/bitly.csv';
/** The Arabic test's workspace owner. */
const LAYLA = { name: 'Layla Archive', email: 'layla@example.com', password: 'saffron-bridge-64-compass' };
/**
 * The Bitly export with old short URLs on hosts of their own (ar.bit.ly, ar.brand.link): the
 * Arabic test imports it into a workspace of its own, whose aliases no other test's import holds.
 */
const BITLY_AR = Buffer.from(
  readFileSync(BITLY, 'utf8')
    .replaceAll('https://bit.ly/', 'https://ar.bit.ly/')
    .replace(/https:\/\/(brand\.link)/gi, 'https://ar.$1'),
);

/** GET `path` from the app over a real socket, with `host` as the Host header: the status and Location. */
function getOn(origin: string, host: string, path: string): Promise<{ status: number; location?: string }> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, method: 'GET', headers: { host } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe.skipIf(!dashboardRunnable())('Links → Import in Chromium', () => {
  let d: Dashboard;
  /** The setup's workspace (made once; each test signs in itself). */
  let headers: Record<string, string>;
  beforeAll(async () => {
    d = await startDashboard();
    ({ headers } = await d.setUpOwner(await d.newPage()));
    await d.closeContexts();
  });
  afterEach(async () => d.closeContexts());
  afterAll(async () => d?.close());

  const preview = (page: Page) => page.getByRole('region', { name: '3. Preview' });
  const previewRow = (page: Page, line: number) =>
    preview(page)
      .getByRole('row')
      .filter({ has: page.getByRole('cell', { name: String(line), exact: true }) });
  const total = (page: Page, name: string) =>
    page
      .locator('.imp-totals .total')
      .filter({ has: page.getByText(name, { exact: true }) })
      .locator('dd');

  it('imports the Bitly export end to end: preview, a column changed, options, progress, result, rejected rows, history; the alias answers', async () => {
    const page = await d.newPage();
    await d.signInWithApi(page, OWNER);
    const api = (method: 'GET' | 'POST', path: string, data?: unknown) => page.request.fetch(`${d.origin}${path}`, { method, headers, data });
    // The host of the old short links, claimed and vouched for by the operator before the import.
    const claim = await api('POST', '/api/domains', { host: 'brand.link' });
    expect(claim.status(), await claim.text()).toBe(201);
    const verified = await page.request.post(`${d.origin}/admin/domains/${(await claim.json()).id}/verify`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(verified.status(), await verified.text()).toBe(200);
    expect((await api('POST', '/api/collections', [{ name: 'Newsletter' }])).status()).toBe(201);

    await d.open(page, '/links/import', 'Import');
    const nav = page.getByRole('navigation', { name: 'Section' });
    expect(await nav.getByRole('link', { name: 'Import' }).getAttribute('aria-current')).toBe('page');
    await page.getByText('No imports yet.').waitFor();

    // The file: recognised as Bitly; the first rows as they will be imported.
    await page.getByLabel('File to import').setInputFiles(BITLY);
    await page.getByText('Recognised as Bitly from its columns.').waitFor();
    expect(await page.getByLabel('Read it as').inputValue()).toBe('bitly');
    await page.getByText('The first 5 of 5 rows, as they will be imported:').waitFor();
    const spring = previewRow(page, 2);
    await spring.getByText('https://shop.example.com/spring?ref=a').waitFor();
    await spring.getByText('Spring sale, 50% off').waitFor();
    await spring.getByText('https://brand.link/Spring').waitFor();
    // Nothing is imported yet: the preview says what will be.
    await spring.getByText('Will be imported', { exact: true }).waitFor();
    expect(await page.getByText('Imported', { exact: true }).count()).toBe(0);
    // bit.ly is a public shortener: its links stay there, and it is not claimed.
    await page
      .locator('.imp-public li')
      .filter({ hasText: /^bit\.ly \(\d+ of the rows read\): a public shortener\. Its links keep working at the old service, not here/ })
      .waitFor();
    await previewRow(page, 3).getByText('عرض رمضان 🌙', { exact: false }).waitFor();
    await previewRow(page, 4).getByText('Will not be imported', { exact: true }).waitFor();
    expect(await previewRow(page, 4).textContent()).toContain('upgradeHttp');
    expect(await page.getByLabel('Destination URL').inputValue()).toBe('long_url');
    expect(await page.getByLabel('Old short URL', { exact: true }).inputValue()).toBe('custom_bitlinks');

    // One field's column changed: Bitly's own id becomes the external id; the preview follows.
    expect(await spring.getByText('bit.ly/3xYzAbC', { exact: true }).count()).toBe(0);
    await page.getByLabel('External ID').selectOption('id');
    await spring.getByText('bit.ly/3xYzAbC', { exact: true }).waitFor();
    await expect.poll(() => preview(page).getAttribute('aria-busy')).not.toBe('true');

    // http upgraded: line 4 will be imported too.
    await page.getByLabel('Upgrade http:// destinations to https://').check();
    await previewRow(page, 4).getByText('https://old.example.com/page').waitFor();
    await d.checkAccessibility(page, 'import-preview-en');

    // No collection column: one must be given (a new name here).
    await page.getByText('The file has no collection column').waitFor();
    await page.getByRole('button', { name: 'Start import' }).click();
    await page.getByRole('alert').getByText('Choose a collection, or type a name for a new one.').waitFor();
    expect(await page.evaluate<string>('document.activeElement.getAttribute("name")')).toBe('collection');
    await page.getByLabel('Collection of the imported links').fill('Bitly archive');
    await page.getByText('A new collection “Bitly archive” will be created.').waitFor();
    await page.getByRole('button', { name: 'Start import' }).click();

    // Progress, then the result.
    const progress = page.getByRole('progressbar', { name: 'Progress' });
    await progress.waitFor();
    await page.getByRole('heading', { name: 'Result' }).waitFor({ timeout: 30_000 });
    // The bar follows the file's bytes: all of them read.
    expect(await progress.getAttribute('value')).toBe(await progress.getAttribute('max'));
    await page.getByText('5 of 5 rows').waitFor();
    await page.getByText('The import is finished.').waitFor();
    expect(await total(page, 'Created').textContent()).toBe('4');
    expect(await total(page, 'Updated').textContent()).toBe('0');
    expect(await total(page, 'Unchanged').textContent()).toBe('0');
    expect(await total(page, 'Not imported').textContent()).toBe('1');
    expect(await page.getByRole('link', { name: 'Settings → Domains' }).getAttribute('href')).toBe('/app/settings/domains');

    // The rejected rows, downloaded: line 6 repeats line 2's old short URL.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download the rows not imported (CSV)' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^import-\d{4}-\d{2}-\d{2}-rejected-rows\.csv$/);
    const rejected = readFileSync(await download.path(), 'utf8').replace(/^\uFEFF/, '');
    expect(rejected.split(/\r?\n/)[0]).toBe('line,field,reason,error,id,link,custom_bitlinks,long_url,title,archived,created_at,tags');
    expect(rejected).toMatch(/^6,shortUrl,duplicate_in_file,/m);

    // The past imports list it.
    const history = page.getByRole('region', { name: 'Past imports' });
    const row = history.getByRole('row').filter({ hasText: 'Done' });
    await row.waitFor();
    expect(await row.getByRole('cell').allTextContents()).toEqual([expect.stringContaining('Bitly'), 'Done', '5', '4', '0', '0', '1', 'CSV']);
    await d.checkAccessibility(page, 'import-result-en');

    // What was written: the links in the new collection, created when the file says (oldest first),
    // with the external id read from the changed column.
    const links = (await (await api('GET', '/api/links?take=10&sort=asc')).json()) as {
      url: string;
      externalId: string | null;
      aliases?: string[];
      collectionId: string;
      createdAt: string;
    }[];
    expect(links.map((l) => [l.url, l.createdAt])).toEqual([
      ['https://old.example.com/page', '2023-12-31T23:59:59.000Z'],
      ['https://example.com/formula', '2024-01-02T03:04:05.000Z'],
      ['https://shop.example.com/spring?ref=a', '2024-03-01T09:15:00.000Z'],
      ['https://example.com/ar/%D8%B1%D9%85%D8%B6%D8%A7%D9%86', '2024-03-10T18:00:00.000Z'],
    ]);
    expect(links[2]).toMatchObject({ externalId: 'bit.ly/3xYzAbC', aliases: ['https://brand.link/Spring'] });
    const collections = (await (await api('GET', '/api/collections')).json()) as { id: string; name: string }[];
    expect(links.every((l) => l.collectionId === collections.find((c) => c.name === 'Bitly archive')?.id)).toBe(true);

    // The old short URL answers through the app's HTTP: the claimed host's alias redirects to the destination.
    const old = await getOn(d.origin, 'brand.link', '/Spring');
    expect(old.status).toBe(302);
    expect(old.location).toMatch(/^https:\/\/shop\.example\.com\/spring\?ref=a&ltid=[0-9a-f-]{36}$/);
    expect((await getOn(d.origin, 'brand.link', '/spring')).location).toMatch(/^https:\/\/example\.com\/formula/);

    // Import another file: the form again, empty.
    await page.getByRole('button', { name: 'Import another file' }).click();
    expect(await page.getByLabel('File to import').inputValue()).toBe('');

    // Settings → Domains (the result links there): brand.link as it was; bit.ly, a public shortener, never claimed.
    await page.getByRole('button', { name: 'CSV: rows not imported by the import of', exact: false }).waitFor();
    await d.open(page, '/settings/domains', 'Domains');
    const hosts = page.getByRole('listitem');
    await hosts.filter({ hasText: 'brand.link' }).getByText('Active').waitFor();
    expect(await hosts.filter({ hasText: 'bit.ly' }).count()).toBe(0);
    expect(d.cspViolations).toEqual([]);
  });

  it('a file whose destination column is not recognised: the refusal is said and the column is chosen by hand', async () => {
    const page = await d.newPage();
    await d.signInWithApi(page, OWNER);
    await d.open(page, '/links/import', 'Import');
    const csv = 'Target page;Name;Group\nhttps://example.com/a;Page A;Team\nhttps://example.com/b;Page B;Team\n';
    await page.getByLabel('File to import').setInputFiles({ name: 'kutt.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page
      .getByRole('alert')
      .getByText(/^This file cannot be imported: /)
      .waitFor();
    // The columns come from the file's first line; choosing the destination asks the server again.
    await page.getByLabel('Destination URL').selectOption('Target page');
    await page.getByText('The first 2 of 2 rows, as they will be imported:').waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    await page.getByLabel('Title', { exact: true }).selectOption('Name');
    await previewRow(page, 2).getByText('Page A').waitFor();
    await page.getByLabel('Collection', { exact: true }).selectOption('Group');
    // The file names its collections now: the collection field is optional.
    await page.getByText('Rows that name no collection go here (optional).').waitFor();
    await previewRow(page, 3).getByText('Team').waitFor();
  });

  it("a large file: a changed column is previewed from the file's head, the row count estimated for the whole file", async () => {
    const page = await d.newPage();
    await d.signInWithApi(page, OWNER);
    await d.open(page, '/links/import', 'Import');
    const rows = Array.from(
      { length: 12_000 },
      (_, i) => `bit.ly/r${i},https://bit.ly/r${i},,https://example.com/page/${i}?ref=campaign,"Row ${i}, a title",false,2024-03-01T09:15:00+0000,"a,b"`,
    );
    const buffer = Buffer.from(['id,link,custom_bitlinks,long_url,title,archived,created_at,tags', ...rows].join('\n'));
    expect(buffer.length).toBeGreaterThan(1024 * 1024);
    // The body's size as sent (a file body is not captured; its Content-Length is).
    const sizes: Promise<number>[] = [];
    page.on('request', (r) => r.url().includes('/api/imports/preview') && sizes.push(r.allHeaders().then((h) => Number(h['content-length']))));
    await page.getByLabel('File to import').setInputFiles({ name: 'big.csv', mimeType: 'text/csv', buffer });
    // The preview reads the file's head: the count is estimated from its line breaks.
    const summary = 'The first 10 of about 12,000 rows (counted when the import starts), as they will be imported:';
    await page.getByText(summary).waitFor();
    await page.getByLabel('Description').selectOption('title');
    await previewRow(page, 2).locator('.imp-other').getByText('Row 0, a title').waitFor();
    await page.getByText(summary).waitFor();
    // The whole file once, then its head (at least 512 KB, whole records).
    const sent = await Promise.all(sizes);
    expect(sent[0]).toBe(buffer.length);
    expect(sent[1]).toBeGreaterThanOrEqual(512 * 1024);
    expect(sent[1]).toBeLessThan(buffer.length);
  });

  it('Arabic at 375 px: right-to-left, the same file again changes nothing', async () => {
    // A workspace of its own where the file was imported once, through the API, with the choices made below.
    const own = await d.workspaceOf(LAYLA);
    const page = await d.newPage('ar-EG', PHONE);
    await d.signInWithApi(page, LAYLA);
    const choices = new URLSearchParams({ source: 'bitly', mapping: JSON.stringify({ externalId: 'id' }), upgradeHttp: 'true', collection: 'Bitly archive' });
    const started = await page.request.post(`${d.origin}/api/imports?${choices}`, {
      headers: { ...own.headers, 'content-type': 'text/csv' },
      data: BITLY_AR,
    });
    expect(started.status(), await started.text()).toBe(202);
    const { id } = (await started.json()) as { id: string };
    await expect
      .poll(async () => (await (await page.request.get(`${d.origin}/api/imports/${id}`, { headers: own.headers })).json()) as object, { timeout: 30_000 })
      .toMatchObject({ status: 'done', created: 4, updated: 0, unchanged: 0, failed: 1 });

    await d.open(page, '/links/import', 'الاستيراد');
    expect(await page.evaluate<string>('document.documentElement.dir')).toBe('rtl');
    await page.getByLabel('الملف المراد استيراده').setInputFiles({ name: 'bitly.csv', mimeType: 'text/csv', buffer: BITLY_AR });
    await page.getByText('تم التعرّف عليه على أنه Bitly من أعمدته.').waitFor();
    await page.getByLabel('المعرّف الخارجي').selectOption('id');
    await page.getByLabel('حوّل وجهات http://‎ إلى https://‎').check();
    await page.getByLabel('مجموعة الروابط المستوردة').fill('Bitly archive');
    await d.checkAccessibility(page, 'import-preview-ar');
    await page.getByRole('button', { name: 'ابدأ الاستيراد' }).click();
    await page.getByRole('heading', { name: 'النتيجة' }).waitFor({ timeout: 30_000 });
    expect(await total(page, 'دون تغيير').textContent()).toMatch(/^[4٤]$/);
    expect(await total(page, 'أُنشئت').textContent()).toMatch(/^[0٠]$/);
    await d.checkAccessibility(page, 'import-result-ar');
    const listed = (await (await page.request.get(`${d.origin}/api/imports`, { headers: own.headers })).json()) as {
      created: number;
      unchanged: number;
    }[];
    expect(listed.map((i) => [i.created, i.unchanged])).toEqual([
      [0, 4],
      [4, 0],
    ]);
  });
});
