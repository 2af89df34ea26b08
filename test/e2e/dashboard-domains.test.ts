/**
 * Settings → Domains in Chromium on a real server (operations.md §13): an owner claims a host,
 * sees the TXT record to add (copied), verifies it and reads what the DNS answered (no record,
 * then a wrong one) from a DNS responder this test runs (DNS_SERVERS); the operator verifies
 * the claim through the admin API and the page shows it active; the owner changes where it
 * sends visitors and removes it. axe at desktop and 375 px, English and Arabic (right-to-left).
 * Screenshots: test/e2e/__screenshots__/dashboard-domains-*.png.
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN } from '../helpers/app.js';
import { startTxtServer } from '../modules/domains/dns-server.js';
import { dashboardRunnable, OWNER, PHONE, startDashboard, type Dashboard } from './dashboard-harness.js';

const HOST = 'go.brand-old.example';

describe.skipIf(!dashboardRunnable())('Settings → Domains in Chromium', () => {
  let d: Dashboard;
  let dns: Awaited<ReturnType<typeof startTxtServer>>;
  /** The setup's workspace (made once; each test signs in itself). */
  let workspaceId: string;
  beforeAll(async () => {
    dns = await startTxtServer();
    d = await startDashboard({ DNS_SERVERS: dns.address });
    ({ workspaceId } = await d.setUpOwner(await d.newPage()));
    await d.closeContexts();
  });
  afterEach(async () => d.closeContexts());
  afterAll(async () => {
    await d?.close();
    await dns?.close();
  });

  const item = (page: Page, host: string) =>
    page.getByRole('listitem').filter({ has: page.locator('code', { hasText: new RegExp(`^${host.replace(/\./g, '\\.')}$`) }) });
  const domainsOf = async (page: Page) => (await page.request.get(`${d.origin}/api/domains`, { headers: { 'x-workspace-id': workspaceId } })).json();
  const operatorVerifies = async (page: Page, id: string) => {
    const res = await page.request.post(`${d.origin}/admin/domains/${id}/verify`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(res.status(), await res.text()).toBe(200);
  };

  it('an owner claims a host, sees its TXT record, reads why verifying fails; the operator verifies it; the owner edits and removes it', async () => {
    const page = await d.clipboardPage();
    await d.signInWithApi(page, OWNER);
    await d.open(page, '/settings/domains', 'Domains');
    const nav = page.getByRole('navigation', { name: 'Section' });
    expect(await nav.getByRole('link', { name: 'Domains' }).getAttribute('aria-current')).toBe('page');
    await page.getByText('No hosts yet.').waitFor();
    await d.checkAccessibility(page, 'domains-empty-en');

    // A bad host is refused with the API's words; then the claim.
    await page.getByLabel('Host', { exact: true }).fill('127.0.0.1');
    await page.getByRole('button', { name: 'Claim host' }).click();
    await page
      .getByRole('alert')
      .getByText(/IP address/i)
      .waitFor();
    await page.getByLabel('Host', { exact: true }).fill(HOST.toUpperCase());
    await page.getByLabel('Root URL').fill('https://brand-old.example/');
    await page.getByRole('button', { name: 'Claim host' }).click();
    await page.getByRole('status').getByText(`${HOST} is claimed. Add its TXT record, then verify it.`).waitFor();
    expect(await page.getByLabel('Host', { exact: true }).inputValue()).toBe('');

    const claimed = item(page, HOST);
    await claimed.getByText('Pending').waitFor();
    const [domain] = await domainsOf(page);
    expect(domain).toMatchObject({ host: HOST, status: 'pending', rootUrl: 'https://brand-old.example/', notFoundUrl: null });
    const { txtName, txtValue } = domain.verification as { txtName: string; txtValue: string };
    expect(txtName).toBe(`_linktrail.${HOST}`);
    await claimed.locator('code', { hasText: txtName }).waitFor();
    await claimed.locator('code', { hasText: txtValue }).waitFor();
    await claimed.getByRole('button', { name: `Copy: TXT value of ${HOST}` }).click();
    await claimed.getByRole('button', { name: `Copied: TXT value of ${HOST}` }).waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(txtValue);
    await claimed.getByRole('button', { name: `Copy: TXT name of ${HOST}` }).click();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(txtName);
    await d.checkAccessibility(page, 'domains-pending-en');

    // Verify with no record, then with a wrong one: the page says what the DNS answered.
    await claimed.getByRole('button', { name: `Verify ${HOST}` }).click();
    await claimed.getByRole('alert').getByText(`No TXT record was found at ${txtName}. Add one with the value ${txtValue}`).waitFor();
    dns.records.set(txtName, ['linktrail-verify=someone-elses-value']);
    await claimed.getByRole('button', { name: `Verify ${HOST}` }).click();
    await claimed
      .getByRole('alert')
      .getByText(/\("linktrail-verify=someone-elses-value"\) do not include/)
      .waitFor();
    expect((await domainsOf(page))[0].status).toBe('pending');
    await d.checkAccessibility(page, 'domains-verify-failed-en');

    // The operator vouches for it: after a reload the page shows it active, without the record or Verify.
    await operatorVerifies(page, domain.id);
    await page.reload();
    await claimed.getByText('Active').waitFor();
    expect(await claimed.getByRole('button', { name: `Verify ${HOST}` }).count()).toBe(0);
    expect(await claimed.locator('code', { hasText: txtValue }).count()).toBe(0);
    await claimed.getByText('Verified').waitFor();

    // Where it sends visitors: a not-found address added, the root cleared.
    await claimed.getByRole('button', { name: `Edit ${HOST}` }).click();
    await expect.poll(() => page.evaluate<string>('document.activeElement.getAttribute("name")')).toBe('rootUrl');
    await claimed.getByLabel('Not-found URL').fill('http://brand-old.example/missing');
    await claimed.getByRole('button', { name: 'Save' }).click();
    await claimed.getByRole('alert').getByText(/https/).waitFor();
    await claimed.getByLabel('Root URL').fill('');
    await claimed.getByLabel('Not-found URL').fill('https://brand-old.example/missing');
    await claimed.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText(`${HOST} saved.`).waitFor();
    await claimed.locator('code', { hasText: 'https://brand-old.example/missing' }).waitFor();
    expect((await domainsOf(page))[0]).toMatchObject({ status: 'active', rootUrl: null, notFoundUrl: 'https://brand-old.example/missing' });
    await d.checkAccessibility(page, 'domains-active-en');

    // Removed after a confirmation (Cancel first keeps it).
    await claimed.getByRole('button', { name: `Remove ${HOST}` }).click();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await claimed.getByRole('button', { name: `Remove ${HOST}` }).click();
    await page.getByText(`Remove ${HOST}? It stops routing at once`).waitFor();
    await page.getByRole('button', { name: 'Yes, remove' }).click();
    await page.getByRole('status').getByText(`${HOST} removed.`).waitFor();
    await page.getByText('No hosts yet.').waitFor();
    expect(await domainsOf(page)).toEqual([]);
    expect(d.cspViolations).toEqual([]);
  });

  it('Arabic at 375 px: right-to-left, the DNS answer in Arabic, active after the operator verifies', async () => {
    const page = await d.clipboardPage('ar-EG', PHONE);
    await d.signInWithApi(page, OWNER);
    await d.open(page, '/settings/domains', 'النطاقات');
    expect(await page.evaluate<string>('document.documentElement.dir')).toBe('rtl');
    const host = 'links.mutajar-qadim.example';
    await page.getByLabel('المضيف', { exact: true }).fill(host);
    await page.getByRole('button', { name: 'طالِب بالمضيف' }).click();
    const claimed = item(page, host);
    await claimed.getByText('بانتظار التحقق').waitFor();
    await claimed.getByRole('button', { name: `تحقّق من ${host}` }).click();
    await claimed.getByRole('alert').getByText(`لم يُعثر على سجل TXT في \u2068_linktrail.${host}\u2069`, { exact: false }).waitFor();
    await d.checkAccessibility(page, 'domains-pending-ar');
    const [domain] = await domainsOf(page);
    await operatorVerifies(page, domain.id);
    await page.reload();
    await claimed.getByText('نشط', { exact: true }).waitFor();
    await d.checkAccessibility(page, 'domains-active-ar');
  });
});
