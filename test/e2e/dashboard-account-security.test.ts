/**
 * Account → Security in Chromium (operations.md §7, §15): two-factor sign-in turned on from the
 * page (the QR code and the key shown, a code computed here with `otpauth` from that key, ten
 * recovery codes copied and downloaded), then used to sign in — a code, then a recovery code —
 * new recovery codes, and turned off. A workspace requiring two-factor: the owner's switch, and
 * a member without it sees why and is led to Security, in Arabic, enrols there and gets in.
 * The app's clock is moved a 30-second step where a fresh code is needed (each code works once).
 */
import { copyFileSync, readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mutableClock } from '../modules/people/helpers.js';
import { dashboardRunnable, KEEP_SCREENSHOTS, OWNER, PHONE, SCREENSHOTS, startDashboard, type Dashboard } from './dashboard-harness.js';

const MEMBER = { name: 'Sami Member', email: 'sami-security@example.com', password: 'quiet-meadow-47-compass' };
const STEP = 30_000;

describe.runIf(dashboardRunnable())('Account → Security in the dashboard', () => {
  const clock = mutableClock(new Date());
  let d: Dashboard;
  let workspaceId: string;

  beforeAll(async () => {
    d = await startDashboard({}, { clock: clock.now });
    const page = await d.newPage();
    workspaceId = (await d.setUpOwner(page)).workspaceId;
    const user = await d.t.admin('POST', '/users', MEMBER);
    expect(user.statusCode, user.body).toBe(201);
    const added = await d.t.admin('POST', `/workspaces/${workspaceId}/members`, { userId: user.json<{ id: string }>().id, role: 'member' });
    expect(added.statusCode, added.body).toBe(201);
    await d.closeContexts();
  });
  afterAll(() => d?.close());

  const code = (secret: string) =>
    new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) }).generate({ timestamp: clock.now().getTime() });
  /** What the suite looked at, kept under /tmp as well (when screenshots are kept). */
  const keep = (name: string) => {
    if (KEEP_SCREENSHOTS) for (const w of [1280, 375]) copyFileSync(`${SCREENSHOTS}/dashboard-${name}-${w}.png`, `/tmp/security-${name}-${w}.png`);
  };
  const check = async (page: Page, name: string) => {
    await d.checkAccessibility(page, name);
    keep(name);
  };

  /** Enrols from the two-factor section in the page's words; answers the key and the recovery codes. */
  async function enrol(
    page: Page,
    person: { password: string },
    w: Record<'password' | 'setUp' | 'scan' | 'qr' | 'key' | 'code' | 'turnOn' | 'codes', string>,
    shots?: string,
  ) {
    const section = page.locator('section[aria-labelledby="mfa-heading"]');
    await section.getByLabel(w.password).fill(person.password);
    await section.getByRole('button', { name: w.setUp }).click();
    await page.getByRole('heading', { name: w.scan }).waitFor();
    const qr = page.getByRole('img', { name: w.qr });
    await qr.waitFor();
    expect(await qr.getAttribute('src')).toMatch(/^data:image\/svg\+xml/);
    const secret = await page.getByRole('textbox', { name: w.key }).inputValue();
    expect(Secret.fromBase32(secret).bytes.length).toBe(20);
    if (shots) await check(page, `${shots}-scan`);
    await page.getByLabel(w.code).fill(code(secret));
    await page.getByRole('button', { name: w.turnOn }).click();
    const codes = page.getByRole('list', { name: w.codes });
    await codes.waitFor();
    const recovery = (await codes.getByRole('listitem').allTextContents()).map((c) => c.trim());
    expect(recovery).toHaveLength(10);
    return { secret, recovery };
  }

  const EN = {
    password: 'Your password',
    setUp: 'Set up two-factor sign-in',
    scan: 'Scan this code with your authenticator app',
    qr: 'QR code for your authenticator app',
    key: 'Key for typing it in',
    code: 'Code from the app',
    turnOn: 'Turn on',
    codes: 'Your recovery codes',
  };
  const AR = {
    password: 'كلمة مرورك',
    setUp: 'إعداد تسجيل الدخول بخطوتين',
    scan: 'امسح هذا الرمز بتطبيق المصادقة',
    qr: 'رمز QR لتطبيق المصادقة',
    key: 'المفتاح لكتابته يدويًا',
    code: 'الرمز من التطبيق',
    turnOn: 'تفعيل',
    codes: 'رموز الاسترداد الخاصة بك',
  };

  async function signInWithCode(page: Page, value: string) {
    await page.goto(`${d.origin}/app`);
    await page.getByLabel('Email').fill(OWNER.email);
    await page.getByLabel('Password').fill(OWNER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Code').fill(value);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
  }

  it('enrol, sign in with a code and with a recovery code, require it in the workspace, new codes, turn off', async () => {
    const page = await d.clipboardPage();
    await d.signIn(page, OWNER);
    // The account page leads to Security; password and sessions moved there.
    await d.open(page, '/account', 'Account');
    expect(await page.getByRole('region', { name: 'Password' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Password, two-factor sign-in and sessions are under Security.' }).click();
    await page.getByRole('heading', { level: 1, name: 'Security' }).waitFor();
    await page.getByRole('region', { name: 'Password' }).waitFor();
    await page.getByRole('region', { name: 'Sessions' }).getByText('This session', { exact: true }).waitFor();
    await check(page, 'account-security-off-en');

    const { secret, recovery } = await enrol(page, OWNER, EN, 'account-security-en');
    await check(page, 'account-security-codes-en');
    await page.getByRole('button', { name: 'Copy: Copy the codes' }).click();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(recovery.join('\n') + '\n');
    const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download the codes' }).click()]);
    expect(file.suggestedFilename()).toBe('linktrail-recovery-codes.txt');
    expect(
      readFileSync((await file.path())!, 'utf8')
        .trim()
        .split('\n'),
    ).toEqual(recovery);
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await page.getByText('Two-factor sign-in is on.').waitFor();
    await page.getByText('10 unused recovery codes left.').waitFor();

    // Signed out, the sign-in asks for a code: a fresh one of the app, then (again) a recovery code.
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    clock.advance(STEP);
    await signInWithCode(page, code(secret));
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await signInWithCode(page, recovery[0]!);

    // Now the owner may require it of the workspace's members.
    await d.open(page, '/settings', 'Settings');
    const box = page.getByRole('checkbox', { name: 'Require two-factor sign-in for every member' });
    expect(await box.isChecked()).toBe(false);
    await box.check();
    await page.getByText('Two-factor sign-in is now required.').waitFor();
    await check(page, 'settings-require-mfa-en');
    await page.reload();
    expect(await page.getByRole('checkbox', { name: 'Require two-factor sign-in for every member' }).isChecked()).toBe(true);

    // A member without it, in Arabic: told why, led to Security, enrols there, and gets in.
    const member = await d.newPage('ar', PHONE);
    await member.goto(`${d.origin}/app`);
    await member.getByLabel('البريد الإلكتروني').fill(MEMBER.email);
    await member.getByLabel('كلمة المرور').fill(MEMBER.password);
    await member.getByRole('button', { name: 'تسجيل الدخول' }).click();
    const notice = member.getByRole('alert').filter({ hasText: 'تتطلب مساحة العمل هذه تسجيل الدخول بخطوتين' });
    await notice.waitFor();
    await check(member, 'require-mfa-refused-ar');
    // The server says the same to any request the page would make.
    const refused = await member.request.get(`${d.origin}/api/links`, { headers: { 'x-workspace-id': workspaceId, origin: d.origin } });
    expect(refused.status()).toBe(403);
    expect((await refused.json()).error.code).toBe('mfa_required');
    await notice.getByRole('link', { name: 'إعداد تسجيل الدخول بخطوتين من الحساب ← الأمان' }).click();
    await member.getByRole('heading', { level: 1, name: 'الأمان' }).waitFor();
    await enrol(member, MEMBER, AR, 'account-security-ar');
    await check(member, 'account-security-codes-ar');
    await member.getByRole('button', { name: 'حفظتها' }).click();
    await member.getByText('تسجيل الدخول بخطوتين مفعّل.').waitFor();
    await check(member, 'account-security-on-ar');
    await member.goto(`${d.origin}/app/links`);
    await member.getByRole('heading', { level: 1, name: 'الروابط' }).waitFor();
    expect(await member.getByRole('alert').filter({ hasText: 'تتطلب مساحة العمل' }).count()).toBe(0);

    // Back to the owner: the requirement off again, new recovery codes, then two-factor off.
    await page.getByRole('checkbox', { name: 'Require two-factor sign-in for every member' }).uncheck();
    await page.getByText('Two-factor sign-in is no longer required.').waitFor();
    await d.open(page, '/account/security', 'Security');
    await page.getByText('9 unused recovery codes left.').waitFor();
    await check(page, 'account-security-on-en');
    const renew = page.locator('form[aria-labelledby="regenerate-heading"]');
    await renew.getByLabel('Your password').fill(OWNER.password);
    await renew.getByRole('button', { name: 'Make new codes' }).click();
    const freshList = page.getByRole('list', { name: 'Your recovery codes' });
    await freshList.waitFor();
    const fresh = (await freshList.getByRole('listitem').allTextContents()).map((c) => c.trim());
    expect(fresh).toHaveLength(10);
    expect(fresh.some((c) => recovery.includes(c))).toBe(false);
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await page.getByText('10 unused recovery codes left.').waitFor();

    const off = page.locator('form[aria-labelledby="turn-off-heading"]');
    await off.getByLabel('Your password').fill(OWNER.password);
    await off.getByLabel('Code from the app, or a recovery code').fill('000000');
    await off.getByRole('button', { name: 'Turn off two-factor sign-in' }).click();
    await off.getByRole('alert').waitFor();
    clock.advance(STEP);
    await off.getByLabel('Code from the app, or a recovery code').fill(code(secret));
    await off.getByRole('button', { name: 'Turn off two-factor sign-in' }).click();
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).waitFor();
    // Signing in is the password alone again.
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await d.signIn(page, OWNER);
    expect(d.cspViolations).toEqual([]);
  }, 180_000);
});
