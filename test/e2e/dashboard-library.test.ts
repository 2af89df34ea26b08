/**
 * The collections, tags, partners and conversions pages in Chromium on a real server
 * (operations.md §10). The owner creates a collection, a tag with a colour (with the keyboard
 * alone) and a partner through the pages, renames one, meets the API's own messages at the
 * field they name (a duplicate tag name, an invalid colour, an invalid email), and deletes
 * with a confirmation. A link, a click, a lead and a sale made through the API show on
 * /conversions (type filter in the address, the sale's amount in its currency, the link's
 * short URL) and the customer with their events. A viewer invited through the API sees no
 * write buttons. axe at desktop and 375 px for each page, in English and in Arabic (ar-EG,
 * right-to-left). Screenshots: test/e2e/__screenshots__/dashboard-library-*.png.
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dashboardRunnable, OWNER, PHONE, startDashboard, type Dashboard } from './dashboard-harness.js';

type FieldState = { invalid: string | null; message: string; focused: boolean };
const VIEWER = { name: 'Vera Viewer', email: 'vera@example.com', password: 'quiet-meadow-47-compass' };
/** The Arabic test's workspace owner (a workspace of its own, with a tag, a lead and a sale). */
const SAMIRA = { name: 'Samira Shelves', email: 'samira@example.com', password: 'walnut-river-27-signal' };
const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';

