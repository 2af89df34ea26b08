/**
 * A partner's invitation in Chromium (operations.md §18 "Invitations"): the link the owner's
 * POST /api/partner-invites answers opens /app/partner/invite, which names the partner, the
 * program and the invited address; the partner makes an account there and is told they joined —
 * in English at 1280 px and in Arabic at 375 px, axe clean. A used link says so on arrival.
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.js';
import { dashboardRunnable, OWNER, PHONE, startDashboard, type Dashboard } from './dashboard-harness.js';

describe.runIf(dashboardRunnable())('a partner invitation in the browser', () => {
  let d: Dashboard;
  let key: string;

  beforeAll(async () => {
    d = await startDashboard();
    const { workspaceId } = await d.setUpOwner(await d.newPage());
    await d.closeContexts();
    key = (await d.t.admin('POST', `/workspaces/${workspaceId}/keys`, { name: 'program', scopes: ['partnersWrite', 'programsWrite'] })).json<{ key: string }>()
      .key;
    const program = await d.t.inject({
      method: 'PUT',
      url: '/api/program',
      headers: bearer(key),
      payload: { name: 'Lamp Friends', slug: 'lamp-friends', landingUrl: 'https://shop.example/', currency: 'usd' },
    });
    expect(program.statusCode, program.body).toBe(200);
  });
  afterEach(() => d.closeContexts());
  afterAll(() => d?.close());

  /** Names on the page are isolated (U+2068 … U+2069): they may be in either script. */
  const iso = (s: string) => `\u2068${s}\u2069`;

  /** A new partner with this e-mail, invited: the link of the answer, with the origin the browser reaches. */
  async function invitation(name: string, email: string): Promise<string> {
    const made = await d.t.inject({ method: 'POST', url: '/api/partners', headers: bearer(key), payload: [{ name, email, status: 'invited' }] });
    expect(made.statusCode, made.body).toBe(201);
    const partnerId = made.json<{ id: string }[]>()[0]!.id;
    const invited = await d.t.inject({ method: 'POST', url: '/api/partner-invites', headers: bearer(key), payload: [{ partnerId }] });
    expect(invited.statusCode, invited.body).toBe(201);
    const url = new URL(invited.json<{ url: string }[]>()[0]!.url);
    return `${d.origin}${url.pathname}${url.search}`;
  }

  async function join(page: Page, link: string, labels: { name: string; password: string; button: string }) {
    await page.goto(link);
    await page.getByLabel(labels.name).fill('Ana Lima');
    await page.getByLabel(labels.password).fill('copper-valley-38-harbor');
    await page.getByRole('button', { name: labels.button }).click();
  }

  it('names the partner, the program and the address; a new account joins and is told so', async () => {
    const link = await invitation('Ana Lima', 'ana@example.net');
    const page = await d.newPage();
    await page.goto(link);
    await page.getByRole('heading', { name: 'Join a partner program' }).waitFor();
    await page.getByText(`${iso('Ana Lima')}, you are invited to the partner program “${iso('Lamp Friends')}”.`).waitFor();
    await page.getByText('The invitation is for ana@example.net.').waitFor();
    await d.checkAccessibility(page, 'partner-invite-en');
    await join(page, link, { name: 'Your name', password: 'Choose a password', button: 'Create account and join' });
    await page
      .getByRole('status')
      .getByText(`You are now a partner in “${iso('Lamp Friends')}”.`, { exact: false })
      .waitFor();
    // Signed in as the partner: /api/me names the program.
    const me = await page.evaluate<{ partnerPrograms: unknown[] }>("fetch('/api/me').then((r) => r.json())");
    expect(me.partnerPrograms).toEqual([expect.objectContaining({ name: 'Lamp Friends', status: 'approved' })]);
  });

  it('the owner invites from Partners: told where it goes, the link shown to copy, and it opens the invitation', async () => {
    const made = await d.t.inject({ method: 'POST', url: '/api/partners', headers: bearer(key), payload: [{ name: 'Lia Stone', email: 'lia@example.net' }] });
    expect(made.statusCode, made.body).toBe(201);
    const owner = await d.newPage();
    await d.signIn(owner, OWNER);
    await d.open(owner, '/program/partners', 'Partners');
    await owner.getByRole('button', { name: 'Invite Lia Stone to the partner portal' }).click();
    await owner
      .getByRole('status')
      .getByText('Invitation for Lia Stone created; it is mailed to lia@example.net when the server sends mail.', { exact: false })
      .waitFor();
    const link = await owner.getByRole('textbox', { name: 'Invitation link' }).inputValue();
    expect(link).toMatch(/\/app\/partner\/invite\?token=[\w-]{43}$/);
    await d.checkAccessibility(owner, 'partner-invite-owner');
    const guest = await d.newPage();
    await guest.goto(`${d.origin}${new URL(link).pathname}${new URL(link).search}`);
    await guest.getByText(`${iso('Lia Stone')}, you are invited to the partner program “${iso('Lamp Friends')}”.`).waitFor();
  });

  it('in Arabic at 375 px, right to left; a used link says so on arrival', async () => {
    const link = await invitation('Omar', 'omar@example.net');
    const page = await d.newPage('ar', PHONE);
    await page.goto(link);
    await page.getByRole('heading', { name: 'الانضمام إلى برنامج شركاء' }).waitFor();
    await page.getByText(`${iso('Omar')}، أنت مدعو إلى برنامج الشركاء «${iso('Lamp Friends')}».`).waitFor();
    expect(await page.evaluate<string>('document.documentElement.dir')).toBe('rtl');
    await d.checkAccessibility(page, 'partner-invite-ar');
    await join(page, link, { name: 'اسمك', password: 'اختر كلمة مرور', button: 'إنشاء الحساب والانضمام' });
    await page.getByRole('status').getByText('أصبحت الآن شريكًا', { exact: false }).waitFor();

    const again = await d.newPage();
    await again.goto(link);
    await again.getByText(/is not a valid invitation/).waitFor();
  });
});
