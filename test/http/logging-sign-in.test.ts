/**
 * No secret of the sign-in flows of operations.md §15 reaches the logs, at the most verbose
 * level: the TOTP seed and its codes, recovery codes, the lt_mfa cookie, a password-reset token
 * (from the mail a real SMTP server received), the new password, an invitation's token, and
 * the mails' bodies (the mail worker logs what a mail is for when it fails, never what it says).
 */
import { Writable } from 'node:stream';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createRuntime, LOG_REDACT, type Runtime } from '../../src/runtime.js';
import { ADMIN_TOKEN, testRuntimeOptions, testConfig } from '../helpers/app.js';
import { dropFreshDatabases, freshDatabase } from '../helpers/fresh-database.js';
import { startSmtp, type TestSmtp } from '../helpers/smtp.js';
import { within } from '../helpers/wait.js';

let lines = '';
let rt: Runtime;
let smtp: TestSmtp;

beforeAll(async () => {
  smtp = await startSmtp();
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines += chunk.toString();
      done();
    },
  });
  const logger = pino({ level: 'trace', redact: LOG_REDACT }, sink);
  rt = await createRuntime(
    testConfig({ LOG_LEVEL: 'trace', SMTP_URL: smtp.url, MAIL_FROM: 'Linktrail <noreply@lt.test>', MAIL_RETRY_DELAYS: '50ms,50ms,50ms' }),
    { logger, database: await freshDatabase(), ...testRuntimeOptions() },
  );
  await rt.app.ready();
}, 60_000);

afterAll(async () => {
  await rt?.close();
  await smtp?.close();
  await dropFreshDatabases();
});

const inject = (o: InjectOptions) => rt.app.inject(o);
const ORIGIN = { origin: 'https://lt.test' };
const cookieOf = (res: LightMyRequestResponse, name: string) =>
  [res.headers['set-cookie'] ?? []]
    .flat()
    .find((c) => new RegExp(`^(__Host-)?${name}=`).test(c))!
    .split(';')[0]!;
const totp = (secret: string, at = Date.now()) =>
  new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) }).generate({ timestamp: at });

describe('logs of the sign-in flows', () => {
  test('never a TOTP seed or code, a recovery code, the lt_mfa cookie, a reset token, a new password nor an invitation token', async () => {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const ws = (await inject({ method: 'POST', url: '/admin/workspaces', headers: admin, payload: { name: 'log sign-in', plan: 'pro' } })).json();
    const password = 'a-person-password-for-sign-in-logs';
    const email = `log-sign-in-${Date.now()}@example.com`;
    const user = (await inject({ method: 'POST', url: '/admin/users', headers: admin, payload: { email, name: 'Log', password } })).json();
    await inject({ method: 'POST', url: `/admin/workspaces/${ws.id}/members`, headers: admin, payload: { userId: user.id, role: 'owner' } });
    const session = cookieOf(await inject({ method: 'POST', url: '/api/auth/login', headers: ORIGIN, payload: { email, password } }), 'lt_session');
    const me = (method: 'POST' | 'DELETE', url: string, payload: object) => inject({ method, url, headers: { cookie: session, ...ORIGIN }, payload });

    // Two-factor: enrol, sign in with a code, then with a recovery code, make new codes.
    const { secret } = (await me('POST', '/api/me/mfa/totp', { password })).json<{ secret: string }>();
    const enrolCode = totp(secret);
    const { recoveryCodes } = (await me('POST', '/api/me/mfa/totp/confirm', { code: enrolCode })).json<{ recoveryCodes: string[] }>();
    expect(recoveryCodes).toHaveLength(10);
    const pending = cookieOf(await inject({ method: 'POST', url: '/api/auth/login', headers: ORIGIN, payload: { email, password } }), 'lt_mfa');
    await inject({ method: 'POST', url: '/api/auth/mfa', headers: { cookie: pending, ...ORIGIN }, payload: { code: '000000' } });
    const byRecovery = await inject({ method: 'POST', url: '/api/auth/mfa', headers: { cookie: pending, ...ORIGIN }, payload: { code: recoveryCodes[0] } });
    expect(byRecovery.statusCode, byRecovery.body).toBe(200);
    const fresh = (await me('POST', '/api/me/mfa/recovery-codes', { password })).json<{ recoveryCodes: string[] }>().recoveryCodes;

    // An invitation, mailed after the server refused it once (the worker logs the failure).
    smtp.refuse = true;
    const invitee = `invitee-${Date.now()}@example.com`;
    const invite = (await me('POST', `/api/workspaces/${ws.id}/invites`, { email: invitee, role: 'member' })).json<{ url: string }>();
    const inviteToken = new URL(invite.url).searchParams.get('token')!;
    await within(10_000, async () => smtp.refused > 0);
    smtp.refuse = false;

    // A password reset: the token from the mail, a new password.
    expect((await inject({ method: 'POST', url: '/api/auth/password-reset', headers: ORIGIN, payload: { email } })).statusCode).toBe(202);
    const mail = await smtp.messageTo(email);
    const resetToken = new URL(/https:\/\/lt\.test\/app\/reset-password\?token=[\w-]+/.exec(mail!.text!)![0]).searchParams.get('token')!;
    const newPassword = 'an-entirely-new-password-for-logs';
    expect(
      (await inject({ method: 'POST', url: '/api/auth/password-reset/confirm', headers: ORIGIN, payload: { token: resetToken, password: newPassword } }))
        .statusCode,
    ).toBe(204);
    expect(await smtp.messageTo(invitee), 'the invitation was mailed').toBeDefined();

    const secrets = {
      password,
      secret,
      recovery: recoveryCodes[0]!,
      unusedRecovery: recoveryCodes[5]!,
      freshRecovery: fresh[0]!,
      pending: pending.split('=')[1]!,
      session: session.split('=')[1]!,
      inviteToken,
      resetToken,
      newPassword,
    };
    for (const [name, value] of Object.entries(secrets)) {
      expect(value.length, name).toBeGreaterThanOrEqual(8);
      expect(lines.includes(value), `${name} in the logs`).toBe(false);
    }
    // A six-digit code is too short to search for alone: it is never a logged field's value.
    const logged = lines
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(logged.some((l) => Object.values(l).includes(enrolCode))).toBe(false);
    // The flows were logged at all, and the mail worker named what it sent.
    expect(lines).toContain('/api/auth/mfa');
    expect(lines).toContain('/api/auth/password-reset/confirm');
    expect(lines).toMatch(/"kind":"invitation".*mail not sent; will try again/);
  });
});