describe.skipIf(!dashboardRunnable())('collections, tags, partners and conversions pages in Chromium', () => {
  let d: Dashboard;
  let origin: string;
  let workspaceId: string;
  let headers: Record<string, string>;
  beforeAll(async () => {
    d = await startDashboard();
    origin = d.origin;
    // The setup's owner and workspace, made once; each test signs in itself.
    ({ workspaceId, headers } = await d.setUpOwner(await d.newPage()));
    await d.closeContexts();
  });
  afterEach(async () => d.closeContexts());
  afterAll(async () => d?.close());

  const open = (page: Page, path: string, heading: string) => d.open(page, path, heading);
  const status = (page: Page) => page.getByRole('status');
  /** The focused element's accessible text. */
  const focused = (page: Page) =>
    page.evaluate<string>(
      `(() => { const e = document.activeElement; return e ? (e.getAttribute('aria-label') || e.labels?.[0]?.textContent || e.textContent || '').trim() : ''; })()`,
    );
  /** Presses Tab until the focused element's text is `name` (the keyboard alone). */
  const tabTo = async (page: Page, name: string) => {
    for (let i = 0; i < 60; i++) {
      await page.keyboard.press('Tab');
      if ((await focused(page)) === name) return;
    }
    throw new Error(`Tab never reached ${name}`);
  };
  /** The message shown at a field (its aria-describedby text) and whether it is marked invalid. */
  const fieldError = (page: Page, label: string): Promise<FieldState> =>
    page.getByLabel(label, { exact: true }).evaluate((el) => ({
      invalid: el.getAttribute('aria-invalid'),
      message: (el.getAttribute('aria-describedby') ?? '')
        .split(' ')
        .map((id: string) => el.ownerDocument.getElementById(id)?.textContent ?? '')
        .join(' ')
        .trim(),
      focused: el.ownerDocument.activeElement === el,
    }));
  /** A link of the workspace of `h` visited once through the redirect route: the link and the click's id. */
  const clickedLink = async (page: Page, h: Record<string, string>, collectionId: string) => {
    const link = await page.request.post(`${origin}/api/links`, {
      headers: h,
      data: [{ collectionId, url: 'https://example.com/spring-sale', title: 'Spring sale' }],
    });
    expect(link.status(), await link.text()).toBe(201);
    const { id: linkId, shortUrl } = (await link.json())[0] as { id: string; shortUrl: string };
    const visit = await d.t.inject({ url: new URL(shortUrl).pathname, headers: { 'user-agent': BROWSER_UA } });
    expect(visit.statusCode).toBe(302);
    // Clicks are written in batches, soon after the redirect; the click list gives the click id.
    let clickId = '';
    await expect
      .poll(async () => (clickId = (await (await page.request.get(`${origin}/api/analytics?linkId=${linkId}`, { headers: h })).json())[0]?.id ?? ''), {
        timeout: 20_000,
      })
      .not.toBe('');
    return { linkId, shortUrl, clickId };
  };
  const customer = { customerExternalId: 'cust_42', customerName: 'Omar Haddad', customerEmail: 'omar@example.com' };
  /** Omar's lead (Sign up) on the click and sale (Purchase, €49.99), tracked through the API in the workspace of `h`. */
  const track = async (page: Page, h: Record<string, string>, clickId: string) => {
    const lead = await page.request.post(`${origin}/api/track/lead`, { headers: h, data: { clickId, eventName: 'Sign up', ...customer } });
    expect(lead.status(), await lead.text()).toBe(200);
    const sale = await page.request.post(`${origin}/api/track/sale`, {
      headers: h,
      data: { ...customer, amount: 4999, currency: 'eur', eventName: 'Purchase' },
    });
    expect(sale.status(), await sale.text()).toBe(200);
  };

  it('the owner creates, renames and deletes collections, tags and partners; the API speaks at the field', async () => {
    const page = await d.newPage('en-US');
    await d.signInWithApi(page, OWNER);

    // Collections: empty, then one made with the form, then renamed.
    await open(page, '/collections', 'Collections');
    await page.getByText('No collections yet. Choose “New collection”').waitFor();
    await page.getByRole('button', { name: 'New collection' }).click();
    await expect.poll(() => focused(page)).toMatch(/^Name/);
    await page.getByLabel('Name (required)').fill('Spring campaign');
    await page.getByLabel('Description (optional)').fill('March and April newsletters');
    await page.getByRole('button', { name: 'Create collection' }).click();
    await status(page).getByText('Created “Spring campaign”.').waitFor();
    await expect.poll(() => focused(page)).toBe('New collection');
    await page.getByText('March and April newsletters').waitFor();

    await page.getByRole('button', { name: 'Edit Spring campaign' }).click();
    await page.getByRole('heading', { name: 'Edit collection “Spring campaign”' }).waitFor();
    await page.getByLabel('Name (required)').fill('Spring 2026');
    await page.getByRole('button', { name: 'Save' }).click();
    await status(page).getByText('Saved “Spring 2026”.').waitFor();
    await expect.poll(() => focused(page)).toBe('Edit Spring 2026');
    const collections = await (await page.request.get(`${origin}/api/collections`, { headers })).json();
    expect(collections.map((c: { name: string; description: string }) => [c.name, c.description])).toEqual([['Spring 2026', 'March and April newsletters']]);

    // Delete, with a confirmation: Cancel keeps it, Delete removes it.
    const made = await page.request.post(`${origin}/api/collections`, { headers, data: [{ name: 'Old drafts' }] });
    expect(made.status()).toBe(201);
    await page.reload();
    await page.getByRole('button', { name: 'Delete Old drafts' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete the collection “Old drafts”?' });
    await dialog.waitFor();
    await expect.poll(() => focused(page)).toBe('Cancel');
    await d.checkAccessibility(page, 'library-collections-delete-en');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await page.getByRole('listitem').filter({ hasText: 'Old drafts' }).count()).toBe(1);
    await page.getByRole('button', { name: 'Delete Old drafts' }).click();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await status(page).getByText('Deleted “Old drafts”.').waitFor();
    await expect.poll(() => page.getByRole('listitem').filter({ hasText: 'Old drafts' }).count()).toBe(0);
    const left = await (await page.request.get(`${origin}/api/collections`, { headers })).json();
    expect(left.map((c: { name: string }) => c.name)).toEqual(['Spring 2026']);
    await d.checkAccessibility(page, 'library-collections-en');

    // Tags, with the keyboard alone: New tag, a name, Blue from the colours, Create.
    await open(page, '/tags', 'Tags');
    await page.getByText('No tags yet.').waitFor();
    await tabTo(page, 'New tag');
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page)).toMatch(/^Name/);
    await page.keyboard.type('Launch');
    await page.keyboard.press('Tab'); // the colours: "No colour" is chosen
    await expect.poll(() => focused(page)).toBe('No colour');
    for (let i = 0; i < 7; i++) await page.keyboard.press('ArrowDown');
    await expect.poll(() => focused(page)).toBe('Blue');
    await page.keyboard.press('Tab');
    await expect.poll(() => focused(page)).toBe('Create tag');
    await page.keyboard.press('Enter');
    await status(page).getByText('Created “Launch”.').waitFor();
    const tags = await (await page.request.get(`${origin}/api/tags`, { headers })).json();
    expect(tags.map((t: { name: string; color: string }) => [t.name, t.color])).toEqual([['Launch', '#2563eb']]);
    // The colour is said in words beside its swatch.
    expect(await page.getByRole('listitem').filter({ hasText: 'Launch' }).textContent()).toContain('Blue');

    // A duplicate name (tags ignore case): the API's message at the Name field, which takes the focus.
    await page.getByRole('button', { name: 'New tag' }).click();
    await page.getByLabel('Name (required)').fill('LAUNCH');
    await page.getByRole('button', { name: 'Create tag' }).click();
    await expect
      .poll(() => fieldError(page, 'Name (required)'))
      .toEqual({ invalid: 'true', message: 'Invalid [0].name: already exists in this workspace.', focused: true });
    // Another colour typed as hex, not a valid one: the message at the colour.
    await page.getByLabel('Name (required)').fill('Autumn');
    await page.getByLabel('Other colour').check();
    await page.getByLabel('Hex colour').fill('#12345');
    await page.getByRole('button', { name: 'Create tag' }).click();
    await expect
      .poll(() => fieldError(page, 'Hex colour'))
      .toMatchObject({ invalid: 'true', message: expect.stringContaining('Invalid [0].color: has an invalid format.') });
    expect((await fieldError(page, 'Name (required)')).invalid).toBeNull();
    await page.getByLabel('Hex colour').fill('#8a4b08');
    await page.getByRole('button', { name: 'Create tag' }).click();
    await status(page).getByText('Created “Autumn”.').waitFor();
    expect(await page.getByRole('listitem').filter({ hasText: 'Autumn' }).textContent()).toContain('#8a4b08');
    await d.checkAccessibility(page, 'library-tags-en');

    // Partners: an invalid email is the API's message at Email; then created.
    await open(page, '/partners', 'Partners');
    await page.getByRole('button', { name: 'New partner' }).click();
    await page.getByLabel('Name (required)').fill('Nadia Ads');
    await page.getByLabel('Email (optional)').fill('nadia-at-example');
    await page.getByRole('button', { name: 'Create partner' }).click();
    await expect
      .poll(() => fieldError(page, 'Email (optional)'))
      .toEqual({ invalid: 'true', message: 'Invalid [0].email: must be a valid email.', focused: true });
    await page.getByLabel('Email (optional)').fill('nadia@example.com');
    // Changed: its message goes.
    expect(await fieldError(page, 'Email (optional)')).toEqual({ invalid: null, message: '', focused: true });
    await page.getByLabel('Image URL (optional)').fill('https://example.com/nadia.png');
    await page.getByRole('button', { name: 'Create partner' }).click();
    await status(page).getByText('Created “Nadia Ads”.').waitFor();
    await page.getByText('nadia@example.com').waitFor();
    await d.checkAccessibility(page, 'library-partners-en');
    expect(d.cspViolations).toEqual([]);
  });

  it('leads and sales on /conversions, the customer with their events', async () => {
    const page = await d.newPage('en-US');
    await d.signInWithApi(page, OWNER);
    // An empty conversions page says what to do next.
    await open(page, '/conversions', 'Conversions');
    await page.getByText('No leads or sales yet.').waitFor();

    const made = await page.request.post(`${origin}/api/collections`, { headers, data: [{ name: 'Sales pages' }] });
    expect(made.status(), await made.text()).toBe(201);
    const { linkId, shortUrl, clickId } = await clickedLink(page, headers, (await made.json())[0].id);
    await track(page, headers, clickId);

    // Each event names its link and customer: no request per row while the list renders.
    const asked: string[] = [];
    page.on('request', (r) => asked.push(new URL(r.url()).pathname + new URL(r.url()).search));
    await page.reload();
    const table = page.getByRole('region', { name: 'Leads and sales (scrolls sideways)' });
    await table.getByRole('cell', { name: 'Purchase' }).waitFor();
    await expect.poll(() => page.locator('[aria-busy="true"]').count()).toBe(0);
    const rows = await table.getByRole('row').allTextContents();
    expect(rows).toHaveLength(3);
    expect(rows[1]).toMatch(/Sale.*Purchase.*Omar Haddad.*cust_42.*€49\.99/);
    expect(rows[1]).toContain(shortUrl);
    expect(rows[2]).toContain(shortUrl);
    expect(asked.filter((u) => u.startsWith('/api/events'))).toHaveLength(1);
    expect(asked.filter((u) => u.startsWith('/api/links') || u.startsWith('/api/customers'))).toEqual([]);
    expect(rows[2]).toMatch(/Lead.*Sign up.*cust_42/);
    expect(await table.getByRole('link', { name: shortUrl }).first().getAttribute('href')).toBe(`/app/links/${linkId}`);
    await d.checkAccessibility(page, 'library-conversions-en');

    // Sales only: the filter is in the address, and a reload keeps it.
    await page.getByLabel('Type').selectOption('sale');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => table.getByRole('row').count()).toBe(2);
    expect(new URL(page.url()).search).toBe('?type=sale');
    await page.reload();
    await table.getByRole('cell', { name: 'Purchase' }).waitFor();
    expect(await table.getByRole('cell', { name: 'Sign up' }).count()).toBe(0);
    expect(await page.getByLabel('Type').inputValue()).toBe('sale');
    // A start after the end: the API's message at the From field.
    await page.getByLabel('From', { exact: true }).fill('2030-02-01');
    await page.getByLabel('To', { exact: true }).fill('2030-01-01');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect
      .poll(() => fieldError(page, 'From'))
      .toEqual({ invalid: 'true', message: expect.stringContaining('startDate: must not be later than endDate'), focused: true });
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await table.getByRole('cell', { name: 'Sign up' }).waitFor();

    // Customers: the list, then the customer with both events (from the keyboard: the tabs' arrows).
    await page.getByRole('tab', { name: 'Leads and sales' }).focus();
    await page.keyboard.press('ArrowRight');
    expect(await page.getByRole('tab', { name: 'Customers' }).getAttribute('aria-selected')).toBe('true');
    expect(new URL(page.url()).search).toBe('?view=customers');
    const customers = page.getByRole('region', { name: 'Customers (scrolls sideways)' });
    await customers.getByRole('link', { name: 'Omar Haddad' }).click();
    await page.getByRole('heading', { level: 2, name: 'Omar Haddad' }).waitFor();
    expect(new URL(page.url()).searchParams.get('customer')).toMatch(/^[0-9a-f-]{36}$/);
    await page.getByText('omar@example.com').waitFor();
    const theirs = page.getByRole('region', { name: 'Events of Omar Haddad (scrolls sideways)' });
    await theirs.getByRole('cell', { name: 'Purchase' }).waitFor();
    await theirs.getByRole('cell', { name: 'Sign up' }).waitFor();
    await expect.poll(() => page.locator('[aria-busy="true"]').count()).toBe(0);
    await d.checkAccessibility(page, 'library-customer-en');
    await page.goBack();
    await customers.getByRole('link', { name: 'Omar Haddad' }).waitFor();
    await d.checkAccessibility(page, 'library-customers-en');

    // A deleted link keeps its short URL on its events.
    const removed = await page.request.delete(`${origin}/api/links`, { headers, data: [linkId] });
    expect(removed.status(), await removed.text()).toBeLessThan(300);
    await open(page, '/conversions', 'Conversions');
    await table.getByRole('cell', { name: 'Purchase' }).waitFor();
    expect(await table.getByRole('link', { name: shortUrl }).count()).toBe(2);
    expect(d.cspViolations).toEqual([]);
  });

  it('a viewer sees the lists without write buttons', async () => {
    // Its own collection, tag and partner in the owner's workspace, made through the API.
    const owner = await d.newPage('en-US');
    await d.signInWithApi(owner, OWNER);
    const ids: string[] = [];
    for (const [path, name] of [
      ['/api/collections', 'Reading list'],
      ['/api/tags', 'Evergreen'],
      ['/api/partners', 'Hadi Media'],
    ] as const) {
      const made = await owner.request.post(`${origin}${path}`, { headers, data: [{ name }] });
      expect(made.status(), await made.text()).toBe(201);
      ids.push((await made.json())[0].id);
    }
    // One link holding all three: each row counts it.
    const [collectionId, tagId, partnerId] = ids;
    const link = await owner.request.post(`${origin}/api/links`, {
      headers,
      data: [{ url: 'https://shop.example/read', collectionId, tagIds: [tagId], partnerId }],
    });
    expect(link.status(), await link.text()).toBe(201);
    const invite = await owner.request.post(`${origin}/api/workspaces/${workspaceId}/invites`, {
      headers: { origin },
      data: { email: VIEWER.email, role: 'viewer' },
    });
    expect(invite.status(), await invite.text()).toBe(201);
    const token = new URL((await invite.json()).url).searchParams.get('token');

    const page = await d.newPage('en-US');
    const accepted = await page.request.post(`${origin}/api/invites/accept`, {
      headers: { origin },
      data: { token, name: VIEWER.name, password: VIEWER.password },
    });
    expect(accepted.status(), await accepted.text()).toBe(201);
    expect((await accepted.json()).role).toBe('viewer');
    for (const [path, heading, item] of [
      ['/collections', 'Collections', 'Reading list'],
      ['/tags', 'Tags', 'Evergreen'],
      ['/partners', 'Partners', 'Hadi Media'],
    ] as const) {
      await open(page, path, heading);
      await page.getByText(item, { exact: true }).waitFor();
      await page.getByRole('listitem').filter({ hasText: item }).getByText('1 link', { exact: true }).waitFor();
      expect(await page.locator('main button').count(), path).toBe(0);
    }
  });

  it('Arabic at 375 px: right-to-left, translated, no overflow', async () => {
    // A workspace of its own with a blue tag, a collection, and a lead and a sale of Omar's.
    const own = await d.workspaceOf(SAMIRA);
    const page = await d.newPage('ar-EG', PHONE);
    await d.signInWithApi(page, SAMIRA);
    const tag = await page.request.post(`${origin}/api/tags`, { headers: own.headers, data: [{ name: 'Launch', color: '#2563eb' }] });
    expect(tag.status(), await tag.text()).toBe(201);
    const made = await page.request.post(`${origin}/api/collections`, { headers: own.headers, data: [{ name: 'Spring 2026' }] });
    expect(made.status(), await made.text()).toBe(201);
    await track(page, own.headers, (await clickedLink(page, own.headers, (await made.json())[0].id)).clickId);
    await open(page, '/collections', 'المجموعات');
    expect(await page.evaluate('[document.documentElement.lang, document.documentElement.dir]')).toEqual(['ar', 'rtl']);
    await page.getByRole('listitem').filter({ hasText: 'Spring 2026' }).getByText('رابط واحد', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'مجموعة جديدة' }).click();
    // The API's message in the page's language: a blank name.
    await page.getByRole('button', { name: 'أنشئ المجموعة' }).click();
    await expect
      .poll(() => fieldError(page, 'الاسم (مطلوب)'))
      .toMatchObject({ invalid: 'true', message: expect.stringContaining('قيمة غير صالحة في [0].name') });
    await d.checkAccessibility(page, 'library-collections-form-ar');
    await open(page, '/tags', 'الوسوم');
    await page.getByText('أزرق', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'وسم جديد' }).click();
    await page.getByLabel('لون آخر').check();
    await page.getByLabel('رمز اللون الست عشري').fill('#0a7');
    await page.getByRole('button', { name: 'أنشئ الوسم' }).click();
    await page.getByLabel('الاسم (مطلوب)').fill('إطلاق الربيع');
    await page.getByRole('button', { name: 'أنشئ الوسم' }).click();
    await expect.poll(() => fieldError(page, 'رمز اللون الست عشري')).toMatchObject({ invalid: 'true', message: expect.stringContaining('صيغته غير صالحة') });
    await d.checkAccessibility(page, 'library-tags-ar');
    await open(page, '/partners', 'الشركاء');
    await d.checkAccessibility(page, 'library-partners-ar');
    await open(page, '/conversions', 'التحويلات');
    await page.getByRole('region', { name: 'العملاء المحتملون والمبيعات (جدول يمكن تمريره أفقيًا)' }).getByRole('cell', { name: 'Purchase' }).waitFor();
    await expect.poll(() => page.locator('[aria-busy="true"]').count()).toBe(0);
    await d.checkAccessibility(page, 'library-conversions-ar');
    await page.getByRole('tab', { name: 'العملاء', exact: true }).click();
    await page.getByRole('link', { name: 'Omar Haddad' }).click();
    await page.getByRole('heading', { level: 2, name: 'Omar Haddad' }).waitFor();
    await expect.poll(() => page.locator('[aria-busy="true"]').count()).toBe(0);
    await d.checkAccessibility(page, 'library-customer-ar');
    expect(d.cspViolations).toEqual([]);
  });
});
