/**
 * The dashboard's settings, account and invitation pages in Chromium on a real server
 * (operations.md §7–10): an API key made on the keys page with two scopes works from outside
 * (200 inside its scopes, 403 outside) until it is revoked on the page (401), with the mouse
 * and then with the keyboard alone; a viewer invited on the members page joins through the
 * invitation link as a new person and sees no settings; a person changes their password and
 * ends their other session; OAuth apps and connected apps. axe at desktop and 375 px for every
 * page, in English and in Arabic (right-to-left). Screenshots:
 * test/e2e/__screenshots__/dashboard-settings-*.png, dashboard-account-*, dashboard-invite-*.
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dashboardRunnable, OWNER, PHONE, startDashboard, type Dashboard, type Person } from './dashboard-harness.js';

const VIEWER = { name: 'Vera Viewer', email: 'vera@example.com', password: 'quiet-meadow-47-compass' };
/** The account test's person: a workspace of their own, so the owner's password never changes. */
const AMAL = { name: 'Amal Account', email: 'amal@example.com', password: 'driftwood-canyon-58-ember' };
const NEW_PASSWORD = 'amber-lighthouse-63-willow';

describe.skipIf(!dashboardRunnable())('settings, account and invitation pages in Chromium', () => {
  let d: Dashboard;
  let origin: string;
  /** The setup's workspace (made once; each test signs in itself). */
  let workspaceId: string;
  beforeAll(async () => {
    d = await startDashboard();
    origin = d.origin;
    ({ workspaceId } = await d.setUpOwner(await d.newPage()));
    await d.closeContexts();
  });
  afterEach(async () => d.closeContexts());
  afterAll(async () => d?.close());

  const newPage = (locale?: string, viewport?: { width: number; height: number }) => d.clipboardPage(locale, viewport);
  /** A page signed in (through the API) as `person`, the owner unless told. */
  const signedInPage = async (person: Person = OWNER) => {
    const page = await newPage();
    await d.signInWithApi(page, person);
    return page;
  };
  const open = (page: Page, path: string, heading: string) => d.open(page, path, heading);
  const clipboard = (page: Page) => page.evaluate<string>('navigator.clipboard.readText()');
  const withKey = (path: string, key: string) => fetch(`${origin}${path}`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status);
  /** Presses Tab until the focused element's text or label is `name` (the keyboard alone). */
  const tabTo = async (page: Page, name: string) => {
    const seen: string[] = [];
    for (let i = 0; i < 80; i++) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate<string>(
        `(() => { const e = document.activeElement; return e ? (e.getAttribute('aria-label') || e.labels?.[0]?.textContent || e.textContent || '').trim() : ''; })()`,
      );
      if (focused === name) return;
      seen.push(focused);
    }
    throw new Error(`Tab never reached ${name}: ${seen.join(' | ')}`);
  };

  it('API keys: two scopes from the page work from outside until revoked on the page', async () => {
    const page = await newPage();
    await d.signInWithApi(page, OWNER);
    await open(page, '/settings/keys', 'API keys');
    await page.getByText('No API keys yet').waitFor();

    await page.getByRole('button', { name: 'New API key', exact: true }).click();
    await page.getByLabel('Name').fill('CRM sync');
    // Each scope says what it allows (api.md's table).
    await page.getByRole('checkbox', { name: /linksRead Read links/ }).check();
    await page.getByRole('checkbox', { name: /analyticsRead Read click analytics/ }).check();
    // The owner's role allows all sixteen scopes (operations.md §7 with §11's two and §18's two).
    expect(await page.getByRole('checkbox').count()).toBe(16);
    await d.checkAccessibility(page, 'settings-keys-form-en');
    await page.getByRole('button', { name: 'Create key' }).click();

    const shown = page.getByRole('textbox', { name: 'Your new API key' });
    await shown.waitFor();
    const key = await shown.inputValue();
    expect(key.length).toBeGreaterThan(20);
    await page.getByText('it will not be shown again').waitFor();
    await page.getByRole('button', { name: 'Copy: Your new API key' }).click();
    await page.getByRole('button', { name: /^Copied/ }).waitFor();
    expect(await clipboard(page)).toBe(key);
    await d.checkAccessibility(page, 'settings-keys-en');

    expect(await withKey('/api/links', key)).toBe(200);
    expect(await withKey('/api/collections', key)).toBe(403);

    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: 'Revoke CRM sync' }).click();
    await page.getByRole('button', { name: 'Yes, revoke' }).click();
    await page.getByText('Revoked', { exact: true }).first().waitFor();
    expect(await withKey('/api/links', key)).toBe(401);
    expect(await page.getByRole('button', { name: 'Revoke CRM sync' }).count()).toBe(0);
    expect(d.cspViolations).toEqual([]);
  });

  it('API keys with the keyboard alone', async () => {
    const page = await signedInPage();
    // A key of its own, made through the API: the list is loaded once it shows.
    const made = await page.request.post(`${origin}/api/workspaces/${workspaceId}/keys`, {
      headers: { origin },
      data: { name: 'Nightly export', scopes: ['linksRead'] },
    });
    expect(made.status(), await made.text()).toBe(201);
    await open(page, '/settings/keys', 'API keys');
    await page.getByText('Nightly export').waitFor();
    await tabTo(page, 'New API key');
    await page.keyboard.press('Enter');
    // The form opens with the focus in its first field.
    await expect.poll(() => page.evaluate<string>('document.activeElement.getAttribute("name")')).toBe('name');
    await page.keyboard.type('Keyboard key');
    await tabTo(page, 'tagsRead Read tags GET /api/tags');
    await page.keyboard.press('Space');
    await tabTo(page, 'partnersRead Read partners GET /api/partners');
    await page.keyboard.press('Space');
    await tabTo(page, 'Create key');
    await page.keyboard.press('Enter');

    const shown = page.getByRole('textbox', { name: 'Your new API key' });
    await shown.waitFor();
    await tabTo(page, 'Copy: Your new API key');
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: /^Copied/ }).waitFor();
    const key = await clipboard(page);
    expect(key).toBe(await shown.inputValue());
    expect(await withKey('/api/tags', key)).toBe(200);
    expect(await withKey('/api/partners', key)).toBe(200);
    expect(await withKey('/api/links', key)).toBe(403);

    await tabTo(page, 'Done');
    await page.keyboard.press('Enter');
    await tabTo(page, 'Revoke Keyboard key');
    await page.keyboard.press('Enter');
    // The question takes the focus on Cancel (the safe choice); the confirmation is one Shift+Tab away.
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');
    await expect.poll(() => withKey('/api/tags', key)).toBe(401);
    await expect.poll(() => page.getByRole('button', { name: 'Revoke Keyboard key' }).count()).toBe(0);
    // The focus is not lost with the button: it waits on the list's heading.
    await expect.poll(() => page.evaluate<string>('document.activeElement.textContent')).toBe('Keys');
  });

  it('invite a viewer on the members page; they join through the link as a new person and see no settings', async () => {
    const page = await signedInPage();
    await open(page, '/settings/members', 'Members');
    await page.getByText('No pending invitations').waitFor();
    await page.getByLabel('Email').fill(VIEWER.email);
    await page.getByLabel('Role', { exact: true }).selectOption('viewer');
    await page.getByRole('button', { name: 'Create invitation' }).click();
    const shown = page.getByRole('textbox', { name: 'Invitation link' });
    await shown.waitFor();
    await page.getByRole('button', { name: 'Copy: Invitation link' }).click();
    await page.getByRole('button', { name: /^Copied/ }).waitFor();
    const link = await clipboard(page);
    expect(link).toBe(await shown.inputValue());
    expect(link.startsWith(`${origin}/app/invite?token=`)).toBe(true);
    await page.getByRole('listitem').filter({ hasText: VIEWER.email }).waitFor();
    // A second invitation, withdrawn again.
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByLabel('Email').fill('nobody@example.com');
    await page.getByRole('button', { name: 'Create invitation' }).click();
    await page.getByRole('button', { name: 'Revoke nobody@example.com' }).click();
    await page.getByRole('button', { name: 'Yes, revoke' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Revoke nobody@example.com' }).count()).toBe(0);
    await d.checkAccessibility(page, 'settings-members-en');

    const guest = await newPage();
    await guest.goto(link);
    await guest.getByRole('heading', { name: 'Join a Linktrail workspace' }).waitFor();
    await d.checkAccessibility(guest, 'invite-en');
    await guest.getByLabel('Your name').fill(VIEWER.name);
    await guest.getByLabel('Choose a password').fill(VIEWER.password);
    await guest.getByRole('button', { name: 'Create account and join' }).click();
    const nav = guest.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Overview' }).waitFor();
    expect(guest.url()).toBe(`${origin}/app`);
    expect(await guest.getByRole('combobox', { name: 'Workspace' }).inputValue()).toBe(workspaceId);
    expect(await nav.getByRole('link', { name: 'Settings' }).count()).toBe(0);
    await guest.goto(`${origin}/app/settings/keys`);
    await guest.getByText('There is no page here.').waitFor();

    await page.reload();
    const row = page.getByRole('listitem').filter({ hasText: VIEWER.email });
    await row.waitFor();
    expect(await row.getByRole('combobox', { name: `Role of ${VIEWER.name}` }).inputValue()).toBe('viewer');
    await page.getByText('No pending invitations').waitFor();
    // The invitation was used once: it is spent.
    const again = await newPage();
    await again.goto(link);
    await again.getByLabel('Your name').fill('Someone Else');
    await again.getByLabel('Choose a password').fill('another-long-password-88');
    await again.getByRole('button', { name: 'Create account and join' }).click();
    await again.getByRole('alert').waitFor();
    expect(await again.getByRole('alert').textContent()).toMatch(/\S/);
  });

  it('account: the password changed (other sessions end), two sessions, the other one ended', async () => {
    // A person with a workspace of their own: the setup's owner keeps their password.
    await d.workspaceOf(AMAL);
    const page = await signedInPage(AMAL);
    // Password and sessions are under Account → Security.
    await open(page, '/account/security', 'Security');
    const password = page.getByRole('region', { name: 'Password' });
    await password.getByLabel('Current password').fill(AMAL.password);
    await password.getByLabel('New password').fill(NEW_PASSWORD);
    await password.getByRole('button', { name: 'Change password' }).click();
    await password.getByText('Password changed.').waitFor();
    const sessions = page.getByRole('region', { name: 'Sessions' });
    await sessions.getByText('No other session is signed in.').waitFor();

    const other = await signedInPage({ ...AMAL, password: NEW_PASSWORD });
    await other.goto(`${origin}/app`);
    await other.getByRole('navigation').first().waitFor();
    await page.reload();
    await expect.poll(() => sessions.getByRole('listitem').count()).toBe(2);
    expect(await sessions.getByText('This session', { exact: true }).count()).toBe(1);
    await d.checkAccessibility(page, 'account-security-sessions-en');
    await sessions.getByRole('button', { name: 'Sign out this session' }).click();
    await sessions.getByRole('button', { name: 'Yes, sign it out' }).click();
    await sessions.getByText('No other session is signed in.').waitFor();
    expect(await sessions.getByRole('listitem').count()).toBe(1);
    await other.reload();
    await other.getByRole('button', { name: 'Sign in' }).waitFor();

    // A personal token, shown once, works like a key.
    await open(page, '/account', 'Account');
    await d.checkAccessibility(page, 'account-en');
    const tokens = page.getByRole('region', { name: 'Personal tokens' });
    await tokens.getByRole('button', { name: 'New personal token' }).click();
    await tokens.getByLabel('Token name').fill('Laptop script');
    await tokens.getByRole('checkbox', { name: /linksRead/ }).check();
    await tokens.getByRole('button', { name: 'Create token' }).click();
    const token = await tokens.getByRole('textbox', { name: 'Your new personal token' }).inputValue();
    expect(token).toMatch(/^ltp_/);
    expect(await withKey('/api/links', token)).toBe(200);
    await tokens.getByRole('button', { name: 'Done' }).click();
    await tokens.getByRole('button', { name: 'Revoke Laptop script' }).click();
    await tokens.getByRole('button', { name: 'Yes, revoke' }).click();
    await tokens.getByText('No personal tokens').waitFor();
    expect(await withKey('/api/links', token)).toBe(401);
  });

  it('general, OAuth apps and connected apps', async () => {
    const page = await signedInPage();
    await open(page, '/settings', 'Settings');
    await page.getByLabel('Workspace name').fill('Acme Growth');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByText('Saved.').waitFor();
    await expect.poll(() => page.getByRole('combobox', { name: 'Workspace' }).locator('option:checked').textContent()).toBe('Acme Growth');
    await d.checkAccessibility(page, 'settings-general-en');

    await open(page, '/settings/apps', 'OAuth apps');
    await page.getByText('No OAuth apps yet').waitFor();
    await page.getByRole('button', { name: 'New OAuth app' }).click();
    await page.getByLabel('App name').fill('Report builder');
    await page.getByLabel('Redirect URIs').fill('https://reports.example.com/callback');
    await page.getByRole('checkbox', { name: /linksRead/ }).check();
    await page.getByRole('checkbox', { name: /analyticsRead/ }).check();
    await page.getByRole('button', { name: 'Register app' }).click();
    const secret = await page.getByRole('textbox', { name: 'Client secret' }).inputValue();
    expect(secret).toMatch(/^ltcs_/);
    await d.checkAccessibility(page, 'settings-apps-en');
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: 'Edit Report builder' }).click();
    await page.getByLabel('App name').fill('Report builder 2');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Report builder 2').first().waitFor();
    await page.getByRole('button', { name: 'New client secret: Report builder 2' }).click();
    await page.getByRole('button', { name: 'Yes, make a new secret' }).click();
    const rotated = await page.getByRole('textbox', { name: 'Client secret' }).inputValue();
    expect(rotated).toMatch(/^ltcs_/);
    expect(rotated).not.toBe(secret);
    await page.getByRole('button', { name: 'Done' }).click();

    // A consent given on the server's own consent form (same origin, the owner's session).
    const apps = await (await page.request.get(`${origin}/api/workspaces/${workspaceId}/oauth-apps`, { headers: { origin } })).json();
    const consent = await page.request.post(`${origin}/oauth/authorize`, {
      headers: { origin },
      form: {
        response_type: 'code',
        client_id: apps[0].clientId,
        redirect_uri: 'https://reports.example.com/callback',
        scope: 'linksRead',
        state: 'xyz',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
        workspaceId,
        decision: 'allow',
      },
      maxRedirects: 0,
    });
    expect(consent.status(), await consent.text()).toBe(302);
    await open(page, '/settings/connected', 'Connected apps');
    await page.getByText('Report builder 2', { exact: true }).waitFor();
    await page.getByText(`${OWNER.name} (${OWNER.email})`).waitFor();
    await d.checkAccessibility(page, 'settings-connected-en');
    await page.getByRole('button', { name: `Disconnect Report builder 2 (${OWNER.name})` }).click();
    await page.getByRole('button', { name: 'Yes, disconnect' }).click();
    await page.getByText('No app is connected').waitFor();

    await open(page, '/settings/apps', 'OAuth apps');
    await page.getByRole('button', { name: 'Delete Report builder 2' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await page.getByText('No OAuth apps yet').waitFor();
    expect(d.cspViolations).toEqual([]);
  });

  it('Arabic at 375 px: every page right-to-left, without horizontal overflow', async () => {
    const page = await newPage('ar-EG', PHONE);
    await page.goto(`${origin}/app`);
    await page.getByLabel('البريد الإلكتروني').fill(OWNER.email);
    await page.getByLabel('كلمة المرور').fill(OWNER.password);
    await page.getByRole('button', { name: 'تسجيل الدخول' }).click();
    await page.getByRole('navigation').first().waitFor();
    expect(await page.evaluate('document.documentElement.dir')).toBe('rtl');

    await open(page, '/settings', 'الإعدادات');
    await d.checkAccessibility(page, 'settings-general-ar');
    await open(page, '/settings/members', 'الأعضاء');
    await page.getByRole('button', { name: 'إنشاء دعوة' }).waitFor();
    await page.getByLabel('البريد الإلكتروني').fill('sami@example.com');
    await page.getByRole('button', { name: 'إنشاء دعوة' }).click();
    const link = await page.getByRole('textbox', { name: 'رابط الدعوة' }).inputValue();
    await d.checkAccessibility(page, 'settings-members-ar');

    await open(page, '/settings/keys', 'مفاتيح الواجهة البرمجية');
    await page.getByRole('button', { name: 'مفتاح واجهة برمجية جديد' }).click();
    await page.getByLabel('الاسم').fill('مزامنة');
    await page.getByRole('checkbox', { name: /linksRead/ }).check();
    await d.checkAccessibility(page, 'settings-keys-form-ar');
    await page.getByRole('button', { name: 'إنشاء المفتاح' }).click();
    await page.getByText('لن يُعرض مرة أخرى').waitFor();
    await d.checkAccessibility(page, 'settings-keys-ar');

    await open(page, '/settings/apps', 'تطبيقات OAuth');
    await page.getByRole('button', { name: 'تطبيق OAuth جديد' }).click();
    await d.checkAccessibility(page, 'settings-apps-ar');
    await open(page, '/settings/connected', 'التطبيقات المتصلة');
    await d.checkAccessibility(page, 'settings-connected-ar');
    await open(page, '/account', 'الحساب');
    await page.getByRole('button', { name: 'رمز شخصي جديد' }).click();
    await d.checkAccessibility(page, 'account-ar');

    const guest = await newPage('ar-EG', PHONE);
    await guest.goto(link);
    await guest.getByRole('heading', { name: 'الانضمام إلى مساحة عمل في Linktrail' }).waitFor();
    await guest.getByRole('button', { name: 'لديّ حساب بالفعل' }).click();
    await d.checkAccessibility(guest, 'invite-ar');
    // An API error in the page's language: the wrong password for the invited address.
    await guest.getByLabel('البريد الإلكتروني').fill('sami@example.com');
    await guest.getByLabel('كلمة المرور').fill('not-the-right-password-1');
    await guest.getByRole('button', { name: 'تسجيل الدخول والانضمام' }).click();
    await guest.getByRole('alert').waitFor();
    expect(await guest.getByRole('alert').textContent()).toMatch(/[\u0600-\u06FF]/);
    // The same answer reworded when the language changes.
    await guest.getByLabel('اللغة').selectOption('en');
    await guest.getByRole('button', { name: 'Sign in and join' }).waitFor();
    expect(await guest.getByRole('alert').textContent()).toMatch(/^[\x20-\x7e]+$/);
    expect(d.cspViolations).toEqual([]);
  });
});
