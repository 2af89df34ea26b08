/**
 * Partner program in Chromium on a real server (operations.md §18, "Owner's dashboard"): an owner
 * starts a program, reads the API's refusals at their fields, changes its settings, adds rewards
 * and reads them as sentences, orders them, adds, renames and deletes a group; commissions made
 * through the API (a partner's link clicked, a lead tracked) show with their amounts, a held one
 * (self-referral) with its reason, released with a button. English at desktop, Arabic at 375 px
 * (right to left), axe clean at both widths, no horizontal overflow, no CSP report. Payouts: the
 * payable total per currency, a payout made (who is in it, who is left out and why), its CSV file
 * downloaded, marked complete; in Arabic one made and cancelled.
 * Screenshots: test/e2e/__screenshots__/dashboard-program-*.png.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Sealer } from '../../src/core/sealed.js';
import { SECRET } from '../helpers/app.js';
import { dashboardRunnable, OWNER, PHONE, startDashboard, type Dashboard } from './dashboard-harness.js';

const DESKTOP_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';

describe.skipIf(!dashboardRunnable())('Partner program in Chromium', () => {
  let d: Dashboard;
  /** The session headers of the workspace the running test acts in (the setup owner's, or a workspace of the test's own). */
  let headers: Record<string, string>;
  let ownerHeaders: Record<string, string>;
  beforeAll(async () => {
    d = await startDashboard();
    ({ headers: ownerHeaders } = await d.setUpOwner(await d.newPage()));
    await d.closeContexts();
  });
  afterEach(async () => d.closeContexts());
  afterAll(async () => d?.close());

  const api = async (page: Page, method: 'get' | 'post' | 'put' | 'patch', path: string, data?: unknown) => {
    const res = await page.request[method](`${d.origin}${path}`, { headers, data });
    expect(res.status(), `${method} ${path}: ${await res.text()}`).toBeLessThan(300);
    return res.json();
  };
  /** A partner with a link in the program's collection; returns the partner and the link's path. */
  const partnerWithLink = async (page: Page, name: string, email: string) => {
    const program = await api(page, 'get', '/api/program');
    const [partner] = await api(page, 'post', '/api/partners', [{ name, email }]);
    const [link] = await api(page, 'post', '/api/links', [{ url: 'https://shop.example/spring', collectionId: program.collectionId, partnerId: partner.id }]);
    return { id: partner.id as string, path: new URL(link.shortUrl).pathname };
  };
  /** A visitor's click through the redirect route; the click id the destination was given. */
  const click = async (path: string, n: number): Promise<string> => {
    const res = await d.t.inject({ method: 'GET', url: path, remoteAddress: `198.51.100.${n}`, headers: { 'user-agent': DESKTOP_UA } });
    expect(res.statusCode, res.body).toBe(302);
    return new URL(String(res.headers.location)).searchParams.get('ltid')!;
  };
  /**
   * A partner's payout details as the partner portal sets them (sealed with SECRET, masked
   * beside them); the portal's own form is another page's.
   */
  const setPayoutDetails = async (partnerId: string, email: string) => {
    const sealed = new Sealer(SECRET).seal('payout-details', JSON.stringify({ method: 'paypal', email }));
    const masked = `${email[0]}•••${email.slice(email.indexOf('@'))}`;
    await d.t.database.db.execute(
      sql`UPDATE partners SET payout_method = 'paypal', payout_details_sealed = ${sealed}, payout_destination_masked = ${masked} WHERE id = ${partnerId}::uuid`,
    );
  };
  /**
   * A new person owning a workspace of their own, signed in on `page`, with a program as the
   * first test leaves it (14 holding days; a percentage for 12 months on sales of $100 or more,
   * then $5.00 a lead): each later test stands alone.
   */
  const programOwner = async (page: Page): Promise<void> => {
    const person = { name: 'Program Owner', email: `owner-${randomUUID().slice(0, 8)}@example.com`, password: 'violet-harbour-91-lantern' };
    ({ headers } = await d.workspaceOf(person));
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
          { event: 'sale', type: 'percentage', amount: 2000, maxDuration: 12, conditions: [{ field: 'amount', op: 'gte', value: 10000 }] },
          { event: 'lead', type: 'flat', amount: 500 },
        ],
      },
    ]);
  };
  const newPartner = async (page: Page, name: string): Promise<string> => (await api(page, 'post', '/api/partners', [{ name }]))[0].id;
  const bonus = (page: Page, partnerId: string, earnings: number) =>
    api(page, 'post', '/api/commissions', [{ partnerId, earnings, currency: 'usd', description: 'Launch bonus' }]);
  const lead = (page: Page, clickId: string, externalId: string, email: string) =>
    api(page, 'post', '/api/track/lead', { clickId, eventName: 'Sign up', customerExternalId: externalId, customerName: 'Cam Buyer', customerEmail: email });

  it('an owner starts a program, saves settings, writes rewards as sentences, and releases a held commission', async () => {
    headers = ownerHeaders;
    const page = await d.newPage();
    await d.signInWithApi(page, OWNER);
    await d.open(page, '/program', 'Partner program');
    const nav = page.getByRole('navigation', { name: 'Main' });
    expect(await nav.getByRole('link', { name: 'Partner program' }).getAttribute('aria-current')).toBe('page');
    await page.getByRole('heading', { name: 'Start a partner program' }).waitFor();
    await d.checkAccessibility(page, 'program-start-en');

    // A bad slug is refused by the API, its words at the field (which takes the focus); then the start.
    await page.getByLabel('Name', { exact: true }).fill('Friends of Acme');
    await page.getByLabel('Slug').fill('No Spaces!');
    await page.getByLabel('Landing URL').fill('https://shop.example/');
    await page.getByRole('button', { name: 'Start the program' }).click();
    await page.locator('#program-slug-error').waitFor();
    expect(await page.getByLabel('Slug').getAttribute('aria-invalid')).toBe('true');
    await expect.poll(() => page.evaluate<string>('document.activeElement.id')).toBe('program-slug');
    await page.getByLabel('Slug').fill('friends-of-acme');
    await page.getByRole('button', { name: 'Start the program' }).click();
    await page.getByRole('status').getByText('The program “Friends of Acme” is started. Its settings are below.').waitFor();
    await page.getByRole('group', { name: 'Fraud rules' }).waitFor();
    expect(await page.getByLabel('Holding days').inputValue()).toBe('30');
    expect(await page.getByLabel('Link prefixes').inputValue()).toBe('https://shop.example/');

    // Settings: an out-of-range number refused at its field; then a minimum in euros in major units.
    await page.getByLabel('Holding days').fill('200');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.locator('#program-holdingDays-error').waitFor();
    await expect.poll(() => page.evaluate<string>('document.activeElement.id')).toBe('program-holdingDays');
    await page.getByLabel('Holding days').fill('14');
    expect(await page.getByLabel('Currency of minimum 1').inputValue()).toBe('usd');
    expect(await page.getByLabel('Amount of minimum 1').inputValue()).toBe('50.00');
    await page.getByRole('button', { name: 'Add a currency' }).click();
    await page.getByLabel('Currency of minimum 2').fill('eur');
    await page.getByLabel('Amount of minimum 2').fill('25.5');
    await page.getByLabel('Take applications on the public page /apply/slug').check();
    await page.getByLabel('Let leads and sales reported from browsers earn commissions').check();
    await page.getByText('Risky: anyone can post browser events, so a partner could earn commissions with forged leads and sales.').waitFor();
    await page.getByLabel('Let leads and sales reported from browsers earn commissions').uncheck();
    await page.getByLabel('Disposable e-mail: the customer used a throwaway inbox').uncheck();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').getByText('Settings saved.').waitFor();
    expect(await api(page, 'get', '/api/program')).toMatchObject({
      name: 'Friends of Acme',
      slug: 'friends-of-acme',
      currency: 'usd',
      holdingDays: 14,
      minPayout: { usd: 5000, eur: 2550 },
      applications: { open: true, autoApprove: false },
      fraudRules: { selfReferral: true, sameVisitor: true, disposableEmail: false, burst: true, duplicateCustomer: true },
      trustClientEvents: false,
    });
    await d.checkAccessibility(page, 'program-settings-en');

    // Groups and rewards: a percentage for 12 months on sales of $100 or more, then $5.00 per lead.
    await page.getByRole('navigation', { name: 'Section' }).getByRole('link', { name: 'Groups and rewards' }).click();
    await page.getByRole('heading', { level: 1, name: 'Groups and rewards' }).waitFor();
    const group = page.getByRole('region', { name: 'default' });
    await group.getByText('No rewards yet: partners of this group earn nothing.').waitFor();
    await group.getByRole('button', { name: 'Add reward to default' }).click();
    const dialog = page.getByRole('dialog', { name: 'New reward' });
    await dialog.getByLabel('Percentage').fill('20');
    await dialog.getByLabel('For how many months').fill('12');
    await dialog.getByRole('button', { name: 'Add condition' }).click();
    // "More than" on the event name: refused by the API, its words at the condition, which takes the focus.
    await dialog.getByLabel('Field').selectOption('eventName');
    await dialog.getByLabel('Test').selectOption('gte');
    await dialog.getByLabel('Value').fill('100');
    await dialog.getByRole('button', { name: 'Save reward' }).click();
    await dialog.locator('#reward-condition-1-error').waitFor();
    expect(await dialog.locator('#reward-condition-1-error').textContent()).toMatch(/eventName/);
    await expect.poll(() => page.evaluate<string>('document.activeElement.id')).toBe('reward-condition-1-field');
    await dialog.getByLabel('Field').selectOption('amount');
    expect(await dialog.locator('#reward-condition-1-error').count()).toBe(0);
    await dialog.getByLabel('Test').selectOption('gte');
    await dialog.getByLabel('Value').fill('100');
    await dialog.getByText('20 % of every sale for 12 months when amount ≥ $100.00').waitFor();
    await d.checkAccessibility(page, 'program-reward-dialog-en');
    await dialog.getByRole('button', { name: 'Save reward' }).click();
    await dialog.waitFor({ state: 'detached' });
    const rewards = group.getByRole('list', { name: 'Rewards of default' });
    await rewards.getByText('20 % of every sale for 12 months when amount ≥ $100.00').waitFor();

    await group.getByRole('button', { name: 'Add reward to default' }).click();
    await dialog.getByLabel('Paid for').selectOption('lead');
    await dialog.getByLabel('Amount (USD)').fill('5.005');
    await dialog.getByRole('button', { name: 'Save reward' }).click();
    await dialog.getByText('Enter an amount with no more decimals than the currency has (5, 5.50).').waitFor();
    await dialog.getByLabel('Amount (USD)').fill('5');
    await dialog.getByRole('button', { name: 'Save reward' }).click();
    await rewards.getByText('$5.00 for every lead').waitFor();
    await group.getByRole('button', { name: 'Move up reward 2' }).click();
    await expect
      .poll(async () => (await rewards.locator('.reward-sentence').allTextContents()).join(' | '))
      .toBe('$5.00 for every lead | 20 % of every sale for 12 months when amount ≥ $100.00');
    const [defaultGroup] = await api(page, 'get', '/api/partner-groups');
    expect(defaultGroup.rewards).toEqual([
      { event: 'lead', type: 'flat', amount: 500 },
      { event: 'sale', type: 'percentage', amount: 2000, maxDuration: 12, conditions: [{ field: 'amount', op: 'gte', value: 10000 }] },
    ]);
    // The default group cannot be renamed or deleted: it offers neither.
    expect(await group.getByRole('button', { name: 'Rename default' }).count()).toBe(0);

    // A group added, renamed, deleted.
    await page.getByLabel('Group name').fill('Influencers');
    await page.getByRole('button', { name: 'Add group' }).click();
    await page.getByRole('status').getByText('Group “Influencers” added.').waitFor();
    const influencers = page.getByRole('region', { name: 'Influencers' });
    await influencers.getByRole('button', { name: 'Rename Influencers' }).click();
    await influencers.getByLabel('Group name').fill('Creators');
    await influencers.getByRole('button', { name: 'Save name' }).click();
    await page.getByRole('status').getByText('Renamed to “Creators”.').waitFor();
    const creators = page.getByRole('region', { name: 'Creators' });
    await d.checkAccessibility(page, 'program-groups-en');
    await creators.getByRole('button', { name: 'Delete group Creators' }).click();
    await creators.getByRole('button', { name: 'Yes, delete' }).click();
    await page.getByRole('status').getByText('Group “Creators” deleted.').waitFor();
    expect((await api(page, 'get', '/api/partner-groups')).map((g: { name: string }) => g.name)).toEqual(['default']);

    // Commissions: Ana's lead earns $5.00, pending; Bob referring himself is held.
    const ana = await partnerWithLink(page, 'Ana Partner', 'ana@partner.example');
    const bob = await partnerWithLink(page, 'Bob Partner', 'bob@partner.example');
    await lead(page, await click(ana.path, 1), 'cus-1', 'cam@example.com');
    await lead(page, await click(bob.path, 2), 'cus-2', 'Bob@Partner.example');
    await page.getByRole('navigation', { name: 'Section' }).getByRole('link', { name: 'Commissions' }).click();
    const table = page.getByRole('region', { name: 'Commissions' });
    const row = (name: string) => table.getByRole('row').filter({ hasText: name });
    await row('Ana Partner').getByText('Pending').waitFor();
    expect(await row('Ana Partner').getByRole('cell').nth(1).textContent()).toBe('$5.00');
    await row('Bob Partner').getByText('Held').waitFor();
    await row('Bob Partner').getByText('The customer’s e-mail is the partner’s own').waitFor();
    expect(await row('Ana Partner').getByRole('button').count()).toBe(0);
    await d.checkAccessibility(page, 'program-commissions-en');

    // Filtered to held ones, then Bob's released: pending again, and gone from the held list.
    await page.getByLabel('Status').selectOption('held');
    await expect.poll(() => table.getByRole('row').count()).toBe(2);
    await row('Bob Partner').getByRole('button', { name: 'Release $5.00 of Bob Partner' }).click();
    await page.getByRole('status').getByText('Released $5.00 of Bob Partner: it is pending again.').waitFor();
    await page.getByText('No commissions here yet.').waitFor();
    const [bobs] = await api(page, 'get', `/api/commissions?partnerId=${bob.id}`);
    expect(bobs).toMatchObject({ status: 'pending', earnings: 500, currency: 'usd', holdReasons: [] });
    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Partner').selectOption({ label: 'Ana Partner' });
    await expect.poll(() => table.getByRole('row').count()).toBe(2);
    expect(d.cspViolations).toEqual([]);
  });

  it('Arabic at 375 px: the settings, the rewards as Arabic sentences, a held commission released', async () => {
    const page = await d.newPage('ar-EG', PHONE);
    await programOwner(page);
    // A self-referral by Dana, held for the Arabic page.
    const dana = await partnerWithLink(page, 'Dana Partner', 'dana@partner.example');
    await lead(page, await click(dana.path, 3), 'cus-3', 'dana@partner.example');

    await d.open(page, '/program', 'برنامج الشركاء');
    expect(await page.evaluate<string>('document.documentElement.dir')).toBe('rtl');
    await page.getByRole('group', { name: 'قواعد الاحتيال' }).waitFor();
    // Dana's $5.00 waits for review; nothing is payable yet (14 holding days).
    const money = page.getByRole('region', { name: 'عمولات تنتظر التسوية' });
    await money.locator('.total', { hasText: 'محتجزة للمراجعة' }).locator('[data-currency="usd"]').waitFor();
    expect(await money.locator('.total', { hasText: 'مستحقة الدفع الآن' }).locator('dd').textContent()).toBe('—');
    await page.getByText('خطر: يستطيع أي أحد إرسال أحداث المتصفح').waitFor();
    await d.checkAccessibility(page, 'program-settings-ar');

    await d.open(page, '/program/groups', 'المجموعات والمكافآت');
    const rewards = page.getByRole('list', { name: 'مكافآت default' });
    await rewards.getByText('عن كل عميل محتمل').waitFor();
    await rewards.getByText(/٪ من كل عملية بيع لمدة .* شهرًا عندما يكون المبلغ ≥ /).waitFor();
    await d.checkAccessibility(page, 'program-groups-ar');

    await d.open(page, '/program/commissions', 'العمولات');
    const table = page.getByRole('region', { name: 'العمولات' });
    const held = table.getByRole('row').filter({ hasText: 'محتجزة' });
    await held.getByText('بريد العميل هو بريد الشريك نفسه').waitFor();
    await d.checkAccessibility(page, 'program-commissions-ar');
    await held.getByRole('button', { name: /^أفرج عن .* للشريك Dana Partner$/ }).click();
    await page
      .getByRole('status')
      .getByText(/^أُفرج عن .* للشريك Dana Partner: عادت قيد الانتظار\.$/)
      .waitFor();
    expect((await api(page, 'get', '/api/commissions?status=held')).length).toBe(0);
    expect(d.cspViolations).toEqual([]);
  });
  it('an owner pays out: the payable total, a payout with who is left out, its CSV file, marked complete', async () => {
    const page = await d.newPage();
    await programOwner(page);
    const ana = await newPartner(page, 'Ana Partner');
    const bob = await newPartner(page, 'Bob Partner');
    await setPayoutDetails(ana, 'ana@pay.example');
    // Custom commissions are payable at once: Ana's $60.00 is paid, Bob (no payout details) is left out.
    await bonus(page, ana, 6000);
    await bonus(page, bob, 7000);
    await d.open(page, '/program/payouts', 'Payouts');
    const payable = page.getByRole('region', { name: 'Payable now' });
    expect(await payable.locator('[data-currency="usd"]').textContent()).toBe('$130.00');
    await d.checkAccessibility(page, 'program-payouts-payable-en');

    await page.getByRole('button', { name: 'Create payout' }).click();
    await page.getByRole('status').getByText('Payout of $60.00 created. Download its file, pay it with your provider, then mark it complete.').waitFor();
    const result = page.getByRole('region', { name: 'Payout of $60.00' });
    const item = result.getByRole('row').filter({ hasText: 'Ana Partner' });
    expect(await item.getByRole('cell').allTextContents()).toEqual(['Ana Partner', '$60.00', 'PayPal', 'a•••@pay.example']);
    await result.getByText('Bob Partner: no payout details yet').waitFor();
    await expect.poll(() => payable.locator('[data-currency="usd"]').textContent()).toBe('$70.00');

    const listed = page.locator('[data-payout]');
    await listed.getByText('Pending').waitFor();
    const [file] = await Promise.all([page.waitForEvent('download'), listed.getByRole('button', { name: 'CSV file of the payout of $60.00' }).click()]);
    const csv = readFileSync((await file.path())!, 'utf8');
    expect(csv).toContain('Ana Partner');
    expect(csv).toContain('60.00');
    expect(file.suggestedFilename()).toMatch(/\.csv$/);
    await d.checkAccessibility(page, 'program-payouts-pending-en');

    await listed.getByLabel('Provider’s reference (optional)').fill('PP-2026-11');
    await listed.getByRole('button', { name: 'Mark complete the payout of $60.00' }).click();
    await page.getByRole('status').getByText('The payout of $60.00 is complete: its commissions are paid.').waitFor();
    await listed.getByText('Completed').waitFor();
    await listed.getByText('Reference: PP-2026-11').waitFor();
    const [payout] = await api(page, 'get', '/api/payouts');
    expect(payout).toMatchObject({ status: 'completed', currency: 'usd', total: 6000, reference: 'PP-2026-11' });
    const paid = await api(page, 'get', `/api/commissions?partnerId=${ana}&status=paid`);
    expect(paid.map((c: { earnings: number }) => c.earnings)).toEqual([6000]);
    await listed.getByRole('button', { name: 'Show partners of the payout of $60.00' }).click();
    await listed.getByRole('region', { name: 'Partners in this payout: $60.00' }).getByText('a•••@pay.example').waitFor();
    expect(d.cspViolations).toEqual([]);
  });

  it('Arabic at 375 px: a payout made and cancelled, its commissions payable again', async () => {
    const page = await d.newPage('ar-EG', PHONE);
    await programOwner(page);
    const dana = await newPartner(page, 'Dana Partner');
    await setPayoutDetails(dana, 'dana@pay.example');
    await bonus(page, dana, 5500);
    await d.open(page, '/program/payouts', 'الدفعات');
    await page.getByRole('button', { name: 'أنشئ الدفعة' }).click();
    await page
      .getByRole('status')
      .getByText(/^أُنشئت دفعة بقيمة /)
      .waitFor();
    const pending = page.locator('[data-payout]').filter({ hasText: 'قيد الانتظار' });
    await pending.waitFor();
    await d.checkAccessibility(page, 'program-payouts-ar');
    await pending.getByRole('button', { name: /^ألغِ الدفعة بقيمة / }).click();
    await pending.getByRole('button', { name: 'نعم، ألغها' }).click();
    await page
      .getByRole('status')
      .getByText(/^أُلغيت الدفعة بقيمة .*: عادت عمولاتها مستحقة الدفع\.$/)
      .waitFor();
    const payouts = await api(page, 'get', '/api/payouts?status=cancelled');
    expect(payouts.map((p: { total: number }) => p.total)).toEqual([5500]);
    const payable = await api(page, 'get', `/api/commissions?partnerId=${dana}&status=payable`);
    expect(payable.map((c: { earnings: number }) => c.earnings)).toEqual([5500]);
    expect(d.cspViolations).toEqual([]);
  });
});
