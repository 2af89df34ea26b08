/**
 * Two-factor sign-in with TOTP and recovery codes (operations.md §15, issue 27) through HTTP:
 * enrolment behind the password, the login's second step with the lt_mfa cookie, each code once
 * (the current and the previous 30-second step), recovery codes single use and hashed, 5 wrong
 * codes a pending login and 20 an account an hour. Codes are made by `otpauth` from the secret
 * the API hands out, as an authenticator app would.
 */
import type { LightMyRequestResponse } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createUser, loginRequest, mutableClock, ORIGIN, sessionCookieFrom, type TestUser } from '../people/helpers.js';

const clock = mutableClock(new Date('2031-06-01T10:00:00Z'));
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ clock: clock.now });
});
afterAll(() => t.close());

const STEP = 30_000;
const code = (secret: string, at = clock.now().getTime()) =>
  new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) }).generate({ timestamp: at });
const as = (cookie: string, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) => t.inject({ method, url, headers: { cookie }, payload });
const mfaCookieOf = (res: LightMyRequestResponse) => {
  const all = [res.headers['set-cookie'] ?? []].flat();
  const found = all.find((c) => /^(__Host-)?lt_mfa=/.test(c));
  return { raw: found, pair: found?.split(';')[0] };
};
const secondStep = (mfa: string | undefined, value: string, headers: Record<string, string> = {}) =>
  t.inject({ method: 'POST', url: '/api/auth/mfa', headers: { ...(mfa ? { cookie: mfa } : {}), ...headers }, payload: { code: value } });

/** A user with TOTP on: their secret and recovery codes, and a session. */
async function enrolled(): Promise<{ user: TestUser; secret: string; recovery: string[]; session: string }> {
  const user = await createUser(t);
  const session = sessionCookieFrom(await loginRequest(t, user.email, user.password));
  const started = await as(session, 'POST', '/api/me/mfa/totp', { password: user.password });
  expect(started.statusCode, started.body).toBe(200);
  const { secret, otpauthUrl } = started.json<{ secret: string; otpauthUrl: string }>();
  expect(otpauthUrl).toMatch(/^otpauth:\/\/totp\/Linktrail:/);
  expect(new URL(otpauthUrl).searchParams.get('secret')).toBe(secret);
  expect(Secret.fromBase32(secret).bytes.length).toBe(20);
  const confirmed = await as(session, 'POST', '/api/me/mfa/totp/confirm', { code: code(secret) });
  expect(confirmed.statusCode, confirmed.body).toBe(200);
  const recovery = confirmed.json<{ recoveryCodes: string[] }>().recoveryCodes;
  clock.advance(STEP);
  return { user, secret, recovery, session };
}

/** The password step of a user with TOTP on: the lt_mfa cookie. */
async function passwordStep(user: TestUser): Promise<string> {
  const res = await loginRequest(t, user.email, user.password);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json()).toEqual({ mfaRequired: true, methods: ['totp', 'recovery_code'] });
  return mfaCookieOf(res).pair!;
}

beforeEach(() => clock.advance(2 * 3600_000));

describe('enrolment', () => {
  test('needs the password; a wrong first code changes nothing; a right one answers ten recovery codes', async () => {
    const user = await createUser(t);
    const session = sessionCookieFrom(await loginRequest(t, user.email, user.password));
    const wrong = await as(session, 'POST', '/api/me/mfa/totp', { password: 'not the password' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ field: 'password', reason: 'wrong_password' });
    const { secret } = (await as(session, 'POST', '/api/me/mfa/totp', { password: user.password })).json<{ secret: string }>();
    const bad = await as(session, 'POST', '/api/me/mfa/totp/confirm', { code: code(secret, clock.now().getTime() - 5 * STEP) });
    expect(bad.json()).toMatchObject({ field: 'code', reason: 'mfa_code_wrong' });
    expect((await loginRequest(t, user.email, user.password)).json()).toHaveProperty('user');
    const ok = await as(session, 'POST', '/api/me/mfa/totp/confirm', { code: code(secret) });
    const codes = ok.json<{ recoveryCodes: string[] }>().recoveryCodes;
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    expect((await as(session, 'GET', '/api/me/mfa')).json()).toEqual({ totp: true, recoveryCodesLeft: 10 });
    // On: asking again is refused rather than replacing the seed.
    expect((await as(session, 'POST', '/api/me/mfa/totp', { password: user.password })).json()).toMatchObject({ reason: 'totp_already_enabled' });
  });

  test('the seed is sealed and the recovery codes hashed in the database', async () => {
    const { user, secret, recovery } = await enrolled();
    const [seed] = await rows<{ s: string }>(t.database.db, sql`SELECT seed_sealed AS s FROM user_totp WHERE user_id = ${user.id}::uuid`);
    expect(seed!.s).not.toContain(secret);
    expect(seed!.s.startsWith('s2.')).toBe(true);
    const stored = await rows<{ h: string }>(t.database.db, sql`SELECT encode(code_hash, 'hex') AS h FROM recovery_codes WHERE user_id = ${user.id}::uuid`);
    expect(stored).toHaveLength(10);
    for (const c of recovery) expect(stored.map((r) => r.h).join()).not.toContain(Buffer.from(c).toString('hex'));
  });
});

