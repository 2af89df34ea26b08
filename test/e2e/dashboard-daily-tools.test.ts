/**
 * Daily-use tools in Chromium (operations.md §14): the searchable time-zone picker (type "kolk",
 * choose with the keyboard, the device's zone first), the link form's UTM builder (apply a saved
 * template, the link lands with its parameters, save a template, reload keeps it), and keyboard
 * shortcuts (`/` search, `n` new link, `?` the list; off by the Account page's setting), in
 * English and Arabic, at 1280 and 375 px, with axe-core.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dashboardRunnable, DESKTOP, OWNER, PHONE, SCREENSHOTS, startDashboard, type Dashboard } from './dashboard-harness.js';

const activeId = (page: Page) => page.evaluate<string | undefined>('document.activeElement?.id');

describe.skipIf(!dashboardRunnable())('daily-use tools in Chromium', () => {
  let d: Dashboard;
  let headers: Record<string, string>;
  beforeAll(async () => {
    d = await startDashboard();
    const page = await d.newPage();
    ({ headers } = await d.setUpOwner(page));
    const collection = await page.request.post(`${d.origin}/api/collections`, { headers, data: [{ name: 'Spring' }] });
    expect(collection.status(), await collection.text()).toBe(201);
    const made = await page.request.post(`${d.origin}/api/utm-templates`, {
      headers,
      data: { name: 'Newsletter', utm: { source: 'newsletter', medium: 'email', campaign: 'spring' } },
    });
    expect(made.status(), await made.text()).toBe(201);
    await page.context().close();
  });
  const contexts: BrowserContext[] = [];
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close();
  });
  afterAll(async () => d?.close());

  /** A signed-in page; `timezoneId` is the device's zone. */
  async function signedIn(locale = 'en-US', viewport = DESKTOP, timezoneId?: string): Promise<Page> {
    const context = await d.browser.newContext({ locale, viewport, timezoneId });
    contexts.push(context);
    const page = await context.newPage();
    page.on('console', (m) => {
      if (/content security policy/i.test(m.text())) d.cspViolations.push(m.text());
    });
    const res = await page.request.post(`${d.origin}/api/auth/login`, {
      headers: { origin: d.origin },
      data: { email: OWNER.email, password: OWNER.password },
    });
    expect(res.status(), await res.text()).toBe(200);
    return page;
  }

  it('the time-zone picker: the device zone first, "kolk" finds Asia/Kolkata, arrows, Enter and Escape', async () => {
    const page = await signedIn('en-US', DESKTOP, 'America/Sao_Paulo');
    await d.open(page, '/analytics', 'Analytics');
    const box = page.getByRole('combobox', { name: 'Time zone' });
    expect(await box.inputValue()).toBe('America/Sao_Paulo');
    expect(await box.getAttribute('aria-expanded')).toBe('false');
    await box.click();
    const options = page.getByRole('listbox', { name: 'Time zone' }).getByRole('option');
    await options.first().waitFor();
    expect(await options.first().textContent()).toBe('America/Sao_Paulothis device · UTC-03:00');
    expect(await options.nth(1).textContent()).toBe('UTCUTC+00:00');
    expect(await options.count()).toBeGreaterThan(300);

    await box.pressSequentially('kolk');
    await expect.poll(() => options.count()).toBe(1);
    expect(await options.first().textContent()).toBe('Asia/KolkataUTC+05:30');
    await d.checkAccessibility(page, 'daily-tz-open-en');
    await page.screenshot({ path: `${SCREENSHOTS}/daily-tz-kolk-en-1280.png` });
    await box.press('Enter');
    await expect.poll(() => new URL(page.url()).searchParams.get('tz')).toBe('Asia/Kolkata');
    expect(await box.inputValue()).toBe('Asia/Kolkata');
    expect(await box.getAttribute('aria-expanded')).toBe('false');

    // Arrows move the active option (aria-activedescendant), Enter takes it.
    await box.fill('europe/');
    await box.press('ArrowDown');
    await box.press('ArrowDown');
    await box.press('ArrowUp');
    await box.press('ArrowDown');
    const activeOption = page.locator(`#${await box.getAttribute('aria-activedescendant')}`.replace(/:/g, '\\:'));
    expect(await activeOption.getAttribute('aria-selected')).toBe('true');
    const third = (await options.nth(2).locator('span').first().textContent())!;
    expect((await activeOption.textContent())!.startsWith(third)).toBe(true);
    await box.press('Enter');
    await expect.poll(() => new URL(page.url()).searchParams.get('tz')).toBe(third);

    // Nothing matches: said so; Escape closes the list, a second Escape restores the zone's name.
    await box.fill('atlantis');
    await page.getByText('No time zone matches').waitFor();
    await box.press('Escape');
    expect(await box.getAttribute('aria-expanded')).toBe('false');
    expect(await box.inputValue()).toBe('atlantis');
    await box.press('Escape');
    expect(await box.inputValue()).toBe(third);
    // Leaving the field without choosing keeps the zone.
    await box.fill('tok');
    await page.getByRole('heading', { level: 1 }).click();
    expect(await box.inputValue()).toBe(third);
    expect(new URL(page.url()).searchParams.get('tz')).toBe(third);

    // Arabic on a phone: the same list, the zone names left to right.
    const ar = await signedIn('ar-EG', PHONE, 'Asia/Dubai');
    await d.open(ar, '/analytics', 'التحليلات');
    const arBox = ar.getByRole('combobox', { name: 'المنطقة الزمنية' });
    await arBox.click();
    expect(await ar.getByRole('listbox', { name: 'المنطقة الزمنية' }).getByRole('option').first().textContent()).toBe('Asia/Dubaiهذا الجهاز · UTC+04:00');
    await arBox.pressSequentially('kolk');
    await ar.getByRole('option', { name: /Asia\/Kolkata/ }).waitFor();
    await d.checkAccessibility(ar, 'daily-tz-open-ar');
    await ar.getByRole('option', { name: /Asia\/Kolkata/ }).click();
    await expect.poll(() => new URL(ar.url()).searchParams.get('tz')).toBe('Asia/Kolkata');
    expect(d.cspViolations).toEqual([]);
  });

  it('the UTM builder: a template fills the fields, the link lands with them; save a template (409 on a taken name); reload keeps it', async () => {
    const page = await signedIn();
    await d.open(page, '/links', 'Links');
    await page.getByRole('button', { name: 'New link' }).click();
    const dialog = page.getByRole('dialog', { name: 'New link' });
    await dialog.getByLabel('Destination URL', { exact: true }).fill('https://example.com/shoes?color=red');
    await dialog.getByLabel('UTM template').selectOption({ label: 'Newsletter' });
    expect(await dialog.getByLabel('Source', { exact: true }).inputValue()).toBe('newsletter');
    expect(await dialog.getByLabel('Medium', { exact: true }).inputValue()).toBe('email');
    const landing = dialog.locator('.links-landing bdi');
    expect(await landing.textContent()).toBe('https://example.com/shoes?color=red&utm_source=newsletter&utm_medium=email&utm_campaign=spring');

    // Save as template: a taken name is the API's 409 at the name; another name saves it.
    await dialog.getByLabel('Campaign', { exact: true }).fill('autumn');
    await dialog.getByRole('button', { name: 'Save as template' }).click();
    const name = dialog.getByLabel('Template name');
    await expect.poll(() => activeId(page)).toBe('link-utm-template-name');
    await name.fill('newsletter');
    await name.press('Enter');
    await dialog.getByText('A UTM template named "newsletter" already exists').waitFor();
    expect(await name.getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByRole('dialog', { name: 'New link' }).isVisible()).toBe(true);
    // While the name is open, typing in another field keeps the focus there.
    await dialog.getByLabel('Term', { exact: true }).fill('boots');
    await expect.poll(() => activeId(page)).toBe('link-utm.term');
    await dialog.getByLabel('Term', { exact: true }).fill('');
    await name.fill('Autumn newsletter');
    await dialog.getByRole('button', { name: 'Save template' }).click();
    await dialog.getByRole('status').getByText('Template “Autumn newsletter” saved.').waitFor();
    expect(await dialog.getByLabel('UTM template').locator('option:checked').textContent()).toBe('Autumn newsletter');
    await dialog.locator('.links-landing').scrollIntoViewIfNeeded();
    await d.checkAccessibility(page, 'daily-utm-builder-en');
    await page.screenshot({ path: `${SCREENSHOTS}/daily-utm-builder-en-1280.png` });

    await dialog.getByRole('button', { name: 'Create link' }).click();
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    const links = await (await page.request.get(`${d.origin}/api/links`, { headers })).json();
    const link = links.find((l: { url: string }) => l.url === 'https://example.com/shoes?color=red');
    expect(link.utm).toMatchObject({ source: 'newsletter', medium: 'email', campaign: 'autumn' });
    // The redirect sends the visitor on with the parameters.
    const hop = await page.request.get(link.shortUrl, { maxRedirects: 0 });
    const location = new URL(hop.headers()['location']!);
    expect([location.searchParams.get('color'), location.searchParams.get('utm_source'), location.searchParams.get('utm_campaign')]).toEqual([
      'red',
      'newsletter',
      'autumn',
    ]);

    // After a reload both templates are offered; UTM parameters already in a URL fill the empty fields.
    await page.reload();
    await page.getByRole('button', { name: 'New link' }).click();
    const again = page.getByRole('dialog', { name: 'New link' });
    // The templates arrive after the dialog opens: wait for them rather than read the first render.
    await expect
      .poll(() => again.getByLabel('UTM template').locator('option').allTextContents())
      .toEqual(['None: fill in the fields', 'Autumn newsletter', 'Newsletter']);
    await again.getByLabel('Destination URL', { exact: true }).fill('https://example.com/?utm_source=fb&utm_medium=social');
    await again.getByLabel('Destination URL', { exact: true }).press('Tab');
    expect(await again.getByLabel('Source', { exact: true }).inputValue()).toBe('fb');
    expect(await again.getByLabel('Medium', { exact: true }).inputValue()).toBe('social');
    // Deleting a template asks first, naming it; the link made with it keeps its values.
    await again.getByLabel('UTM template').selectOption({ label: 'Autumn newsletter' });
    await again.getByRole('button', { name: 'Delete template' }).click();
    await again.getByText('Delete the template “Autumn newsletter”? Links keep their values.').waitFor();
    await page.screenshot({ path: `${SCREENSHOTS}/daily-utm-delete-en-1280.png` });
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Cancel');
    await again.getByRole('button', { name: 'Yes, delete it' }).click();
    await expect.poll(() => again.getByLabel('UTM template').locator('option').allTextContents()).toEqual(['None: fill in the fields', 'Newsletter']);
    const left = await (await page.request.get(`${d.origin}/api/utm-templates`, { headers })).json();
    expect(left.map((x: { name: string }) => x.name)).toEqual(['Newsletter']);
    const kept = await (await page.request.get(`${d.origin}/api/links?id=${link.id}`, { headers })).json();
    expect(kept[0].utm).toMatchObject({ campaign: 'autumn' });

    // Arabic on a phone.
    const ar = await signedIn('ar-EG', PHONE);
    await d.open(ar, '/links', 'الروابط');
    await ar.getByRole('button', { name: 'رابط جديد' }).click();
    const arDialog = ar.getByRole('dialog', { name: 'رابط جديد' });
    await arDialog.getByLabel('عنوان URL للوجهة', { exact: true }).fill('https://example.com/sale');
    await arDialog.getByLabel('قالب UTM').selectOption({ label: 'Newsletter' });
    await arDialog.locator('.links-landing').scrollIntoViewIfNeeded();
    await d.checkAccessibility(ar, 'daily-utm-builder-ar');
    await ar.screenshot({ path: `${SCREENSHOTS}/daily-utm-builder-ar-375.png` });
    expect(d.cspViolations).toEqual([]);
  });

  it('shortcuts: / focuses search, n opens the new-link form (from any page), ? lists them; not while typing; the Account setting turns them off', async () => {
    const page = await signedIn();
    await d.open(page, '/links', 'Links');
    await page.keyboard.press('/');
    await expect.poll(() => activeId(page)).toBe('links-search');
    // Typed into a field, the keys are text.
    await page.keyboard.type('n?');
    expect(await page.getByLabel('Search').inputValue()).toBe('n?');
    expect(await page.getByRole('dialog').count()).toBe(0);
    await page.getByLabel('Search').fill('');
    await page.getByRole('heading', { level: 1 }).click();
    await page.keyboard.press('Alt+n');
    expect(await page.getByRole('dialog').count()).toBe(0);
    await page.keyboard.press('n');
    await page.getByRole('dialog', { name: 'New link' }).waitFor();
    await expect.poll(() => activeId(page)).toBe('link-url');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);

    // From another page, n goes to Links and opens the form.
    await d.open(page, '', 'Overview');
    await page.keyboard.press('n');
    await page.getByRole('dialog', { name: 'New link' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/app/links');
    await page.keyboard.press('Escape');

    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await help.waitFor();
    expect(await help.locator('dt').allTextContents()).toEqual(['/', 'n', '?']);
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Close');
    await d.checkAccessibility(page, 'daily-shortcuts-en');
    await page.keyboard.press('Escape');
    await expect.poll(() => help.count()).toBe(0);

    // The setting: off on the Account page, kept after a reload; the keys then do nothing.
    await d.open(page, '/account', 'Account');
    const setting = page.getByRole('checkbox', { name: 'Use keyboard shortcuts' });
    expect(await setting.isChecked()).toBe(true);
    await setting.uncheck();
    await page.getByRole('heading', { name: 'Keyboard shortcuts' }).scrollIntoViewIfNeeded();
    await d.checkAccessibility(page, 'daily-account-shortcuts-en');
    await page.reload();
    expect(await page.getByRole('checkbox', { name: 'Use keyboard shortcuts' }).isChecked()).toBe(false);
    await d.open(page, '/links', 'Links');
    await page.keyboard.press('/');
    await page.keyboard.press('?');
    await page.keyboard.press('n');
    expect(await activeId(page)).not.toBe('links-search');
    expect(await page.getByRole('dialog').count()).toBe(0);
    await d.open(page, '/account', 'Account');
    await page.getByRole('checkbox', { name: 'Use keyboard shortcuts' }).check();
    await d.open(page, '/links', 'Links');
    await page.keyboard.press('/');
    await expect.poll(() => activeId(page)).toBe('links-search');

    // Arabic on a phone: the list in Arabic.
    const ar = await signedIn('ar-EG', PHONE);
    await d.open(ar, '/links', 'الروابط');
    await ar.keyboard.press('?');
    await ar.getByRole('dialog', { name: 'اختصارات لوحة المفاتيح' }).waitFor();
    await d.checkAccessibility(ar, 'daily-shortcuts-ar');
    await ar.screenshot({ path: `${SCREENSHOTS}/daily-shortcuts-ar-375.png` });
    expect(d.cspViolations).toEqual([]);
  });
});
