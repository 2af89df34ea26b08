/**
 * The header at 375 px is compact: the brand, the workspace and language selects, the person
 * and Sign out in at most two lines, the selects still named by their labels (screen readers),
 * in English and Arabic; at 1280 px the labels are shown.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dashboardRunnable, DESKTOP, OWNER, PHONE, SCREENSHOTS, startDashboard, type Dashboard } from './dashboard-harness.js';

describe.skipIf(!dashboardRunnable())('the header on a phone', () => {
  let d: Dashboard;
  beforeAll(async () => {
    d = await startDashboard();
    await d.setUpOwner(await d.newPage());
    await d.closeContexts();
  });
  afterEach(async () => d.closeContexts());
  afterAll(async () => d?.close());

  for (const [locale, workspace, language] of [
    ['en-US', 'Workspace', 'Language'],
    ['ar-EG', 'مساحة العمل', 'اللغة'],
  ] as const) {
    it(`${locale}: two lines at 375 px, the selects named; the labels shown at 1280 px`, async () => {
      const page = await d.newPage(locale, PHONE);
      const res = await page.request.post(`${d.origin}/api/auth/login`, {
        headers: { origin: d.origin },
        data: { email: OWNER.email, password: OWNER.password },
      });
      expect(res.status(), await res.text()).toBe(200);
      await page.goto(`${d.origin}/app`);
      const header = page.locator('header.topbar');
      await header.waitFor();
      await page.getByLabel(workspace, { exact: true }).waitFor();
      expect(await page.getByLabel(language, { exact: true }).inputValue()).toBe(locale.slice(0, 2));
      // Lines of the header: items side by side share a line; one starting below the line's bottom starts the next.
      const lines = () =>
        header.evaluate(`(() => {
          const boxes = [...document.querySelectorAll('header.topbar > *')].map((i) => i.getBoundingClientRect()).sort((a, b) => a.top - b.top);
          let count = 0, bottom = -Infinity;
          for (const b of boxes) { if (b.top >= bottom - 1) { count++; bottom = b.bottom; } else bottom = Math.max(bottom, b.bottom); }
          return count;
        })()`);
      await page.screenshot({ path: `${SCREENSHOTS}/header-${locale}-375.png` });
      expect(await lines()).toBeLessThanOrEqual(2);
      // The label is there for screen readers only: a clipped pixel.
      expect((await page.getByText(workspace, { exact: true }).boundingBox())?.width).toBeLessThanOrEqual(1);
      await d.checkAccessibility(page, `header-${locale}`);
      await page.setViewportSize(DESKTOP);
      await expect.poll(async () => (await page.getByText(workspace, { exact: true }).boundingBox())?.width).toBeGreaterThan(20);
      expect(await lines()).toBe(1);
    });
  }
});
