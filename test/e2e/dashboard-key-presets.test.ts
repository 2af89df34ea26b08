/**
 * The API key form's presets in Chromium: Read only, Tracking only and Full access tick the
 * scopes they name (the pressed one shown), a key made from a preset has exactly those scopes;
 * the presets in Arabic at 375 px.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dashboardRunnable, OWNER, PHONE, startDashboard, type Dashboard } from './dashboard-harness.js';

describe.skipIf(!dashboardRunnable())('API key presets', () => {
  let d: Dashboard;
  let headers: Record<string, string>;
  let workspaceId: string;
  beforeAll(async () => {
    d = await startDashboard();
    ({ headers, workspaceId } = await d.setUpOwner(await d.newPage()));
    await d.closeContexts();
  });
  afterEach(async () => d.closeContexts());
  afterAll(async () => d?.close());

  async function keysPage(locale = 'en-US', viewport?: { width: number; height: number }) {
    const page = await d.newPage(locale, viewport);
    const res = await page.request.post(`${d.origin}/api/auth/login`, {
      headers: { origin: d.origin },
      data: { email: OWNER.email, password: OWNER.password },
    });
    expect(res.status(), await res.text()).toBe(200);
    return page;
  }
  const ticked = (page: Awaited<ReturnType<typeof keysPage>>) =>
    page.locator('fieldset.scopes input[type="checkbox"]:checked').evaluateAll((boxes) => boxes.map((b) => (b as unknown as { value: string }).value));

  it('each preset ticks its scopes; a key made from Tracking only holds conversionsWrite alone', async () => {
    const page = await keysPage();
    await d.open(page, '/settings/keys', 'API keys');
    await page.getByRole('button', { name: 'New API key', exact: true }).click();
    const presets = page.getByRole('group', { name: 'Presets' });
    await presets.getByRole('button', { name: 'Read only' }).click();
    expect(await ticked(page)).toEqual([
      'linksRead',
      'collectionsRead',
      'tagsRead',
      'analyticsRead',
      'customersRead',
      'partnersRead',
      'webhooksRead',
      'programsRead',
    ]);
    expect(await presets.getByRole('button', { name: 'Read only' }).getAttribute('aria-pressed')).toBe('true');
    await presets.getByRole('button', { name: 'Full access' }).click();
    expect(await ticked(page)).toHaveLength(16);
    // A box unticked by hand is no preset any more.
    await page.getByRole('checkbox', { name: /webhooksWrite/ }).uncheck();
    expect(await presets.locator('[aria-pressed="true"]').count()).toBe(0);
    await presets.getByRole('button', { name: 'Tracking only (leads and sales)' }).click();
    expect(await ticked(page)).toEqual(['conversionsWrite']);
    await page.getByLabel('Name').fill('Checkout server');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('textbox', { name: 'Your new API key' }).waitFor();
    const keys = (await (await page.request.get(`${d.origin}/api/workspaces/${workspaceId}/keys`, { headers })).json()) as { name: string; scopes: string[] }[];
    expect(keys.find((k) => k.name === 'Checkout server')?.scopes).toEqual(['conversionsWrite']);
    expect(d.cspViolations).toEqual([]);
  });

  it('Arabic at 375 px: the presets translated, no overflow', async () => {
    const page = await keysPage('ar-EG', PHONE);
    await d.open(page, '/settings/keys', 'مفاتيح الواجهة البرمجية');
    await page.getByRole('button', { name: 'مفتاح واجهة برمجية جديد', exact: true }).click();
    await page.getByRole('group', { name: 'مجموعات جاهزة' }).getByRole('button', { name: 'قراءة فقط' }).click();
    expect(await ticked(page)).toHaveLength(8);
    await d.checkAccessibility(page, 'key-presets-ar');
  });
});