describe('signing in with a second factor', () => {
  test('the password answers mfaRequired with an HttpOnly 5-minute lt_mfa cookie and no session; a code signs in', async () => {
    const { user, secret } = await enrolled();
    const res = await loginRequest(t, user.email, user.password);
    expect(res.json()).toEqual({ mfaRequired: true, methods: ['totp', 'recovery_code'] });
    const { raw, pair } = mfaCookieOf(res);
    expect(raw).toMatch(/HttpOnly/);
    expect(raw).toMatch(/Max-Age=300/);
    expect([res.headers['set-cookie']].flat().some((c) => /lt_session=/.test(String(c)))).toBe(false);
    const done = await secondStep(pair, code(secret));
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toMatchObject({ user: { id: user.id } });
    const session = sessionCookieFrom(done);
    expect((await t.inject({ method: 'GET', url: '/api/me', headers: { cookie: session } })).statusCode).toBe(200);
    // The pending sign-in is used up.
    expect((await secondStep(pair, code(secret, clock.now().getTime() + STEP))).json()).toMatchObject({ error: { code: 'mfa_restart' } });
  });

  test('each code once: a replay in the same step is refused; the previous step is accepted, older and later ones not', async () => {
    const { user, secret } = await enrolled();
    const now = clock.now().getTime();
    const first = await passwordStep(user);
    expect((await secondStep(first, code(secret))).statusCode).toBe(200);
    const second = await passwordStep(user);
    const replay = await secondStep(second, code(secret));
    expect(replay.statusCode).toBe(401);
    expect(replay.json()).toMatchObject({ error: { code: 'mfa_failed' } });
    expect((await secondStep(second, code(secret, now - 2 * STEP))).statusCode).toBe(401);
    expect((await secondStep(second, code(secret, now + STEP))).statusCode).toBe(401);
    clock.advance(2 * STEP);
    // Two steps on, the code of the step before (never used) is still good: typed as its step ended.
    expect((await secondStep(second, code(secret, now + STEP))).statusCode).toBe(200);
  });

  test('a recovery code works once, in any case and with or without its dash', async () => {
    const { user, recovery } = await enrolled();
    const [one] = recovery;
    expect((await secondStep(await passwordStep(user), one!.toUpperCase().replace('-', ''))).statusCode).toBe(200);
    expect((await secondStep(await passwordStep(user), one!)).json()).toMatchObject({ error: { code: 'mfa_failed' } });
    const session = sessionCookieFrom(await secondStep(await passwordStep(user), recovery[1]!));
    expect((await as(session, 'GET', '/api/me/mfa')).json()).toEqual({ totp: true, recoveryCodesLeft: 8 });
  });

  test('the fifth wrong code ends the pending sign-in: the password step starts again', async () => {
    const { user, secret } = await enrolled();
    const pending = await passwordStep(user);
    for (let left = 4; left >= 1; left--) {
      const res = await secondStep(pending, '000000');
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ error: { code: 'mfa_failed' } });
      expect(res.json<{ error: { en: string; ar: string } }>().error.en).toContain(`${left} attempts left`);
    }
    expect((await secondStep(pending, '000000')).json()).toMatchObject({ error: { code: 'mfa_restart' } });
    expect((await secondStep(pending, code(secret))).json()).toMatchObject({ error: { code: 'mfa_restart' } });
    expect((await secondStep(await passwordStep(user), code(secret))).statusCode).toBe(200);
  });

  test('20 wrong codes an hour for one account: 429 for the rest of the hour, whatever the code', async () => {
    const { user, secret } = await enrolled();
    for (let i = 0; i < 4; i++) {
      const pending = await passwordStep(user);
      for (let j = 0; j < 5; j++) await secondStep(pending, '999999');
    }
    const refused = await secondStep(await passwordStep(user), code(secret));
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ error: { code: 'mfa_throttled' } });
    clock.advance(3600_000 + 1000);
    expect((await secondStep(await passwordStep(user), code(secret))).statusCode).toBe(200);
  });

  test('without the cookie, or from another site: no sign-in', async () => {
    const { user, secret } = await enrolled();
    expect((await secondStep(undefined, code(secret))).json()).toMatchObject({ error: { code: 'mfa_restart' } });
    const pending = await passwordStep(user);
    expect((await secondStep(pending, code(secret), { origin: 'https://evil.example' })).statusCode).toBe(403);
    expect((await secondStep(pending, code(secret), { origin: ORIGIN })).statusCode).toBe(200);
  });
});

describe('recovery codes and turning it off', () => {
  test('new recovery codes replace the old; turning off needs the password and a code, then sign-in asks for none', async () => {
    const { user, secret, recovery, session } = await enrolled();
    const renewed = await as(session, 'POST', '/api/me/mfa/recovery-codes', { password: user.password });
    const fresh = renewed.json<{ recoveryCodes: string[] }>().recoveryCodes;
    expect(fresh).toHaveLength(10);
    expect((await secondStep(await passwordStep(user), recovery[0]!)).statusCode).toBe(401);
    expect((await as(session, 'DELETE', '/api/me/mfa/totp', { password: user.password, code: '123456' })).json()).toMatchObject({
      field: 'code',
      reason: 'mfa_code_wrong',
    });
    expect((await as(session, 'DELETE', '/api/me/mfa/totp', { password: 'wrong', code: code(secret) })).json()).toMatchObject({ field: 'password' });
    expect((await as(session, 'DELETE', '/api/me/mfa/totp', { password: user.password, code: fresh[0]! })).statusCode).toBe(204);
    expect((await loginRequest(t, user.email, user.password)).json()).toHaveProperty('user');
    expect((await as(session, 'GET', '/api/me/mfa')).json()).toEqual({ totp: false, recoveryCodesLeft: 0 });
  });
});
