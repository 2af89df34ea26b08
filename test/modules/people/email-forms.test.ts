/**
 * One mailbox, one account, whatever the spelling (issue 41 L5; core/email.ts): every entry
 * point that takes an e-mail — the operator's people, sign-up, sign-in, invitations, the reset
 * link — reads `Sam@Bücher.Example.` as `sam@xn--bcher-kva.example`.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { asSession, expectError, loginRequest, ORIGIN, ownedWorkspace, PASSWORD } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ env: { ALLOW_SIGNUP: 'true' } });
});
afterAll(() => t.close());

const label = () => `sam${Math.random().toString(36).slice(2, 10)}`;

describe('every entry point normalizes an e-mail the same way', () => {
  test('made by the operator with an IDN and a trailing dot: stored as punycode; sign-in, sign-up, invitation and reset link all find that one account', async () => {
    const who = label();
    const made = await t.admin('POST', '/users', { email: `  ${who.toUpperCase()}@Bücher.Example.`, name: 'Sam', password: PASSWORD });
    expect(made.statusCode, made.body).toBe(201);
    const canonical = `${who}@xn--bcher-kva.example`;
    expect(made.json<{ email: string }>().email).toBe(canonical);

    // Sign-in under every spelling is that account; the same throttle counts them all.
    for (const spelling of [canonical, `${who}@BÜCHER.example`, `${who.toUpperCase()}@xn--BCHER-kva.example.`]) {
      const res = await loginRequest(t, spelling, PASSWORD, { origin: ORIGIN });
      expect(res.statusCode, `${spelling}: ${res.body}`).toBe(200);
      expect(res.json<{ user: { id: string } }>().user.id).toBe(made.json<{ id: string }>().id);
    }
    // Sign-up and the operator cannot make a second account of it.
    const signUp = await t.inject({
      method: 'POST',
      url: '/api/auth/signup',
      headers: { origin: ORIGIN },
      payload: { email: `${who}@bücher.example.`, name: 'Twin', password: PASSWORD, workspaceName: 'Twin' },
    });
    expectError(signUp, 400, 'invalid_field', 'email');
    expect(signUp.body).toContain('already belongs to an account');
    expectError(await t.admin('POST', '/users', { email: `${who}@XN--BCHER-KVA.EXAMPLE`, name: 'Twin', password: PASSWORD }), 400, 'invalid_field', 'email');
    // The operator's reset link finds it by any spelling.
    expect((await t.admin('POST', '/users/reset-link', { email: `${who.toUpperCase()}@bücher.example.` })).statusCode).toBe(201);

    // An invitation to another spelling is to that account: "already a member" once it is one.
    const { workspace, owner } = await ownedWorkspace(t);
    const invite = await asSession(t, owner.cookie, 'POST', `/api/workspaces/${workspace.id}/invites`, { email: `${who}@Bücher.example.`, role: 'member' });
    expect(invite.statusCode, invite.body).toBe(201);
    expect(invite.json<{ email: string }>().email).toBe(canonical);
    const token = new URL(invite.json<{ url: string }>().url).searchParams.get('token')!;
    // Not signed in, it cannot make a second account with that address.
    const asNew = await t.inject({
      method: 'POST',
      url: '/api/invites/accept',
      headers: { origin: ORIGIN },
      payload: { token, name: 'Twin', password: PASSWORD },
    });
    expect(asNew.statusCode, asNew.body).toBe(400);
    expect(asNew.json<{ error: { en: string } }>().error.en).toMatch(/sign in/i);
    // Signed in as the account, it is accepted.
    const session = String((await loginRequest(t, `${who}@bücher.example`, PASSWORD, { origin: ORIGIN })).headers['set-cookie']).split(';')[0]!;
    const accepted = await asSession(t, session, 'POST', '/api/invites/accept', { token });
    expect(accepted.statusCode, accepted.body).toBe(201);
    expectError(
      await asSession(t, owner.cookie, 'POST', `/api/workspaces/${workspace.id}/invites`, {
        email: `${who.toUpperCase()}@xn--bcher-kva.example.`,
        role: 'viewer',
      }),
      400,
      'invalid_field',
      'email',
    );
  });

  test('an address that has no one form is a 400 at every entry point, naming the field', async () => {
    for (const email of ['sam@localhost', 'sam@corp.test..', '.sam@corp.test', 'sam..x@corp.test']) {
      expectError(await t.admin('POST', '/users', { email, name: 'Sam', password: PASSWORD }), 400, 'invalid_field', 'email');
      expectError(await loginRequest(t, email, PASSWORD, { origin: ORIGIN }), 400, 'invalid_field', 'email');
    }
  });
});
