/**
 * Invitation mail (operations.md §15, issue 27) through HTTP against a real SMTP server the test
 * starts: the mail names the workspace, the inviter and the role in both languages and carries
 * the link; it is queued with the invitation and sent after the answer, so a server that
 * refuses or is down delays nothing and loses nothing (it is tried again; the link stays in the
 * answer). The outbox holds the message sealed, and nothing of it once sent.
 */
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { dropFreshDatabases, freshDatabase } from '../../helpers/fresh-database.js';
import { startSmtp, type TestSmtp } from '../../helpers/smtp.js';
import { within } from '../../helpers/wait.js';
import { asSession, ownedWorkspace, uniqueEmail, type SignedIn } from '../people/helpers.js';

const FROM = 'Linktrail <links@lt.test>';
let smtp: TestSmtp;
let t: TestApp;
let owner: SignedIn;
let workspaceId: string;
let workspaceName: string;

beforeAll(async () => {
  smtp = await startSmtp();
  // A database of its own: its mail worker must not take other tests' messages.
  t = await startTestApp({ database: await freshDatabase(), env: { SMTP_URL: smtp.url, MAIL_FROM: FROM, MAIL_RETRY_DELAYS: '50ms,50ms,50ms' } });
  const owned = await ownedWorkspace(t);
  owner = owned.owner;
  workspaceId = owned.workspace.id;
  workspaceName = (await t.admin('GET', '/workspaces')).json<{ id: string; name: string }[]>().find((w) => w.id === workspaceId)!.name;
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
  await dropFreshDatabases();
});

const invite = (email: string, role = 'member') => asSession(t, owner.cookie, 'POST', `/api/workspaces/${workspaceId}/invites`, { email, role });
/** Each test starts with every earlier message sent. */
beforeEach(async () => {
  if (t) expect(await within(5000, async () => (await outbox(t)).length === 0), 'earlier mail sent').toBe(true);
});

const outbox = (app: TestApp) =>
  rows<{ kind: string; message_sealed: string; attempts: number; last_error: string | null }>(
    app.database.db,
    sql`SELECT kind, message_sealed, attempts, last_error FROM mail_outbox`,
  );

describe('an invitation with mail configured', () => {
  test('is mailed: workspace, inviter and role in English and Arabic, with the link of the answer', async () => {
    const to = uniqueEmail('invitee');
    const res = await invite(to, 'viewer');
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json<{ url: string; mailed: boolean }>();
    expect(created.mailed).toBe(true);
    const mail = await smtp.messageTo(to);
    expect(mail, 'the invitation mail arrived').toBeDefined();
    expect(mail!.from?.value[0]).toMatchObject({ name: 'Linktrail', address: 'links@lt.test' });
    expect(mail!.subject).toContain(workspaceName);
    expect(mail!.text).toContain(`Owner invited you to join the workspace "${workspaceName}" on Linktrail as a viewer.`);
    expect(mail!.text).toContain(`دعاك Owner للانضمام إلى مساحة العمل «${workspaceName}» على Linktrail مشاهدًا.`);
    expect(mail!.text).toContain(created.url);
    expect(mail!.html).toContain(`href="${created.url}"`);
    expect(mail!.html).toContain('dir="rtl"');
    // Sent: nothing of it stays in the outbox.
    expect(await within(5000, async () => (await outbox(t)).length === 0)).toBe(true);
  });

  test('the accept page can say who invites, to what and as what; a wrong token is refused', async () => {
    const to = uniqueEmail('lookup');
    const { url } = (await invite(to, 'owner')).json<{ url: string }>();
    const token = new URL(url).searchParams.get('token')!;
    const res = await t.inject({ method: 'POST', url: '/api/invites/lookup', payload: { token } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ email: to, role: 'owner', workspaceName, inviterName: 'Owner' });
    const wrong = await t.inject({ method: 'POST', url: '/api/invites/lookup', payload: { token: `${token.slice(0, -2)}AA` } });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ error: { code: 'invalid_field' }, field: 'token', reason: 'invite_invalid' });
  });

  test('a server that refuses delays nothing and loses nothing: the mail is sent once it takes it', async () => {
    smtp.refuse = true;
    const to = uniqueEmail('later');
    const res = await invite(to);
    expect(res.statusCode, res.body).toBe(201);
    expect(await within(5000, async () => smtp.refused >= 2), 'refused and tried again').toBe(true);
    const waiting = await outbox(t);
    expect(waiting).toHaveLength(1);
    expect(waiting[0]!.last_error).toMatch(/451|try again/);
    smtp.refuse = false;
    expect(await smtp.messageTo(to), 'sent once the server takes it').toBeDefined();
  });

  test('the outbox keeps the message sealed: neither the address nor the link in the clear', async () => {
    smtp.refuse = true;
    const to = uniqueEmail('sealed');
    const { url } = (await invite(to)).json<{ url: string }>();
    const [row] = await outbox(t);
    smtp.refuse = false;
    expect(row!.kind).toBe('invitation');
    expect(row!.message_sealed).not.toContain(to);
    expect(row!.message_sealed).not.toContain(new URL(url).searchParams.get('token')!);
    expect(await smtp.messageTo(to)).toBeDefined();
  });
});

describe('a mail server that is down', () => {
  let down: TestApp;
  let silent: Server;

  beforeAll(async () => {
    // Accepts connections and never says a word: a hung mail server.
    silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    down = await startTestApp({ database: await freshDatabase(), env: { SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_FROM: FROM } });
  });
  afterAll(async () => {
    await down?.close();
    silent?.close();
  });

  test('the invitation is answered at once, its link works, and its mail waits in the outbox', async () => {
    const { workspace, owner: o } = await ownedWorkspace(down);
    const to = uniqueEmail('down');
    const res = await asSession(down, o.cookie, 'POST', `/api/workspaces/${workspace.id}/invites`, { email: to, role: 'member' });
    expect(res.statusCode, res.body).toBe(201);
    expect((await outbox(down)).map((r) => r.kind)).toEqual(['invitation']);
    const token = new URL(res.json<{ url: string }>().url).searchParams.get('token')!;
    const accepted = await down.inject({
      method: 'POST',
      url: '/api/invites/accept',
      headers: { origin: 'https://lt.test' },
      payload: { token, name: 'Dana', password: 'a long enough secret phrase' },
    });
    expect(accepted.statusCode, accepted.body).toBe(201);
  });
});

describe('without mail', () => {
  test('the answer says the invitation is not mailed; the URL is the way to send it', async () => {
    const plain = await startTestApp();
    try {
      const { workspace, owner: o } = await ownedWorkspace(plain);
      const res = await asSession(plain, o.cookie, 'POST', `/api/workspaces/${workspace.id}/invites`, { email: uniqueEmail('plain'), role: 'member' });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toMatchObject({ mailed: false, url: expect.stringMatching(/^https:\/\/lt\.test\/app\/invite\?token=/) });
    } finally {
      await plain.close();
    }
  });
});
