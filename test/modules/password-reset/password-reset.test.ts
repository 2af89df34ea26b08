/**
 * Password reset (operations.md §15, issue 27) through HTTP against a real SMTP server the test
 * starts: the same 202 whatever the address, at most 3 mails per address an hour, a single-use
 * link valid one hour that ends every session and signs nobody in; without mail a 400 for every
 * address and the operator's link instead.
 */
import { sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { queuedMailCount } from '../../../src/modules/mail/service.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { dropFreshDatabases, freshDatabase } from '../../helpers/fresh-database.js';
import { startSmtp, type TestSmtp } from '../../helpers/smtp.js';
import { within } from '../../helpers/wait.js';
import { createUser, loginRequest, mutableClock, sessionCookieFrom, uniqueEmail, type TestUser } from '../people/helpers.js';

const NEW_PASSWORD = 'saffron-kettle-52-orbit';
const HOUR = 3600_000;
let smtp: TestSmtp;
let t: TestApp;
const clock = mutableClock(new Date('2031-05-01T08:00:00Z'));

beforeAll(async () => {
  smtp = await startSmtp();
  t = await startTestApp({ database: await freshDatabase(), clock: clock.now, env: { SMTP_URL: smtp.url, MAIL_FROM: 'links@lt.test' } });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
  await dropFreshDatabases();
});
/** Every mail queued so far has been sent. */
const sent = () => within(5000, async () => (await queuedMailCount(t.database.db)) === 0);
beforeEach(async () => {
  clock.advance(2 * HOUR);
});

const requestReset = (app: TestApp, email: string) => app.inject({ method: 'POST', url: '/api/auth/password-reset', payload: { email } });
const confirm = (app: TestApp, token: string, password = NEW_PASSWORD) =>
  app.inject({ method: 'POST', url: '/api/auth/password-reset/confirm', payload: { token, password } });
const me = (cookie: string) => t.inject({ method: 'GET', url: '/api/me', headers: { cookie } });
const mailsTo = (email: string) => smtp.received.filter((m) => m.text?.includes('reset the password') && JSON.stringify(m.to).includes(email));
/** The token of the newest reset mail to `email`. */
async function mailedToken(email: string): Promise<string> {
  expect(await within(5000, async () => mailsTo(email).length > 0), `a reset mail to ${email}`).toBe(true);
  const text = mailsTo(email).at(-1)!.text!;
  return new URL(/https:\/\/lt\.test\/app\/reset-password\?token=[\w-]+/.exec(text)![0]).searchParams.get('token')!;
}
/** What the client sees of an answer: status, body and headers but the per-request ones. */
const visible = (res: LightMyRequestResponse) => {
  const { date: _date, 'x-request-id': _id, ...headers } = res.headers;
  return { status: res.statusCode, body: res.body, headers };
};

describe('asking for a reset link', () => {
  test('the same 202 with an empty body for an account and for an unknown address; only the account gets mail', async () => {
    const user = await createUser(t);
    const stranger = uniqueEmail('nobody');
    const known = await requestReset(t, user.email);
    const unknown = await requestReset(t, stranger);
    expect(known.statusCode).toBe(202);
    expect(known.body).toBe('');
    expect(visible(unknown)).toEqual(visible(known));
    await mailedToken(user.email);
    expect(await sent()).toBe(true);
    expect(smtp.received.some((m) => JSON.stringify(m.to).includes(stranger))).toBe(false);
  });

  test('the address is matched ignoring case; at most 3 mails per address an hour, then again after the hour', async () => {
    const user = await createUser(t);
    for (let i = 0; i < 5; i++) expect((await requestReset(t, i % 2 ? user.email.toUpperCase() : user.email)).statusCode).toBe(202);
    expect(await within(5000, async () => mailsTo(user.email).length >= 3)).toBe(true);
    expect(await sent()).toBe(true);
    expect(mailsTo(user.email)).toHaveLength(3);
    clock.advance(HOUR + 1000);
    expect((await requestReset(t, user.email)).statusCode).toBe(202);
    expect(await within(5000, async () => mailsTo(user.email).length === 4)).toBe(true);
  });

  test('not an email address: 400 naming the field, in both languages', async () => {
    const res = await requestReset(t, 'not-an-address');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ field: 'email', error: { en: expect.any(String), ar: expect.any(String) } });
  });
});

