/**
 * Passkeys (operations.md §15, issue 27) through HTTP: registration behind the password, the
 * list, sign-in as the second factor of a password sign-in (lt_mfa) and alone (user
 * verification), and what is refused: a forged signature, a replayed challenge, another
 * account's passkey, a counter that does not move forward, a cross-site page. The
 * authenticator is test/helpers/webauthn.ts: real ES256 signatures the real library verifies.
 */
import type { LightMyRequestResponse } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { SoftAuthenticator, type CreationOptions, type RequestOptions } from '../../helpers/webauthn.js';
import { createUser, loginRequest, mutableClock, ORIGIN, sessionCookieFrom, type TestUser } from '../people/helpers.js';

const clock = mutableClock(new Date('2031-07-01T10:00:00Z'));
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ clock: clock.now });
});
afterAll(() => t.close());
beforeEach(() => clock.advance(2 * 3600_000));

const as = (cookie: string, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) => t.inject({ method, url, headers: { cookie }, payload });
const mfaCookieOf = (res: LightMyRequestResponse) =>
  [res.headers['set-cookie'] ?? []]
    .flat()
    .find((c) => /^(__Host-)?lt_mfa=/.test(c))
    ?.split(';')[0];
const post = (url: string, payload: object, cookie?: string, headers: Record<string, string> = {}) =>
  t.inject({ method: 'POST', url, headers: { ...(cookie ? { cookie } : {}), ...headers }, payload });

/** A user signed in with the password (no second factor yet). */
async function signedIn(): Promise<{ user: TestUser; session: string }> {
  const user = await createUser(t);
  return { user, session: sessionCookieFrom(await loginRequest(t, user.email, user.password)) };
}

