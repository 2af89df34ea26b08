/**
 * Settings → Audit log in Chromium on a real server (operations.md §15): an owner's changes
 * (with a session and with an API key) and a failed sign-in show as rows of who, what, when and
 * from where; the action filter narrows them; the CSV download holds the same entries. axe at desktop and 375 px, English and Arabic (right-to-left).
 * Screenshots: test/e2e/__screenshots__/dashboard-audit-log-*.png.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dashboardRunnable, OWNER, PHONE, startDashboard, type Dashboard } from './dashboard-harness.js';

describe.skipIf(!dashboardRunnable())('Settings → Audit log in Chromium', () => {
  let d: Dashboard;
  beforeAll(async () => {
    d = await startDashboard();
  });
  afterEach(async () => d.closeContexts());
  afterAll(async () => {
    await d?.close();
  });

  it('shows who changed what, when and from where; filters by who (by name) and by action; downloads the CSV', async () => {
    const page = await d.newPage();
    const { headers } = await d.setUpOwner(page);
    const api = (method: 'post' | 'put', url: string, data: unknown) => page.request[method](`${d.origin}${url}`, { headers, data });
    expect((await api('post', '/api/tags', [{ name: 'spring' }, { name: 'summer' }])).status()).toBe(201);
    const me = await (await page.request.get(`${d.origin}/api/me`)).json();
    const made = await api('post', `/api/workspaces/${me.workspaces[0].id}/keys`, { name: 'CI deploy', scopes: ['linksRead', 'collectionsWrite'] });
    expect(made.status()).toBe(201);
    const key = (await made.json()).key as string;
    // Another client (the page's context would also send its session cookie: two credentials).
    const byKey = await d.t.inject({ method: 'POST', url: '/api/collections', headers: { authorization: `Bearer ${key}` }, payload: [{ name: 'Launch' }] });
    expect(byKey.statusCode).toBe(201);
    const failed = await page.request.post(`${d.origin}/api/auth/login`, {
      headers: { origin: d.origin },
      data: { email: OWNER.email, password: 'not the password at all' },
    });
    expect(failed.status()).toBe(401);

    await d.open(page, '/settings/audit-log', 'Audit log');
    const nav = page.getByRole('navigation', { name: 'Section' });
    expect(await nav.getByRole('link', { name: 'Audit log' }).getAttribute('aria-current')).toBe('page');
    const table = page.getByRole('region', { name: 'Audit log entries' });
    await table.getByText('collections.created').waitFor();
    const row = (action: string) => table.getByRole('row').filter({ has: page.locator('code', { hasText: new RegExp(`^${action.replace(/\./g, '\\.')}$`) }) });
    await row('collections.created').getByText('CI deploy').waitFor();
    await row('collections.created').getByText('API key').waitFor();
    await row('tags.created').getByText('2 records').waitFor();
    await row('tags.created').getByText(OWNER.email).waitFor();
    await row('key.created').waitFor();
    expect(await row('sign_in.password.failed').count()).toBe(1);
    await row('sign_in.password.failed').getByText('127.0.0.1').waitFor();
    await d.checkAccessibility(page, 'audit-log-en');

    // Who, chosen by name: the key's entries only.
    const who = page.getByLabel('Who');
    await expect
      .poll(() => who.locator('option').allTextContents())
      .toEqual(expect.arrayContaining(['Anyone', 'CI deploy — API key', `${OWNER.email} — Person`]));
    await who.selectOption({ label: 'CI deploy — API key' });
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => table.getByRole('row').count()).toBe(2);
    await row('collections.created').waitFor();
    await who.selectOption('');

    await page.getByLabel('Action').selectOption('tags.created');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => table.getByRole('row').count()).toBe(2); // the heading row and one entry
    await row('tags.created').waitFor();

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    const csv = (await readFile((await download.path())!, 'utf8')).replace(/^\uFEFF/, '');
    const lines = csv.trimEnd().split('\r\n');
    expect(lines[0]).toBe('at,actorKind,actorId,actorUserId,actorName,action,targetIds,counts,changes,ip,userAgent');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(`,${OWNER.email},tags.created,`);

    await page.getByRole('button', { name: 'Clear' }).click();
    await expect.poll(() => table.getByRole('row').count()).toBeGreaterThan(4);
    expect(d.cspViolations).toEqual([]);
  });

  it('Arabic at 375 px: right-to-left, the same entries in Arabic words', async () => {
    const page = await d.newPage('ar-EG', PHONE);
    const login = await page.request.post(`${d.origin}/api/auth/login`, {
      headers: { origin: d.origin },
      data: { email: OWNER.email, password: OWNER.password },
    });
    expect(login.status()).toBe(200);
    await d.open(page, '/settings/audit-log', 'سجل التدقيق');
    expect(await page.evaluate<string>('document.documentElement.dir')).toBe('rtl');
    const table = page.getByRole('region', { name: 'إدخالات سجل التدقيق' });
    await table.getByText('مفتاح API').first().waitFor();
    await table.getByText('سجلان').first().waitFor();
    await page.getByRole('button', { name: 'تنزيل CSV' }).waitFor();
    await d.checkAccessibility(page, 'audit-log-ar');
  });
});
