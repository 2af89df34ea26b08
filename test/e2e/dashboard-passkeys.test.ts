/**
 * Passkeys in the dashboard (operations.md §15, issue 27) in Chromium with the DevTools virtual
 * authenticator (a platform authenticator with resident keys and user verification): add one
 * on the Account page (the password first), sign out, sign in with the password and the
 * passkey as the second factor, sign out, sign in with the passkey alone, remove it (the
 * password again) — in English and in Arabic, axe-checked at 1280 and 375 px. The dashboard is
 * served on http://localhost: a secure context, and a host name (a relying-party id is never
 * an IP address).
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dashboardRunnable, OWNER, PHONE, startDashboard, type Dashboard } from './dashboard-harness.js';

const words = {
  en: {
    account: 'Security',
    add: 'Add a passkey',
    name: 'Name (optional)',
    currentPassword: 'Current password',
    continue: 'Continue',
    added: (n: string) => `Passkey “${n}” added.`,
    signOut: 'Sign out',
    email: 'Email',
    password: 'Password',
    signIn: 'Sign in',
    usePasskey: 'Use a passkey',
    never: 'Never',
    remove: (n: string) => `Remove passkey “${n}”`,
    confirmRemove: 'Yes, remove it',
    removed: (n: string) => `Passkey “${n}” removed.`,
    none: 'No passkeys yet.',
  },
  ar: {
    account: 'الأمان',
    add: 'إضافة مفتاح مرور',
    name: 'الاسم (اختياري)',
    currentPassword: 'كلمة المرور الحالية',
    continue: 'متابعة',
    added: (n: string) => `أُضيف مفتاح المرور «${n}».`,
    signOut: 'تسجيل الخروج',
    email: 'البريد الإلكتروني',
    password: 'كلمة المرور',
    signIn: 'تسجيل الدخول',
    usePasskey: 'استخدام مفتاح مرور',
    never: 'لم يُستخدم',
    remove: (n: string) => `إزالة مفتاح المرور «${n}»`,
    confirmRemove: 'نعم، أزله',
    removed: (n: string) => `أُزيل مفتاح المرور «${n}».`,
    none: 'لا مفاتيح مرور بعد.',
  },
};

describe.runIf(dashboardRunnable())('passkeys in the dashboard', () => {
  let d: Dashboard;
  // One person per language, so each run starts without a passkey whatever the other did.
  const people = { en: OWNER, ar: { name: 'ليلى', email: 'layla@example.com', password: 'amber-orchard-47-compass' } };

  beforeAll(async () => {
    d = await startDashboard({}, { host: 'localhost', reuseContexts: false });
    const { workspaceId } = await d.setUpOwner(await d.newPage());
    const made = await d.t.admin('POST', '/users', { name: people.ar.name, email: people.ar.email, password: people.ar.password });
    expect(made.statusCode, made.body).toBe(201);
    expect((await d.t.admin('POST', `/workspaces/${workspaceId}/members`, { userId: made.json().id, role: 'member' })).statusCode).toBe(201);
    await d.closeContexts();
  });
  afterEach(() => d.closeContexts());
  afterAll(() => d?.close());

  /** A page with its own virtual authenticator; the credentials it makes stay in it. */
  async function withAuthenticator(page: Page) {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
    });
    return { credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials };
  }

  async function passwordStep(page: Page, w: (typeof words)['en'], person: { email: string; password: string }) {
    await page.getByLabel(w.email).fill(person.email);
    await page.getByLabel(w.password, { exact: true }).fill(person.password);
    await page.getByRole('button', { name: w.signIn, exact: true }).click();
  }

  const signedIn = (page: Page) => page.getByRole('navigation').first().waitFor();

  async function signOut(page: Page, w: (typeof words)['en']) {
    await page.getByRole('button', { name: w.signOut, exact: true }).click();
    await page.getByRole('button', { name: w.signIn, exact: true }).waitFor();
  }

  for (const lang of ['en', 'ar'] as const) {
    it(`adds a passkey, signs in with it as the second factor and alone, and removes it (${lang})`, async () => {
      const w = words[lang];
      const person = people[lang];
      const page = await d.newPage(lang === 'ar' ? 'ar' : 'en-US', lang === 'ar' ? PHONE : undefined);
      const authenticator = await withAuthenticator(page);
      await page.goto(`${d.origin}/app`);
      await passwordStep(page, w, person);
      await signedIn(page);

      // Add: the password, then the browser's dialog (the virtual authenticator answers it).
      await d.open(page, '/account/security', w.account);
      await page.getByRole('button', { name: w.add }).click();
      await page.getByLabel(w.name).fill(`Laptop ${lang}`);
      await page.getByRole('form', { name: w.add }).getByLabel(w.currentPassword).fill(person.password);
      await d.checkAccessibility(page, `account-passkey-add-${lang}`);
      await page.getByRole('button', { name: w.continue }).click();
      await page
        .getByRole('status')
        .filter({ hasText: w.added(`Laptop ${lang}`) })
        .waitFor();
      const item = page.locator('#passkeys-heading ~ ul li').filter({ hasText: `Laptop ${lang}` });
      await expect.poll(() => item.getByText(w.never).count()).toBe(1);
      expect(await authenticator.credentials()).toHaveLength(1);
      await d.checkAccessibility(page, `account-passkeys-${lang}`);

      // The password now opens a second step offering the passkey.
      await signOut(page, w);
      await passwordStep(page, w, person);
      await page.getByRole('button', { name: w.usePasskey }).waitFor();
      await d.checkAccessibility(page, `sign-in-passkey-step-${lang}`);
      await page.getByRole('button', { name: w.usePasskey }).click();
      await signedIn(page);

      // The passkey alone, from the sign-in page.
      await signOut(page, w);
      await d.checkAccessibility(page, `sign-in-with-passkey-${lang}`);
      await page.getByRole('button', { name: w.usePasskey }).click();
      await signedIn(page);

      // Used twice now; removing it takes the password again.
      await d.open(page, '/account/security', w.account);
      await expect.poll(() => item.getByText(w.never).count()).toBe(0);
      await page.getByRole('button', { name: w.remove(`Laptop ${lang}`) }).click();
      const confirm = page.getByRole('form', { name: w.remove(`Laptop ${lang}`) });
      await confirm.getByLabel(w.currentPassword).fill(person.password);
      await d.checkAccessibility(page, `account-passkey-remove-${lang}`);
      await confirm.getByRole('button', { name: w.confirmRemove }).click();
      await page
        .getByRole('status')
        .filter({ hasText: w.removed(`Laptop ${lang}`) })
        .waitFor();
      await page.getByText(w.none).waitFor();

      // Without it the password alone signs in again.
      await signOut(page, w);
      await passwordStep(page, w, person);
      await signedIn(page);
      expect(d.cspViolations).toEqual([]);
    });
  }
});