/** Registers `auth` for the signed-in user; the stored passkey's view. */
async function register(session: string, password: string, auth: SoftAuthenticator, name?: string) {
  const options = await as(session, 'POST', '/api/me/passkeys/options', { password });
  expect(options.statusCode, options.body).toBe(200);
  const res = await as(session, 'POST', '/api/me/passkeys', {
    response: auth.register(options.json<CreationOptions>(), { origin: ORIGIN }),
    ...(name ? { name } : {}),
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string; name: string }>();
}

async function withPasskey(counter = 1) {
  const { user, session } = await signedIn();
  const auth = new SoftAuthenticator(counter);
  const passkey = await register(session, user.password, auth, 'Laptop');
  return { user, session, auth, passkey };
}

/** The password step: the lt_mfa cookie (the methods checked). */
async function passwordStep(user: TestUser, methods: string[] = ['passkey']): Promise<string> {
  const res = await loginRequest(t, user.email, user.password);
  expect(res.json()).toEqual({ mfaRequired: true, methods });
  return mfaCookieOf(res)!;
}

const secondFactorOptions = async (mfa: string) => {
  const res = await post('/api/auth/passkey/options', { secondFactor: true }, mfa);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<RequestOptions>();
};
const passwordlessOptions = async () => {
  const res = await post('/api/auth/passkey/options', {});
  expect(res.statusCode, res.body).toBe(200);
  return res.json<RequestOptions>();
};

describe('registration', () => {
  test('needs the password; the passkey is listed with its name, dates and transports', async () => {
    const { user, session } = await signedIn();
    const wrong = await as(session, 'POST', '/api/me/passkeys/options', { password: 'not the password' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ field: 'password', reason: 'wrong_password', error: { code: 'invalid_field' } });
    const options = (await as(session, 'POST', '/api/me/passkeys/options', { password: user.password })).json<CreationOptions & Record<string, unknown>>();
    expect(options).toMatchObject({
      rp: { id: 'lt.test' },
      user: { name: user.email },
      attestation: 'none',
      authenticatorSelection: { residentKey: 'required' },
    });
    const auth = new SoftAuthenticator();
    const res = await as(session, 'POST', '/api/me/passkeys', { response: auth.register(options, { origin: ORIGIN }), name: 'My phone' });
    expect(res.statusCode, res.body).toBe(201);
    const list = (await as(session, 'GET', '/api/me/passkeys')).json<Record<string, unknown>[]>();
    expect(list).toEqual([{ id: res.json().id, name: 'My phone', transports: ['internal'], createdAt: clock.now().toISOString(), lastUsedAt: null }]);
    // The next options exclude it, so the browser does not register it twice.
    const again = (await as(session, 'POST', '/api/me/passkeys/options', { password: user.password })).json<{ excludeCredentials: { id: string }[] }>();
    expect(again.excludeCredentials.map((c) => c.id)).toEqual([auth.id]);
  });

  test('each challenge once, for this site, for this account; a passkey is registered once', async () => {
    const { user, session } = await signedIn();
    const other = await signedIn();
    const options = (await as(session, 'POST', '/api/me/passkeys/options', { password: user.password })).json<CreationOptions>();
    const auth = new SoftAuthenticator();
    const elsewhere = await as(session, 'POST', '/api/me/passkeys', { response: auth.register(options, { origin: 'https://evil.test', rpId: 'evil.test' }) });
    expect(elsewhere.json()).toMatchObject({ field: 'response', reason: 'passkey_not_verified' });
    // That answer used the challenge up.
    const late = await as(session, 'POST', '/api/me/passkeys', { response: auth.register(options, { origin: ORIGIN }) });
    expect(late.json()).toMatchObject({ reason: 'passkey_challenge' });
    const fresh = (await as(session, 'POST', '/api/me/passkeys/options', { password: user.password })).json<CreationOptions>();
    const response = auth.register(fresh, { origin: ORIGIN });
    // Another account cannot answer this account's challenge.
    expect((await as(other.session, 'POST', '/api/me/passkeys', { response })).json()).toMatchObject({ reason: 'passkey_challenge' });
    const options2 = (await as(session, 'POST', '/api/me/passkeys/options', { password: user.password })).json<CreationOptions>();
    expect((await as(session, 'POST', '/api/me/passkeys', { response: auth.register(options2, { origin: ORIGIN }) })).statusCode).toBe(201);
    const options3 = (await as(other.session, 'POST', '/api/me/passkeys/options', { password: other.user.password })).json<CreationOptions>();
    expect((await as(other.session, 'POST', '/api/me/passkeys', { response: auth.register(options3, { origin: ORIGIN }) })).json()).toMatchObject({
      reason: 'passkey_exists',
    });
    expect(await (await as(session, 'GET', '/api/me/passkeys')).json()).toHaveLength(1);
  });

  test('an expired challenge is refused; garbage is a 400, never a 500', async () => {
    const { user, session } = await signedIn();
    const options = (await as(session, 'POST', '/api/me/passkeys/options', { password: user.password })).json<CreationOptions>();
    clock.advance(5 * 60_000 + 1);
    const res = await as(session, 'POST', '/api/me/passkeys', { response: new SoftAuthenticator().register(options, { origin: ORIGIN }) });
    expect(res.json()).toMatchObject({ reason: 'passkey_challenge' });
    const good = new SoftAuthenticator().register(
      (await as(session, 'POST', '/api/me/passkeys/options', { password: user.password })).json<CreationOptions>(),
      { origin: ORIGIN },
    );
    for (const response of [
      { ...good, response: { ...good.response, clientDataJSON: 'bm90IGpzb24' } },
      { ...good, response: { ...good.response, attestationObject: 'AAAA' } },
      { ...good, type: 'other' },
      {},
    ]) {
      const bad = await as(session, 'POST', '/api/me/passkeys', { response });
      expect(bad.statusCode, bad.body).toBe(400);
      expect(bad.json().error).toMatchObject({ en: expect.any(String), ar: expect.any(String), code: expect.any(String) });
    }
  });
});

describe('sign-in as the second factor', () => {
  test('a passkey alone makes the password sign-in ask for it, and completes it as POST /api/auth/mfa does', async () => {
    const { user, auth, session } = await withPasskey();
    const mfa = await passwordStep(user);
    expect(mfa).toMatch(/^__Host-lt_mfa=/);
    const options = await secondFactorOptions(mfa);
    expect(options.allowCredentials!.map((c) => c.id)).toEqual([auth.id]);
    expect(options.rpId).toBe('lt.test');
    const res = await post('/api/auth/passkey', { response: auth.assert(options, { origin: ORIGIN, uv: false }) }, mfa);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ user: expect.objectContaining({ id: user.id, email: user.email }) });
    const cookie = sessionCookieFrom(res);
    expect((await as(cookie, 'GET', '/api/me')).statusCode).toBe(200);
    expect([res.headers['set-cookie']].flat().some((c) => /^__Host-lt_mfa=;.*Max-Age=0/.test(c!))).toBe(true);
    // The pending login is used up.
    expect((await post('/api/auth/passkey/options', { secondFactor: true }, mfa)).json().error.code).toBe('mfa_restart');
    const [listed] = (await as(session, 'GET', '/api/me/passkeys')).json<{ lastUsedAt: string }[]>();
    expect(listed!.lastUsedAt).toBe(clock.now().toISOString());
  });

  test('with an authenticator app too, every method is offered', async () => {
    const { user, session, auth } = await withPasskey();
    const { secret } = (await as(session, 'POST', '/api/me/mfa/totp', { password: user.password })).json<{ secret: string }>();
    const code = new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) }).generate({ timestamp: clock.now().getTime() });
    expect((await as(session, 'POST', '/api/me/mfa/totp/confirm', { code })).statusCode).toBe(200);
    const mfa = await passwordStep(user, ['totp', 'recovery_code', 'passkey']);
    expect((await post('/api/auth/passkey', { response: auth.assert(await secondFactorOptions(mfa), { origin: ORIGIN }) }, mfa)).statusCode).toBe(200);
  });

  test('a forged signature, another account’s passkey and a replayed answer count as wrong codes', async () => {
    const a = await withPasskey();
    const b = await withPasskey();
    const mfa = await passwordStep(a.user);
    const forged = await post(
      '/api/auth/passkey',
      { response: a.auth.assert(await secondFactorOptions(mfa), { origin: ORIGIN, signWith: new SoftAuthenticator() }) },
      mfa,
    );
    expect(forged.statusCode).toBe(401);
    expect(forged.json()).toMatchObject({ error: { code: 'mfa_failed' } });
    const foreign = await post('/api/auth/passkey', { response: b.auth.assert(await secondFactorOptions(mfa), { origin: ORIGIN }) }, mfa);
    expect(foreign.json().error.code).toBe('mfa_failed');
    const answer = a.auth.assert(await secondFactorOptions(mfa), { origin: ORIGIN });
    expect((await post('/api/auth/passkey', { response: answer }, mfa)).statusCode).toBe(200);
    // The same answer again: its challenge is gone, on every instance (it lived in the database).
    const mfa2 = await passwordStep(a.user);
    const replay = await post('/api/auth/passkey', { response: answer }, mfa2);
    expect(replay.statusCode).toBe(400);
    expect(replay.json()).toMatchObject({ field: 'response', reason: 'passkey_challenge' });
    // A's pending login cannot be finished with B's own second-factor challenge either.
    const mfaB = await passwordStep(b.user);
    const crossed = await post('/api/auth/passkey', { response: a.auth.assert(await secondFactorOptions(mfaB), { origin: ORIGIN }) }, mfa2);
    expect(crossed.json().error.code).toBe('mfa_failed');
  });

  test('five refused passkeys end the pending sign-in, as five wrong codes do', async () => {
    const { user, auth } = await withPasskey();
    const mfa = await passwordStep(user);
    const forge = async () =>
      post('/api/auth/passkey', { response: auth.assert(await secondFactorOptions(mfa), { origin: ORIGIN, signWith: new SoftAuthenticator() }) }, mfa);
    for (const left of [4, 3, 2, 1])
      expect((await forge()).json()).toMatchObject({ error: { code: 'mfa_failed', en: expect.stringContaining(`${left} attempts left`) } });
    expect((await forge()).json().error.code).toBe('mfa_restart');
    expect((await post('/api/auth/passkey/options', { secondFactor: true }, mfa)).json().error.code).toBe('mfa_restart');
  });

  test('without the lt_mfa cookie there is no second step; a user without passkeys is told so', async () => {
    const { user } = await withPasskey();
    expect((await post('/api/auth/passkey/options', { secondFactor: true })).json().error.code).toBe('mfa_restart');
    const options = await secondFactorOptions(await passwordStep(user));
    const { auth } = await withPasskey();
    expect((await post('/api/auth/passkey', { response: auth.assert(options, { origin: ORIGIN }) })).json().error.code).toBe('mfa_restart');
  });

  test('a page of another site cannot use these routes', async () => {
    const evil = { origin: 'https://evil.test' };
    expect((await post('/api/auth/passkey/options', {}, undefined, evil)).statusCode).toBe(403);
    const res = await post('/api/auth/passkey', { response: new SoftAuthenticator().assert(await passwordlessOptions(), { origin: ORIGIN }) }, undefined, {
      'sec-fetch-site': 'cross-site',
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('cross_site_sign_in');
  });
});

