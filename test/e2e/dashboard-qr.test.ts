/**
 * The QR designer on a link's page in Chromium (operations.md §14): an owner sees the code's
 * live preview (it reads back to the short link through jsQR), picks colours (a pair a scanner
 * cannot read is said so at once, and by the server's 400 at the field on Save), uploads an SVG
 * logo (a file over 100 KB, and one that draws nothing, are refused with their reasons), sees
 * error correction become H, changes size and margin, saves, and downloads a PNG that reads
 * back and an SVG. In Arabic at 375 px: right-to-left, the logo taken off, the defaults back.
 * A viewer designs for the downloads only (no Save, no upload).
 * axe and screenshots at 1280 and 375 px in both languages. Page code runs as strings (this
 * file is type-checked without the DOM library).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { decodePng } from '../modules/qr/helpers.js';
import { dashboardRunnable, OWNER, PHONE, startDashboard, type Dashboard } from './dashboard-harness.js';

const VIEWER = { name: 'Vera Viewer', email: 'vera@example.com', password: 'amber-quarry-58-lighthouse' };
/** The owners of the Arabic and the viewer tests' workspaces (each test has its own). */
const RANIA = { name: 'Rania Print', email: 'rania@example.com', password: 'linen-harbour-82-compass' };
const KARIM = { name: 'Karim Print', email: 'karim@example.com', password: 'pebble-orchard-19-lantern' };
const LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 60"><rect width="100" height="60" rx="8" fill="#dc2626"/><path d="M20 45 L50 10 L80 45 Z" fill="#ffffff"/></svg>`;

