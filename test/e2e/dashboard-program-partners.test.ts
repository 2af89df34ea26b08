/**
 * Partner program → Partners in Chromium on a real server (operations.md §18, "Owner's
 * dashboard"): an owner adds a partner (approved at once), sees their clicks, lead, sale, revenue
 * and earnings once a click, a lead and a sale went through the API; approves one pending partner
 * and rejects another, bans one (asked first: it reverses unpaid commissions), moves one to
 * another group; the Program page shows earnings by partner. Arabic at 375 px (right to left); a
 * member's approval refused with the API's words (403 owner_required). axe clean at both widths,
 * no horizontal overflow, no CSP report. Each test has a workspace of its own.
 * Screenshots: test/e2e/__screenshots__/dashboard-program-partners-*.png.
 */
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dashboardRunnable, PHONE, startDashboard, type Dashboard, type Person } from './dashboard-harness.js';

const DESKTOP_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';

interface PartnerRead {
  id: string;
  name: string;
  status: string;
  groupId: string | null;
  defaultLinkId: string | null;
  stats?: { clicks: number; leads: number; sales: number; revenue: Record<string, number>; earnings?: Record<string, Record<string, number>> };
}

describe.skipIf(!dashboardRunnable())('Partner program → Partners in Chromium', () => {
  let d: Dashboard;
  beforeAll(async () => {
    d = await startDashboard();
    // The server's first user (setup done), as a fresh installation has one; each test then makes its own workspace.
    await d.setUpOwner(await d.newPage());
    await d.closeContexts();
  });
  afterEach(async () => d.closeContexts());
  afterAll(async () => d?.close());

  /** The API as the signed-in person on `page` calls it (their session, their workspace). */
  const apiOf = (headers: Record<string, string>) => async (page: Page, method: 'get' | 'post' | 'put', path: string, data?: unknown) => {
    const res = await page.request[method](`${d.origin}${path}`, { headers, data });
    expect(res.status(), `${method} ${path}: ${await res.text()}`).toBeLessThan(300);
    return res.json();
  };
  const newPerson = (name: string): Person => ({
    name,
    email: `${name.split(' ')[0]!.toLowerCase()}-${randomUUID().slice(0, 8)}@example.com`,
    password: 'violet-harbour-91-lantern',
  });

  /**
   * A new owner of a workspace of their own, signed in on `page`, with a program paying $5.00 a
   * lead and 20 % of a sale, and a second group, Creators.
   */
  const programOwner = async (page: Page) => {
    const person = newPerson('Program Owner');
    const { workspaceId, headers } = await d.workspaceOf(person);
    const api = apiOf(headers);
    await d.signInWithApi(page, person);
    await api(page, 'put', '/api/program', {
      name: 'Acme Partners',
      slug: `acme-${randomUUID().slice(0, 8)}`,
      landingUrl: 'https://shop.example/',
      currency: 'usd',
      holdingDays: 14,
    });
    const [group] = await api(page, 'get', '/api/partner-groups');
    await api(page, 'put', '/api/partner-groups', [
      {
        id: group.id,
        rewards: [
          { event: 'sale', type: 'percentage', amount: 2000 },
          { event: 'lead', type: 'flat', amount: 500 },
        ],
      },
    ]);
    const [creators] = await api(page, 'post', '/api/partner-groups', [{ name: 'Creators' }]);
    return { api, workspaceId, defaultGroupId: group.id as string, creatorsId: creators.id as string };
  };
  const partners = async (api: ReturnType<typeof apiOf>, page: Page): Promise<PartnerRead[]> => api(page, 'get', '/api/partners?withStats=true&take=100');
  /** A visitor's click through the redirect route; the click id the destination was given. */
  const click = async (path: string, n: number): Promise<string> => {
    const res = await d.t.inject({ method: 'GET', url: path, remoteAddress: `198.51.100.${n}`, headers: { 'user-agent': DESKTOP_UA } });
    expect(res.statusCode, res.body).toBe(302);
    return new URL(String(res.headers.location)).searchParams.get('ltid')!;
  };

  it('an owner adds a partner, sees their figures, approves, rejects, bans and regroups partners', async () => {
    const page = await d.newPage();
    const { api, creatorsId } = await programOwner(page);
    await d.open(page, '/program/partners', 'Partners');
    const section = page.getByRole('navigation', { name: 'Section' });
    expect(await section.getByRole('link', { name: 'Partners' }).getAttribute('aria-current')).toBe('page');
    await page.getByText('No partners yet. Add one below, or open applications in the program settings.').waitFor();

    // Added through the form, in the default group: approved at once, with a default link.
    await page.getByLabel('Name', { exact: true }).fill('Ana Partner');
    await page.getByLabel('E-mail (optional)').fill('ana@partner.example');
    await page.getByRole('button', { name: 'Add partner' }).click();
    await page.getByRole('status').getByText('Ana Partner added and approved.').waitFor();
    const table = page.getByRole('region', { name: 'Partners' });
    const row = (name: string) => table.getByRole('row').filter({ hasText: name });
    await row('Ana Partner').getByText('Approved').waitFor();
    await row('Ana Partner').getByText('Referral key: ana-partner').waitFor();
    const [ana] = await partners(api, page);
    expect(ana).toMatchObject({ name: 'Ana Partner', status: 'approved' });
    expect(ana!.defaultLinkId).toBeTruthy();

    // A click on her default link, a lead and a $150.00 sale: $5.00 + $30.00 earned, pending (14 holding days).
    const [link] = await api(page, 'get', `/api/links?id=${ana!.defaultLinkId}`);
    const clickId = await click(new URL(link.shortUrl).pathname, 1);
    await api(page, 'post', '/api/track/lead', {
      clickId,
      eventName: 'Sign up',
      customerExternalId: 'cus-1',
      customerName: 'Cam Buyer',
      customerEmail: 'cam@example.com',
    });
    await api(page, 'post', '/api/track/sale', { customerExternalId: 'cus-1', customerName: 'Cam Buyer', amount: 15000, currency: 'usd' });
    await expect
      .poll(async () => {
        const stats = (await partners(api, page)).find((p) => p.id === ana!.id)?.stats;
        return stats && { clicks: stats.clicks, leads: stats.leads, sales: stats.sales, earnings: stats.earnings };
      })
      .toEqual({ clicks: 1, leads: 1, sales: 1, earnings: { usd: { pending: 3500, held: 0, payable: 0, paid: 0 } } });
    await d.open(page, '/program/partners', 'Partners');
    const figures = (name: string, figure: string) => row(name).locator(`[data-figure="${figure}"]`).textContent();
    expect(await figures('Ana Partner', 'clicks')).toBe('1');
    expect(await figures('Ana Partner', 'leads')).toBe('1');
    expect(await figures('Ana Partner', 'sales')).toBe('1');
    expect(await figures('Ana Partner', 'revenue')).toBe('$150.00');
    expect(await row('Ana Partner').locator('[data-currency="usd"][data-state="pending"]').textContent()).toBe('Pending $35.00');

    // The Program page: earnings by partner.
    await section.getByRole('link', { name: 'Program' }).click();
    const top = page.getByRole('region', { name: 'Earnings by partner' });
    await top.getByRole('row').filter({ hasText: 'Ana Partner' }).getByText('Pending $35.00').waitFor();
    expect(await top.getByRole('row').filter({ hasText: 'Ana Partner' }).getByRole('cell').nth(1).textContent()).toBe('$150.00');
    await d.checkAccessibility(page, 'program-partners-top-en');

    // Two applicants awaiting review: one approved, one rejected, found by the status filter.
    await api(page, 'post', '/api/partners', [
      { name: 'Bob Applicant', status: 'pending' },
      { name: 'Cy Applicant', status: 'pending' },
    ]);
    await d.open(page, '/program/partners', 'Partners');
    await page.getByLabel('Status').selectOption('pending');
    await expect.poll(() => table.getByRole('row').count()).toBe(3);
    await d.checkAccessibility(page, 'program-partners-pending-en');
    await row('Bob Applicant').getByRole('button', { name: 'Approve Bob Applicant' }).click();
    await page.getByRole('status').getByText('Bob Applicant is now: Approved.').waitFor();
    await expect.poll(() => table.getByRole('row').count()).toBe(2);
    await row('Cy Applicant').getByRole('button', { name: 'Reject Cy Applicant' }).click();
    await page.getByRole('status').getByText('Cy Applicant is now: Rejected.').waitFor();
    await page.getByText('No partners in this status.').waitFor();
    const byName = async () => new Map((await partners(api, page)).map((p) => [p.name, p]));
    expect((await byName()).get('Bob Applicant')?.status).toBe('approved');
    expect((await byName()).get('Cy Applicant')?.status).toBe('rejected');

    // Bob moves to Creators.
    await page.getByLabel('Status').selectOption('');
    await row('Bob Applicant').getByLabel('Group of Bob Applicant').selectOption({ label: 'Creators' });
    await page.getByRole('status').getByText('Bob Applicant moved to the group Creators.').waitFor();
    expect((await byName()).get('Bob Applicant')?.groupId).toBe(creatorsId);

    // Ana banned, asked first: the question says her unpaid commissions are reversed; Cancel does nothing.
    await row('Ana Partner').getByRole('button', { name: 'Ban Ana Partner' }).click();
    const ask = page.getByRole('alertdialog', { name: 'Ban Ana Partner?' });
    await ask.getByText('Their commissions not yet paid (pending, held and payable) are reversed at once').waitFor();
    await d.checkAccessibility(page, 'program-partners-ban-en');
    await ask.getByRole('button', { name: 'Cancel' }).click();
    await ask.waitFor({ state: 'detached' });
    expect((await byName()).get('Ana Partner')?.status).toBe('approved');
    await row('Ana Partner').getByRole('button', { name: 'Ban Ana Partner' }).click();
    await ask.getByRole('button', { name: 'Yes, ban' }).click();
    await page.getByRole('status').getByText('Ana Partner is now: Banned.').waitFor();
    await row('Ana Partner').getByText('Banned').waitFor();
    // Banned: approved again is the one move left; her commissions are reversed, so no earnings show.
    await row('Ana Partner').getByRole('button', { name: 'Approve Ana Partner' }).waitFor();
    expect(await figures('Ana Partner', 'earnings')).toBe('—');
    const reversed = await api(page, 'get', `/api/commissions?partnerId=${ana!.id}`);
    expect(reversed.map((c: { status: string; reversedReason: string }) => [c.status, c.reversedReason])).toEqual([
      ['reversed', 'banned'],
      ['reversed', 'banned'],
    ]);
    await d.checkAccessibility(page, 'program-partners-en');
    expect(d.cspViolations).toEqual([]);
  });

  it('Arabic at 375 px: figures per currency, an approval and a ban, right to left', async () => {
    const page = await d.newPage('ar-EG', PHONE);
    const { api } = await programOwner(page);
    const [dana, eli] = await api(page, 'post', '/api/partners', [
      { name: 'Dana Partner', status: 'pending' },
      { name: 'Eli Partner', email: 'eli@partner.example', couponCodes: ['ELI10'] },
    ]);
    // A custom commission is payable at once.
    await api(page, 'post', '/api/commissions', [{ partnerId: eli.id, earnings: 4250, currency: 'usd', description: 'Launch bonus' }]);
    await d.open(page, '/program/partners', 'الشركاء');
    expect(await page.evaluate<string>('document.documentElement.dir')).toBe('rtl');
    const table = page.getByRole('region', { name: 'الشركاء' });
    const row = (name: string) => table.getByRole('row').filter({ hasText: name });
    await row('Eli Partner').getByText('معتمد').waitFor();
    await row('Eli Partner').getByText('ELI10').waitFor();
    expect(await row('Eli Partner').locator('[data-currency="usd"][data-state="payable"]').textContent()).toMatch(/^مستحقة الدفع .*(42[.,٫]50|٤٢٫٥٠)/);
    await row('Dana Partner').getByText('بانتظار المراجعة').waitFor();
    await d.checkAccessibility(page, 'program-partners-ar');

    await row('Dana Partner').getByRole('button', { name: 'اعتمد Dana Partner' }).click();
    await page.getByRole('status').getByText('حالة Dana Partner الآن: معتمد.').waitFor();
    await row('Eli Partner').getByRole('button', { name: 'احظر Eli Partner' }).click();
    const ask = page.getByRole('alertdialog', { name: 'أتحظر Eli Partner؟' });
    await ask.getByText('تُلغى فورًا عمولاته التي لم تُدفع بعد').waitFor();
    await d.checkAccessibility(page, 'program-partners-ban-ar');
    await ask.getByRole('button', { name: 'نعم، احظره' }).click();
    await page.getByRole('status').getByText('حالة Eli Partner الآن: محظور.').waitFor();
    const after = new Map((await partners(api, page)).map((p) => [p.id, p.status]));
    expect([after.get(dana.id), after.get(eli.id)]).toEqual(['approved', 'banned']);
    const [bonus] = await api(page, 'get', `/api/commissions?partnerId=${eli.id}`);
    expect(bonus).toMatchObject({ status: 'reversed', reversedReason: 'banned', earnings: 4250 });

    // The Program page in Arabic: earnings by partner (Eli's bonus, reversed, no longer counts: nobody has earned anything).
    await d.open(page, '/program', 'برنامج الشركاء');
    await page.getByRole('heading', { name: 'الأرباح حسب الشريك' }).waitFor();
    await page.getByText('لم يكسب أي شريك شيئًا خلال آخر 30 يومًا.').waitFor();
    await d.checkAccessibility(page, 'program-partners-top-ar');
    expect(d.cspViolations).toEqual([]);
  });

  it('a member may reject but not approve: the API’s 403 owner_required is shown in their language', async () => {
    const ownerPage = await d.newPage();
    const { api, workspaceId } = await programOwner(ownerPage);
    await api(ownerPage, 'post', '/api/partners', [
      { name: 'Fay Applicant', status: 'pending' },
      { name: 'Gus Applicant', status: 'pending' },
    ]);
    const member = newPerson('Mo Member');
    const user = await d.t.admin('POST', '/users', member);
    expect(user.statusCode, user.body).toBe(201);
    const added = await d.t.admin('POST', `/workspaces/${workspaceId}/members`, { userId: user.json<{ id: string }>().id, role: 'member' });
    expect(added.statusCode, added.body).toBe(201);

    const page = await d.newPage();
    await d.signInWithApi(page, member);
    await d.open(page, '/program/partners', 'Partners');
    const table = page.getByRole('region', { name: 'Partners' });
    const row = (name: string) => table.getByRole('row').filter({ hasText: name });
    await row('Fay Applicant').getByRole('button', { name: 'Approve Fay Applicant' }).click();
    await page.getByRole('alert').getByText('Only an owner of this workspace can do this.').waitFor();
    await d.checkAccessibility(page, 'program-partners-member-en');
    await row('Gus Applicant').getByRole('button', { name: 'Reject Gus Applicant' }).click();
    await page.getByRole('status').getByText('Gus Applicant is now: Rejected.').waitFor();
    const statuses = new Map((await api(ownerPage, 'get', '/api/partners')).map((p: PartnerRead) => [p.name, p.status]));
    expect([statuses.get('Fay Applicant'), statuses.get('Gus Applicant')]).toEqual(['pending', 'rejected']);
    expect(d.cspViolations).toEqual([]);
  });
});
