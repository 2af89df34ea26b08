/**
 * Links → Import in Chromium keeps what it shows (issue 43): the preview says what will happen
 * ("Will be imported", never "Imported" before the job ran), names bit.ly as a public shortener
 * whose links keep working there, shows a creation date it will not keep, counts a big file
 * from its head ("about"), and the job's progress moves from the first bytes (· N% of the file
 * read). axe at desktop and 375 px. Screenshots: test/e2e/__screenshots__/import-keeps-*.png.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshHost } from '../modules/domains/helpers.js';
import { dashboardRunnable, startDashboard, type Dashboard } from './dashboard-harness.js';

/** A Bitly export of 20,000 rows: the first on a custom domain, the rest on bit.ly, the second dated in the future. */
function bitly(custom: string): Buffer {
  const lines = ['id,link,custom_bitlinks,long_url,title,archived,created_at,tags'];
  for (let i = 0; i < 20_000; i++) {
    const custom_ = i === 0 ? `https://${custom}/spring` : '';
    const date = i === 1 ? '2999-01-01T00:00:00+0000' : '2024-03-01T09:15:00+0000';
    lines.push(`bit.ly/k${i},https://bit.ly/k${i},${custom_},https://example.com/keep/${i},"Row ${i}",false,${date},"a"`);
  }
  return Buffer.from(`${lines.join('\n')}\n`);
}

describe.skipIf(!dashboardRunnable())('Links → Import keeps what it shows, in Chromium', () => {
  let d: Dashboard;
  let page: Page;
  beforeAll(async () => {
    d = await startDashboard();
    page = await d.newPage();
    await d.setUpOwner(page);
  });
  afterAll(async () => d?.close());

  const previewRegion = () => page.getByRole('region', { name: '3. Preview' });
  const previewRow = (line: number) =>
    previewRegion()
      .getByRole('row')
      .filter({ has: page.getByRole('cell', { name: String(line), exact: true }) });

  it('previews in the future tense, names bit.ly as a public shortener, then shows progress from the first bytes', async () => {
    const custom = freshHost('keep');
    await d.open(page, '/links/import', 'Import');
    await page.getByLabel('File to import').setInputFiles({ name: 'bitly.csv', mimeType: 'text/csv', buffer: bitly(custom) });
    await page.getByText('The first 10 of about 20,000 rows (counted when the import starts), as they will be imported:').waitFor();

    // Nothing said done before the job runs.
    await previewRow(2).getByText('Will be imported', { exact: true }).waitFor();
    expect(await previewRegion().getByText('Imported', { exact: true }).count()).toBe(0);
    // The custom domain's old short URL becomes an alias; bit.ly's stay at the old service.
    await previewRow(2).getByText(`https://${custom}/spring`).waitFor();
    expect(await previewRow(2).getByText('stays at the old service').count()).toBe(0);
    await previewRow(3).getByText('stays at the old service').waitFor();
    const note = page.getByRole('note', { name: 'Short links of public shorteners' });
    expect(await note.getByRole('listitem').allTextContents()).toEqual([
      expect.stringMatching(
        /^bit\.ly \([\d,]+ of the rows read\): a public shortener\. Its links keep working at the old service, not here: they are imported without their old short URL, and bit\.ly is not claimed\.$/,
      ),
    ]);
    // A creation date in the future: shown as not kept.
    await previewRow(3).getByText("before 2000 or in the future: the link is created with the import's time instead", { exact: false }).waitFor();
    await d.checkAccessibility(page, 'import-keeps-preview');

    await page.getByLabel('Collection of the imported links').fill('Kept');
    const clicked = performance.now();
    await page.getByRole('button', { name: 'Start import' }).click();
    await page.getByRole('heading', { name: 'Importing' }).waitFor();
    const started = Math.round(performance.now() - clicked);
    const progress = page.locator('#imp-progress');
    await expect.poll(async () => Number(await progress.getAttribute('value')), { timeout: 30_000, interval: 50 }).toBeGreaterThan(0);
    const ms = Math.round(performance.now() - clicked);
    console.log(`job panel ${started} ms after Start (the file sent and checked), progress bar moved ${ms} ms after Start`);
    const text = (await page.locator('#imp-progress-text').textContent()) ?? '';
    // Either still running (with the share of the file read) or already done.
    if (!text.includes('20,000 of 20,000')) expect(text).toMatch(/ of 20,000 rows · \d+% of the file read$/);
    await page.getByText('The import is finished.').waitFor({ timeout: 120_000 });
    expect(await page.locator('#imp-progress-text').textContent()).toBe('20,000 of 20,000 rows');
    expect(d.cspViolations).toEqual([]);
  });
});