describe.skipIf(!dashboardRunnable())('the QR designer in Chromium', () => {
  let d: Dashboard;
  /** The setup's workspace (made once; each test signs in itself). */
  let headers: Record<string, string>;
  const files = mkdtempSync(join(tmpdir(), 'qr-designer-'));
  const file = (name: string, body: string | Buffer) => {
    writeFileSync(join(files, name), body);
    return join(files, name);
  };
  beforeAll(async () => {
    d = await startDashboard();
    ({ headers } = await d.setUpOwner(await d.newPage()));
    await d.closeContexts();
  });
  afterEach(async () => d.closeContexts());
  afterAll(async () => d?.close());

  const preview = (page: Page) => page.getByRole('img', { name: /^QR code of / });
  const previewSrc = async (page: Page) => new URL((await preview(page).getAttribute('src'))!, d.origin);
  const fetchPng = async (page: Page, url: URL) => {
    const res = await page.request.get(url.toString());
    expect(res.status(), await res.text()).toBe(200);
    return Buffer.from(await res.body());
  };
  const linkNow = async (page: Page, id: string, h: Record<string, string>) =>
    (await (await page.request.get(`${d.origin}/api/links?id=${id}`, { headers: h })).json())[0];
  /** A link made through the API in the workspace of `h`, with a saved QR design if given. */
  const makeLink = async (page: Page, h: Record<string, string>, qrDesign?: object): Promise<{ id: string; shortUrl: string }> => {
    const [collection] = await (await page.request.post(`${d.origin}/api/collections`, { headers: h, data: [{ name: 'Print' }] })).json();
    const made = await page.request.post(`${d.origin}/api/links`, {
      headers: h,
      data: [{ url: 'https://example.com/flyer', collectionId: collection.id, title: 'Flyer', ...(qrDesign ? { qrDesign } : {}) }],
    });
    expect(made.status(), await made.text()).toBe(201);
    return (await made.json())[0];
  };
  /** LOGO_SVG uploaded through the API to the workspace of `h`: its id. */
  const uploadLogo = async (page: Page, h: Record<string, string>): Promise<string> => {
    const res = await page.request.post(`${d.origin}/api/qr-logos`, { headers: { ...h, 'content-type': 'image/svg+xml' }, data: Buffer.from(LOGO_SVG) });
    expect(res.status(), await res.text()).toBe(201);
    return (await res.json()).id;
  };

  it('owner: preview, colours and contrast, logo upload, size and margin, save, downloads', async () => {
    const page = await d.newPage('en-US');
    await d.signInWithApi(page, OWNER);
    const link = await makeLink(page, headers);

    await page.goto(`${d.origin}/app/links/${link.id}`);
    await page.getByRole('heading', { name: 'QR code', level: 2 }).waitFor();
    // The preview is the server's drawing of the link's code, and it reads back to the short link.
    await preview(page).waitFor();
    expect(decodePng(await fetchPng(page, await previewSrc(page)))).toBe(`${link.shortUrl}?ltqr=1`);
    await page.getByText('Contrast 21.00:1: scanners read it.').waitFor();
    expect(await page.getByRole('button', { name: 'Save design' }).isDisabled()).toBe(true);

    // Orange on white: the page says so at once and shows no preview; Save gets the server's 400 at the field.
    await page.getByLabel('Code colour').fill('#ffa500');
    await page.getByRole('alert').getByText('Contrast 1.97:1 is too low: a scanner needs at least 4.5:1.', { exact: false }).waitFor();
    await page.getByText('No preview: a scanner could not read these colours.').waitFor();
    await page.getByRole('button', { name: 'Save design' }).click();
    await page
      .locator('#qr-foreground-error')
      .getByText(/qrDesign\.foreground: gives a contrast of 1\.97:1/)
      .waitFor();
    expect(await page.getByLabel('Code colour').getAttribute('aria-invalid')).toBe('true');

    // Blue on cream reads.
    await page.getByLabel('Code colour').fill('#1d4ed8');
    await page.getByLabel('Background colour').fill('#fef3c7');
    await page.getByText(/^Contrast \d+\.\d\d:1: scanners read it\.$/).waitFor();
    await expect.poll(async () => (await previewSrc(page)).searchParams.get('background')).toBe('fef3c7');
    expect(decodePng(await fetchPng(page, await previewSrc(page)))).toBe(`${link.shortUrl}?ltqr=1`);

    // Logos: a file over 100 KB is refused before it is sent; one that draws nothing by the server.
    const upload = page.getByLabel('Upload a logo (PNG or SVG, at most 100 KB)');
    await upload.setInputFiles(file('big.png', Buffer.alloc(101 * 1024, 1)));
    await page.getByRole('alert').getByText('This file is 101 KB; a logo may be at most 100 KB.').waitFor();
    await upload.setInputFiles(file('empty.svg', '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>'));
    await page
      .getByRole('alert')
      .getByText(/^The logo draws nothing/)
      .waitFor();
    await upload.setInputFiles(file('brand.svg', LOGO_SVG));
    await page.getByText('Logo uploaded and chosen. Save the design to keep it.').waitFor();
    const chosen = page.getByRole('radio', { name: 'Logo 1 (from SVG)' });
    expect(await chosen.isChecked()).toBe(true);
    const level = page.getByLabel('Error correction');
    expect(await level.isDisabled()).toBe(true);
    expect(await level.inputValue()).toBe('H');
    await page.getByText('With a logo the code uses H').waitFor();
    await expect.poll(async () => (await previewSrc(page)).searchParams.get('logoId')).toMatch(/^[0-9a-f-]{36}$/);
    expect((await previewSrc(page)).searchParams.get('errorCorrection')).toBe('H');
    expect(decodePng(await fetchPng(page, await previewSrc(page)))).toBe(`${link.shortUrl}?ltqr=1`);

    await page.getByLabel('Size (pixels)').selectOption('1024');
    await page.getByLabel('Margin (modules)').fill('4');
    await page.getByText('Not saved yet: downloads already use these settings.').waitFor();
    await d.checkAccessibility(page, 'qr-designer-en');

    await page.getByRole('button', { name: 'Save design' }).click();
    await page.getByRole('status').getByText('QR design saved: the link’s code now uses it.').waitFor();
    const saved = await linkNow(page, link.id, headers);
    const logoId = (await previewSrc(page)).searchParams.get('logoId');
    expect(saved.qrDesign).toEqual({ foreground: '1d4ed8', background: 'fef3c7', size: 1024, margin: 4, errorCorrection: 'H', logoId });
    expect(new URL(saved.qrCode).searchParams.get('logoId')).toBe(logoId);

    // Downloads as the browser makes them: the PNG reads back, the SVG carries the logo as PNG data.
    const shortId = new URL(link.shortUrl).pathname.slice(1);
    const [png] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download PNG' }).click()]);
    expect(png.suggestedFilename()).toBe(`${shortId}-qr.png`);
    const pngBytes = readFileSync((await png.path())!);
    expect(pngBytes.readUInt32BE(16)).toBe(1024);
    expect(decodePng(pngBytes)).toBe(`${link.shortUrl}?ltqr=1`);
    const [svg] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download SVG' }).click()]);
    expect(svg.suggestedFilename()).toBe(`${shortId}-qr.svg`);
    const svgText = readFileSync((await svg.path())!, 'utf8');
    expect(svgText).toMatch(/^<svg /);
    expect(svgText).toContain('data:image/png;base64,');
    expect(svgText).not.toContain('<script');
    expect(d.cspViolations).toEqual([]);
  });

  it('Arabic at 375 px: right-to-left, the saved design shown, the logo taken off, the defaults back', async () => {
    // A workspace of its own whose link has the design the owner's test saves: logo, H, 1024 px, margin 4.
    const own = await d.workspaceOf(RANIA);
    const page = await d.newPage('ar-EG', PHONE);
    await d.signInWithApi(page, RANIA);
    const logoId = await uploadLogo(page, own.headers);
    const link = await makeLink(page, own.headers, { foreground: '1d4ed8', background: 'fef3c7', size: 1024, margin: 4, errorCorrection: 'H', logoId });
    await page.goto(`${d.origin}/app/links/${link.id}`);
    await page.getByRole('heading', { name: 'رمز QR', level: 2 }).waitFor();
    expect(await page.evaluate<string>('document.documentElement.dir')).toBe('rtl');
    expect(await page.getByRole('radio', { name: 'الشعار 1 (من SVG)' }).isChecked()).toBe(true);
    expect(await page.getByLabel('الحجم (بالبكسل)').inputValue()).toBe('1024');
    await page.getByRole('img', { name: /^رمز QR للرابط/ }).waitFor();
    await d.checkAccessibility(page, 'qr-designer-ar');

    await page.getByRole('radio', { name: 'بلا شعار' }).check();
    expect(await page.getByLabel('تصحيح الأخطاء').isDisabled()).toBe(false);
    await page.getByLabel('لون الخلفية').fill('#333333');
    await page.getByRole('alert').getByText('منخفض جدًا', { exact: false }).waitFor();
    await page.getByRole('button', { name: 'العودة إلى الإعدادات الافتراضية' }).click();
    await page.getByText(/تقرؤه الماسحات الضوئية/).waitFor();
    await page.getByRole('button', { name: 'احفظ التصميم' }).click();
    await page.getByRole('status').getByText('حُفظ تصميم رمز QR', { exact: false }).waitFor();
    await d.checkAccessibility(page, 'qr-designer-defaults-ar');
    expect((await linkNow(page, link.id, own.headers)).qrDesign).toEqual({
      foreground: '000000',
      background: 'ffffff',
      size: 600,
      margin: 2,
      errorCorrection: 'M',
      logoId: null,
    });
    expect(d.cspViolations).toEqual([]);
  });

  it('a viewer tries designs and downloads them, but neither saves nor uploads', async () => {
    // A workspace of its own with a logo uploaded and a link of the default design.
    const own = await d.workspaceOf(KARIM);
    const seeder = await d.newPage('en-US');
    await d.signInWithApi(seeder, KARIM);
    await uploadLogo(seeder, own.headers);
    const link = await makeLink(seeder, own.headers);
    const user = await d.t.admin('POST', '/users', VIEWER);
    expect(user.statusCode, user.body).toBe(201);
    const member = await d.t.admin('POST', `/workspaces/${own.workspaceId}/members`, { userId: user.json<{ id: string }>().id, role: 'viewer' });
    expect(member.statusCode, member.body).toBe(201);
    const page = await d.newPage('en-US');
    await d.signInWithApi(page, VIEWER);
    await page.goto(`${d.origin}/app/links/${link.id}`);
    await page.getByRole('heading', { name: 'QR code', level: 2 }).waitFor();
    await page.getByText('You may try designs and download them; saving a design or uploading a logo needs permission to edit links.').waitFor();
    expect(await page.getByRole('button', { name: 'Save design' }).count()).toBe(0);
    expect(await page.getByLabel(/^Upload a logo/).count()).toBe(0);
    // The workspace's logo is there to pick, and the download carries it.
    await page.getByRole('radio', { name: 'Logo 1 (from SVG)' }).check();
    const href = await page.getByRole('link', { name: 'Download PNG' }).getAttribute('href');
    expect(new URL(href!, d.origin).searchParams.get('errorCorrection')).toBe('H');
    expect(decodePng(await fetchPng(page, new URL(href!, d.origin)))).toBe(`${link.shortUrl}?ltqr=1`);
  });
});
