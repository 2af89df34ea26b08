/**
 * Invitation by mail in the dashboard (operations.md §15, issue 27), in Chromium against a real
 * SMTP server: the owner invites on the members page and is told it was mailed (the link still
 * shown); the mail arrives naming the workspace, inviter and role; its link opens the accept
 * page, which names them too — in English and Arabic, at 1280 and 375 px.
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSmtp, type TestSmtp } from '../helpers/smtp.js';
import { dashboardRunnable, OWNER, PHONE, startDashboard, type Dashboard } from './dashboard-harness.js';

describe.runIf(dashboardRunnable())('invitations by mail in the dashboard', () => {
  let d: Dashboard;
  let smtp: TestSmtp;

  beforeAll(async () => {
    smtp = await startSmtp();
    d = await startDashboard({ SMTP_URL: smtp.url, MAIL_FROM: 'Linktrail <links@lt.test>' });
    await d.setUpOwner(await d.newPage());
    await d.closeContexts();
  });
  afterEach(() => d.closeContexts());
  afterAll(async () => {
    await d?.close();
    await smtp?.close();
  });

  /** Names on the page are isolated (U+2068 … U+2069): they may be in either script. */
  const iso = (s: string) => `\u2068${s}\u2069`;

  const invite = async (page: Page, email: string, role: string) => {
    await d.signIn(page, OWNER);
    await d.open(page, '/settings/members', 'Members');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Role', { exact: true }).selectOption(role);
    await page.getByRole('button', { name: 'Create invitation' }).click();
    await page.getByText(`Invitation mailed to ${email}. If it does not arrive, send them this link.`).waitFor();
    return page.getByRole('textbox', { name: 'Invitation link' }).inputValue();
  };

  it('the owner is told it was mailed; the mail and the accept page name the workspace, the inviter and the role', async () => {
    const owner = await d.newPage();
    const shown = await invite(owner, 'mia@example.com', 'member');
    const mail = await smtp.messageTo('mia@example.com');
    expect(mail!.text).toContain(`${OWNER.name} invited you to join the workspace "${OWNER.workspaceName}" on Linktrail as a member.`);
    const link = /https?:\/\/\S+\/app\/invite\?token=[\w-]+/.exec(mail!.text ?? '')![0];
    expect(link).toBe(shown);

    const guest = await d.newPage();
    await guest.goto(link);
    await guest.getByText(`${iso(OWNER.name)} invited you to join the workspace “${iso(OWNER.workspaceName)}” as a member.`).waitFor();
    await guest.getByText('The invitation is for mia@example.com.').waitFor();
    await d.checkAccessibility(guest, 'invite-mailed-en');

    const arabic = await d.newPage('ar', PHONE);
    await arabic.goto(link);
    await arabic.getByText(`دعاك ${iso(OWNER.name)} للانضمام إلى مساحة العمل «${iso(OWNER.workspaceName)}» عضوًا.`).waitFor();
    await d.checkAccessibility(arabic, 'invite-mailed-ar');

    // Joining through the mailed link works as through the shown one.
    await guest.getByLabel('Your name').fill('Mia Member');
    await guest.getByLabel('Choose a password').fill('copper-valley-38-harbor');
    await guest.getByRole('button', { name: 'Create account and join' }).click();
    await guest.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Overview' }).waitFor();
  });

  it('a used link says so on arrival, before anything is typed', async () => {
    const owner = await d.newPage();
    const link = await invite(owner, 'once@example.com', 'viewer');
    expect(
      (
        await d.t.inject({
          method: 'POST',
          url: '/api/invites/accept',
          headers: { origin: d.origin },
          payload: { token: new URL(link).searchParams.get('token'), name: 'Once', password: 'copper-valley-38-harbor' },
        })
      ).statusCode,
    ).toBe(201);
    const guest = await d.newPage();
    await guest.goto(link);
    await guest.getByText(/is not a valid invitation/).waitFor();
  });
});
