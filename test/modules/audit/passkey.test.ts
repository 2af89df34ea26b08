import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { SoftAuthenticator, type CreationOptions, type RequestOptions } from '../../helpers/webauthn.js';
import { addMember, createUser, loginRequest, ownedWorkspace, sessionCookieFrom } from '../people/helpers.js';
import { auditLog } from './helpers.js';

/** operations.md §15: passkey sign-ins, as the second step and alone, failed ones included, in both logs. */
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t?.close();
});

describe('passkey sign-ins', () => {
  it('are recorded as the second step and alone, and a refused one as failed', async () => {
    const { workspace, owner } = await ownedWorkspace(t);
    const user = await createUser(t);
    await addMember(t, workspace.id, user.id, 'member');
    const first = sessionCookieFrom(await loginRequest(t, user.email, user.password));
    const auth = new SoftAuthenticator();
    const options = (
      await t.inject({ method: 'POST', url: '/api/me/passkeys/options', headers: { cookie: first }, payload: { password: user.password } })
    ).json<CreationOptions>();
    const registered = await t.inject({
      method: 'POST',
      url: '/api/me/passkeys',
      headers: { cookie: first },
      payload: { response: auth.register(options, { origin: 'https://lt.test' }) },
    });
    expect(registered.statusCode, registered.body).toBe(201);

    const login = await loginRequest(t, user.email, user.password);
    const mfa = [login.headers['set-cookie']]
      .flat()
      .map(String)
      .find((c) => /lt_mfa=/.test(c))!
      .split(';')[0]!;
    const second = (
      await t.inject({ method: 'POST', url: '/api/auth/passkey/options', headers: { cookie: mfa }, payload: { secondFactor: true } })
    ).json<RequestOptions>();
    const bySecond = await t.inject({
      method: 'POST',
      url: '/api/auth/passkey',
      headers: { cookie: mfa },
      payload: { response: auth.assert(second, { origin: 'https://lt.test' }) },
    });
    expect(bySecond.statusCode, bySecond.body).toBe(200);
    // A signature made for another site is refused: a failed sign-in of the passkey's person.
    const wrong = (await t.inject({ method: 'POST', url: '/api/auth/passkey/options', payload: {} })).json<RequestOptions>();
    expect(
      (await t.inject({ method: 'POST', url: '/api/auth/passkey', payload: { response: auth.assert(wrong, { origin: 'https://evil.example' }) } })).statusCode,
    ).toBe(401);
    const alone = (await t.inject({ method: 'POST', url: '/api/auth/passkey/options', payload: {} })).json<RequestOptions>();
    const byAlone = await t.inject({ method: 'POST', url: '/api/auth/passkey', payload: { response: auth.assert(alone, { origin: 'https://lt.test' }) } });
    expect(byAlone.statusCode, byAlone.body).toBe(200);

    const mine = (await t.inject({ method: 'GET', url: '/api/me/security-log', headers: { cookie: sessionCookieFrom(byAlone) } })).json<
      { method: string; outcome: string }[]
    >();
    expect(mine.map((s) => `${s.method} ${s.outcome}`)).toEqual([
      'passkey succeeded',
      'passkey failed',
      'passkey succeeded',
      'password second_factor_required',
      'password succeeded',
    ]);
    expect((await auditLog(t, owner, workspace.id, `actor=${user.id}`)).map((e) => e.action)).toEqual([
      'sign_in.passkey.succeeded',
      'sign_in.passkey.failed',
      'sign_in.passkey.succeeded',
      'sign_in.password.second_factor_required',
      'sign_in.password.succeeded',
    ]);
  });
});
