/**
 * /docs in a real browser: titled Linktrail, the introduction rendered, and not one request to
 * another origin nor one Content-Security-Policy refusal while the page builds itself.
 * Skips itself, saying why, when Chromium is not installed; fails under CI (helpers/requirements.ts).
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/core/scopes.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/process.js';
import { launchChromium, chromiumAvailable } from '../helpers/requirements.js';

describe.skipIf(!chromiumAvailable('/docs in Chromium'))('/docs in Chromium', () => {
  let t: TestApp;
  let origin: string;
  let browser: Browser;

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://localhost:${port}`;
    t = await startTestApp({ env: { PORT: String(port), BASE_URL: origin } });
    await t.runtime.app.listen({ port, host: '127.0.0.1' });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows Linktrail API with its credentials and scopes, loading only from its own origin', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const requested: string[] = [];
    const refused: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) refused.push(m.text());
    });
    page.on('pageerror', (e) => refused.push(String(e)));

    await page.goto(`${origin}/docs`);
    await page.locator('.info .title').waitFor();
    // An operation rendered from the document, so the UI has fully built itself.
    await page.locator('.opblock').first().waitFor();

    // Opening an operation renders its schemas and highlighted examples.
    await page.locator('.opblock-summary').first().click();
    await page.locator('.opblock-body').first().waitFor();
    await page.locator('.opblock-body .highlight-code, .opblock-body .model-box').first().waitFor();

    expect(await page.title()).toBe('Linktrail API');
    expect(await page.locator('.info .title').innerText()).toMatch(/^Linktrail API/);
    const intro = await page.locator('.info .description').innerText();
    expect(intro).toMatch(/Authorization: Bearer/);
    for (const scope of SCOPES) expect(intro).toContain(scope);
    expect(intro).toContain('X-RateLimit-Remaining');
    // Each operation shows its operationId, the name generated clients and the SDK give it.
    const operationIds = await page.locator('.opblock-summary-operation-id').allInnerTexts();
    expect(operationIds).toContain('listLinks');
    expect(operationIds).toContain('trackSale');
    // No top bar with a logo, no validator badge.
    expect(await page.locator('.topbar').count()).toBe(0);
    expect(await page.locator('img[src*="validator"]').count()).toBe(0);

    expect(requested.length).toBeGreaterThan(3);
    for (const url of requested) {
      if (url.startsWith('data:')) continue;
      expect(new URL(url).origin, url).toBe(origin);
    }
    expect(refused).toEqual([]);
    await context.close();
  });
});
