/**
 * First run (operations.md §14): while nobody has an account, /app says where the setup link
 * is — the server's terminal or log — in English and Arabic, without ever showing a code; once
 * the first account exists it says nothing of it. And `npm start` prints the setup URL as a
 * plain line (stderr) besides the JSON log line (stdout). The dashboard's favicon is served as SVG.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres } from '../helpers/app.js';
import { ensureBuilt, startBuiltService, type Service } from '../helpers/process.js';
import { dashboardRunnable, startDashboard, type Dashboard } from './dashboard-harness.js';

const HINT = { 'en-US': 'Nobody has an account yet', ar: 'لا يوجد أي حساب بعد' } as const;
const SIGN_IN = { 'en-US': 'Sign in to Linktrail', ar: 'تسجيل الدخول إلى لينكتريل' } as const;

describe.skipIf(!dashboardRunnable())('/app before the first account, in Chromium', () => {
  let d: Dashboard;
  beforeAll(async () => {
    d = await startDashboard();
  });
  afterEach(async () => d.closeContexts());
  afterAll(async () => d?.close());

  for (const locale of ['en-US', 'ar'] as const) {
    it(`says where the setup link is, never the code (${locale})`, async () => {
      const page = await d.newPage(locale);
      await d.open(page, '', SIGN_IN[locale]);
      const hint = page.getByRole('status').filter({ hasText: HINT[locale] });
      await hint.waitFor();
      expect(await hint.textContent()).toContain('/app/setup?code=…');
      expect(await page.locator('body').textContent()).not.toMatch(/code=[\w-]{8,}/);
      await d.checkAccessibility(page, `first-run-${locale}`);
      expect(d.cspViolations).toEqual([]);
    });
  }

  it('links a favicon, served as SVG', async () => {
    const page = await d.newPage();
    await page.goto(`${d.origin}/app`);
    const href = await page.locator('link[rel="icon"]').getAttribute('href');
    expect(href).toMatch(/^\/app\/assets\/favicon-[\w-]+\.svg$/);
    const res = await page.request.get(`${d.origin}${href}`);
    expect(res.status()).toBe(200);
    expect(res.headers()['content-type']).toBe('image/svg+xml');
    expect(await res.text()).toContain('#1f5fbf');
  });

  it('once the first account exists, the sign-in page says nothing of setup', async () => {
    await d.setUpOwner(await d.newPage());
    const page = await d.newPage();
    const asked = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/setup');
    await d.open(page, '', SIGN_IN['en-US']);
    expect(await (await asked).json()).toEqual({ needed: false });
    // The answer has been rendered once two frames have passed since it arrived.
    await page.evaluate('new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))');
    await page.getByLabel('Email').waitFor();
    expect(await page.getByText(HINT['en-US']).count()).toBe(0);
  });
});

// The same on either engine: run once, on PGlite in a directory of its own.
describe.skipIf(onPostgres)('npm start with nobody having an account', () => {
  let dir: string;
  let service: Service | undefined;
  beforeAll(() => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'lt-first-run-'));
  }, 180_000);
  afterAll(async () => {
    if (service && !service.hasExited()) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('prints the setup URL as a plain line, and keeps the JSON log line with the same URL', async () => {
    service = await startBuiltService(dir, { DATA_DIR: join(dir, 'data') });
    const started = service;
    await expect.poll(() => started.output()).toMatch(/^No account yet\./m);
    const lines = service.output().split('\n');
    const plain = lines.filter((l) => l.startsWith('No account yet.'));
    expect(plain).toHaveLength(1);
    const url = plain[0]!.match(/(\S+)$/)![1]!;
    expect(url).toMatch(new RegExp(`^${service.origin}/app/setup\\?code=[\\w-]{20,}$`));
    const logged = lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { setupUrl?: string });
    expect(logged.filter((l) => l.setupUrl).map((l) => l.setupUrl)).toEqual([url]);
  });
});