describe('setting a new password with the link', () => {
  let user: TestUser;
  let sessions: string[];

  beforeEach(async () => {
    user = await createUser(t);
    sessions = [];
    for (let i = 0; i < 2; i++) sessions.push(sessionCookieFrom(await loginRequest(t, user.email, user.password)));
  });

  test('sets the password, ends every session, signs nobody in; the link works once and takes the older links with it', async () => {
    await requestReset(t, user.email);
    const first = await mailedToken(user.email);
    await requestReset(t, user.email);
    expect(await within(5000, async () => mailsTo(user.email).length === 2)).toBe(true);
    const second = await mailedToken(user.email);
    expect(second).not.toBe(first);

    const res = await confirm(t, second);
    expect(res.statusCode, res.body).toBe(204);
    expect(res.headers['set-cookie']).toBeUndefined();
    for (const cookie of sessions) expect((await me(cookie)).statusCode).toBe(401);
    expect((await loginRequest(t, user.email, user.password)).statusCode).toBe(401);
    expect((await loginRequest(t, user.email, NEW_PASSWORD)).statusCode).toBe(200);

    for (const used of [second, first]) {
      const again = await confirm(t, used, 'another-fine-passphrase-77');
      expect(again.statusCode).toBe(400);
      expect(again.json()).toMatchObject({ field: 'token', reason: 'reset_token_invalid' });
    }
  });

  test('a link older than one hour is refused and changes nothing', async () => {
    await requestReset(t, user.email);
    const token = await mailedToken(user.email);
    clock.advance(HOUR + 1000);
    expect((await confirm(t, token)).json()).toMatchObject({ field: 'token', reason: 'reset_token_invalid' });
    expect((await me(sessions[0]!)).statusCode).toBe(200);
    expect((await loginRequest(t, user.email, user.password)).statusCode).toBe(200);
  });

  test('a refused password leaves the link usable', async () => {
    await requestReset(t, user.email);
    const token = await mailedToken(user.email);
    const weak = await confirm(t, token, 'password');
    expect(weak.statusCode).toBe(400);
    expect(weak.json()).toMatchObject({ field: 'password' });
    expect((await me(sessions[0]!)).statusCode).toBe(200);
    expect((await confirm(t, token)).statusCode).toBe(204);
  });

  test("the periodic maintenance deletes links made over a day ago by the database's clock, used or not, and keeps newer ones", async () => {
    const user = await createUser(t);
    const resetsOf = async () =>
      rows<{ createdAt: string | Date }>(
        t.database.db,
        sql`SELECT created_at AS "createdAt" FROM password_resets WHERE user_id = ${user.id}::uuid ORDER BY created_at`,
      );
    expect((await requestReset(t, user.email)).statusCode).toBe(202);
    await confirm(t, await mailedToken(user.email));
    expect((await requestReset(t, user.email)).statusCode).toBe(202);
    // The link is made after the answer went out: wait for it.
    expect(await within(5000, async () => (await resetsOf()).length === 2)).toBe(true);
    // Made a day and an hour ago by the database's clock, which the maintenance goes by (this app's runs years ahead).
    await t.database.db.execute(sql`UPDATE password_resets SET created_at = now() - interval '25 hours' WHERE user_id = ${user.id}::uuid`);
    expect((await requestReset(t, user.email)).statusCode).toBe(202);
    expect(await within(5000, async () => (await resetsOf()).length === 3)).toBe(true);
    await t.runtime.maintain();
    const kept = await resetsOf();
    expect(kept).toHaveLength(1);
    expect(new Date(kept[0]!.createdAt).getTime()).toBe(clock.now().getTime());
  });

  test('a malformed or unknown token: 400, never a 500', async () => {
    for (const token of ['x', 'A'.repeat(43), '../../etc', '٣٣٣']) {
      const res = await confirm(t, token);
      expect(res.statusCode, token).toBe(400);
      expect(res.json()).toMatchObject({ field: 'token', reason: 'reset_token_invalid' });
    }
  });
});

describe('a server without mail', () => {
  let plain: TestApp;
  beforeAll(async () => {
    plain = await startTestApp();
  });
  afterAll(() => plain?.close());

  test('refuses every address alike (400 password_reset_unavailable); the operator makes a link that works', async () => {
    const user = await createUser(plain);
    const known = await requestReset(plain, user.email);
    const unknown = await requestReset(plain, uniqueEmail('nobody'));
    expect(known.statusCode).toBe(400);
    expect(known.json()).toMatchObject({ error: { code: 'password_reset_unavailable' } });
    expect(visible(unknown)).toEqual(visible(known));

    expect((await plain.admin('POST', '/users/reset-link', { email: uniqueEmail('nobody') })).statusCode).toBe(404);
    const made = await plain.admin('POST', '/users/reset-link', { email: user.email.toUpperCase() });
    expect(made.statusCode, made.body).toBe(201);
    const link = made.json<{ url: string; userId: string }>();
    expect(link.userId).toBe(user.id);
    expect((await confirm(plain, new URL(link.url).searchParams.get('token')!)).statusCode).toBe(204);
    expect((await loginRequest(plain, user.email, NEW_PASSWORD)).statusCode).toBe(200);
  });
});