describe('sign-in with a passkey alone', () => {
  test('a discoverable credential with user verification signs in as a login does', async () => {
    const { user, auth, session } = await withPasskey();
    const options = await passwordlessOptions();
    expect(options.allowCredentials ?? []).toEqual([]);
    expect(options.userVerification).toBe('required');
    const res = await post('/api/auth/passkey', { response: auth.assert(options, { origin: ORIGIN }) });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().user.id).toBe(user.id);
    expect((await as(sessionCookieFrom(res), 'GET', '/api/me')).json().user.id).toBe(user.id);
    expect((await as(session, 'GET', '/api/me/passkeys')).json()[0].lastUsedAt).toBe(clock.now().toISOString());
  });

  test('refused: without user verification, a forged signature, an unknown passkey, a counter that goes back, a registration challenge', async () => {
    const { user, session, auth } = await withPasskey(5);
    const refused = async (response: object) => {
      const res = await post('/api/auth/passkey', { response });
      expect(res.statusCode, res.body).toBe(401);
      expect(res.json().error).toMatchObject({ code: 'passkey_failed', en: expect.any(String), ar: expect.any(String) });
    };
    await refused(auth.assert(await passwordlessOptions(), { origin: ORIGIN, uv: false }));
    await refused(auth.assert(await passwordlessOptions(), { origin: ORIGIN, signWith: new SoftAuthenticator() }));
    await refused(new SoftAuthenticator().assert(await passwordlessOptions(), { origin: ORIGIN }));
    await refused(auth.assert(await passwordlessOptions(), { origin: 'https://evil.test' }));
    expect((await post('/api/auth/passkey', { response: auth.assert(await passwordlessOptions(), { origin: ORIGIN, counter: 50 }) })).statusCode).toBe(200);
    // A clone of the authenticator still at an older count.
    await refused(auth.assert(await passwordlessOptions(), { origin: ORIGIN, counter: 20 }));
    await refused(auth.assert(await passwordlessOptions(), { origin: ORIGIN, counter: 50 }));
    expect((await post('/api/auth/passkey', { response: auth.assert(await passwordlessOptions(), { origin: ORIGIN, counter: 51 }) })).statusCode).toBe(200);
    const registration = (await as(session, 'POST', '/api/me/passkeys/options', { password: user.password })).json<CreationOptions>();
    const wrongKind = await post('/api/auth/passkey', { response: auth.assert({ challenge: registration.challenge, rpId: 'lt.test' }, { origin: ORIGIN }) });
    expect(wrongKind.json()).toMatchObject({ reason: 'passkey_challenge' });
  });

  test('20 refused passkeys an hour for one account, then 429 for the hour, even for the right one', async () => {
    const { auth } = await withPasskey();
    for (let i = 0; i < 20; i++) {
      expect((await post('/api/auth/passkey', { response: auth.assert(await passwordlessOptions(), { origin: ORIGIN, uv: false }) })).statusCode).toBe(401);
    }
    const blocked = await post('/api/auth/passkey', { response: auth.assert(await passwordlessOptions(), { origin: ORIGIN }) });
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().error.code).toBe('mfa_throttled');
    clock.advance(3600_000 + 1);
    expect((await post('/api/auth/passkey', { response: auth.assert(await passwordlessOptions(), { origin: ORIGIN }) })).statusCode).toBe(200);
  });
});

describe('removal', () => {
  test('the password first; only one’s own (another’s is a 404); then the password alone signs in again', async () => {
    const a = await withPasskey();
    const b = await withPasskey();
    const del = (s: string, id: string, password: string) =>
      t.inject({ method: 'DELETE', url: `/api/me/passkeys/${id}`, headers: { cookie: s }, payload: { password } });
    expect((await del(a.session, a.passkey.id, 'wrong')).json()).toMatchObject({ reason: 'wrong_password' });
    expect((await del(b.session, a.passkey.id, b.user.password)).statusCode).toBe(404);
    expect((await del(a.session, a.passkey.id, a.user.password)).statusCode).toBe(204);
    expect((await del(a.session, a.passkey.id, a.user.password)).statusCode).toBe(404);
    expect((await as(a.session, 'GET', '/api/me/passkeys')).json()).toEqual([]);
    expect((await loginRequest(t, a.user.email, a.user.password)).json()).toHaveProperty('user');
    expect((await post('/api/auth/passkey', { response: a.auth.assert(await passwordlessOptions(), { origin: ORIGIN }) })).json().error.code).toBe(
      'passkey_failed',
    );
    expect((await as(b.session, 'GET', '/api/me/passkeys')).json()).toHaveLength(1);
  });
});
