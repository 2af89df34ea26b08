/**
 * Required two-factor per workspace (operations.md §15): an owner with two-factor turns
 * `requireMfa` on (PATCH /api/workspaces/{id}); a member without it is then refused there with
 * 403 `mfa_required` — by session, human token and OAuth token — while API keys keep working and
 * the account routes stay open; enrolling lets them in, turning it off (theirs, or the
 * workspace's) changes it back at the very next request. Every credential is used before each
 * change, so a cached resolution that was not forgotten would show. Also two instances on one
 * PostgreSQL + Redis: a change on A holds on B.
 */
import type { LightMyRequestResponse } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bearer, onPostgres, onRedis, startTestApp, type TestApp } from '../../helpers/app.js';
import { within } from '../../helpers/wait.js';
import { asSession, createHumanToken, expectError, ownedWorkspace, signedInMember, type SignedIn } from '../people/helpers.js';
import { connect, registerApp } from '../oauth/helpers.js';

const code = (secret: string, at = Date.now()) =>
  new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) }).generate({ timestamp: at });

/** Turns TOTP on for a signed-in person (on `t`); answers a recovery code. */
async function enrol(t: TestApp, who: SignedIn): Promise<string> {
  const started = await asSession(t, who.cookie, 'POST', '/api/me/mfa/totp', { password: who.user.password });
  expect(started.statusCode, started.body).toBe(200);
  const { secret } = started.json<{ secret: string }>();
  const confirmed = await asSession(t, who.cookie, 'POST', '/api/me/mfa/totp/confirm', { code: code(secret) });
  expect(confirmed.statusCode, confirmed.body).toBe(200);
  return confirmed.json<{ recoveryCodes: string[] }>().recoveryCodes[0]!;
}

/** Turns it off with a recovery code (the current step's code was spent confirming). */
async function disable(t: TestApp, who: SignedIn, recoveryCode: string): Promise<void> {
  const res = await asSession(t, who.cookie, 'DELETE', '/api/me/mfa/totp', { password: who.user.password, code: recoveryCode });
  expect(res.statusCode, res.body).toBe(204);
}

function require2fa(t: TestApp, owner: SignedIn, workspaceId: string, on: boolean): Promise<LightMyRequestResponse> {
  return asSession(t, owner.cookie, 'PATCH', `/api/workspaces/${workspaceId}`, { requireMfa: on });
}

describe('required two-factor in one workspace', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  /** Each test's own workspace: its owner, a member with a human token and an OAuth token, its API key. */
  async function workspaceWithMember() {
    const made = await ownedWorkspace(t);
    const owner = made.owner;
    const workspaceId = made.workspace.id;
    const member = await signedInMember(t, workspaceId, 'member');
    const humanToken = (await createHumanToken(t, member.cookie, workspaceId, ['linksRead'])).token;
    const app = await registerApp(t, owner, workspaceId);
    const oauthToken = (await connect(t, member, app, workspaceId, { scope: 'linksRead' })).access_token;
    const viaSession = () => asSession(t, member.cookie, 'GET', '/api/links', undefined, { workspaceId });
    const viaKey = () => t.inject({ method: 'GET', url: '/api/links', headers: bearer(made.workspace.key) });
    const memberAnswers = async () =>
      [
        ['session', await viaSession()],
        ['human token', await t.inject({ method: 'GET', url: '/api/links', headers: bearer(humanToken) })],
        ['oauth token', await t.inject({ method: 'GET', url: '/api/links', headers: bearer(oauthToken) })],
        ['settings', await asSession(t, member.cookie, 'GET', `/api/workspaces/${workspaceId}/members`)],
      ] as const;
    return {
      owner,
      member,
      workspaceId,
      viaSession,
      viaKey,
      async expectMemberAllowed(): Promise<void> {
        for (const [what, res] of await memberAnswers()) expect(res.statusCode, `${what}: ${res.body}`).toBe(200);
      },
      async expectMemberRefused(): Promise<void> {
        for (const [, res] of await memberAnswers()) expectError(res, 403, 'mfa_required');
      },
    };
  }

  /** workspaceWithMember with two-factor required (the owner enrolled first) and the member refused. */
  async function securedWorkspace() {
    const w = await workspaceWithMember();
    await enrol(t, w.owner);
    const on = await require2fa(t, w.owner, w.workspaceId, true);
    expect(on.statusCode, on.body).toBe(200);
    await w.expectMemberRefused();
    return w;
  }

  test('off by default, shown on the workspace objects', async () => {
    const { owner, member, workspaceId, expectMemberAllowed } = await workspaceWithMember();
    const mine = (await asSession(t, owner.cookie, 'GET', '/api/workspaces')).json<{ id: string; requireMfa: boolean }[]>();
    expect(mine.find((w) => w.id === workspaceId)?.requireMfa).toBe(false);
    const me = (await asSession(t, member.cookie, 'GET', '/api/me')).json<{ workspaces: { id: string; requireMfa: boolean }[] }>();
    expect(me.workspaces.find((w) => w.id === workspaceId)?.requireMfa).toBe(false);
    await expectMemberAllowed();
  });

  test('only an owner, and only one who has two-factor, can turn it on', async () => {
    const { owner, member, workspaceId } = await workspaceWithMember();
    expectError(await require2fa(t, member, workspaceId, true), 403, 'owner_required');
    const early = await require2fa(t, owner, workspaceId, true);
    expectError(early, 400, 'invalid_field');
    expect(early.json()).toMatchObject({ field: 'requireMfa', reason: 'mfa_enrol_first' });
    expectError(await asSession(t, owner.cookie, 'PATCH', `/api/workspaces/${workspaceId}`, {}), 400, 'invalid_field');
    await enrol(t, owner);
    const on = await require2fa(t, owner, workspaceId, true);
    expect(on.statusCode, on.body).toBe(200);
    expect(on.json()).toMatchObject({ id: workspaceId, requireMfa: true });
    const mine = (await asSession(t, owner.cookie, 'GET', '/api/workspaces')).json<{ id: string; requireMfa: boolean }[]>();
    expect(mine.find((w) => w.id === workspaceId)?.requireMfa).toBe(true);
    // Renaming alone leaves it on.
    const renamed = await asSession(t, owner.cookie, 'PATCH', `/api/workspaces/${workspaceId}`, { name: 'Secured' });
    expect(renamed.json()).toMatchObject({ name: 'Secured', requireMfa: true });
  });

  test('a member without it: session, human token and OAuth token refused (403 mfa_required); the API key works; the owner works', async () => {
    const { owner, workspaceId, viaSession, viaKey } = await securedWorkspace();
    expect((await viaKey()).statusCode).toBe(200);
    expect((await asSession(t, owner.cookie, 'GET', '/api/links', undefined, { workspaceId })).statusCode).toBe(200);
    const body = (await viaSession()).json<{ error: { en: string; ar: string } }>();
    expect(body.error.en).toMatch(/two-factor/);
  });

  test('the account routes needed to enrol stay open', async () => {
    const { member, workspaceId } = await securedWorkspace();
    for (const url of ['/api/me', '/api/me/mfa', '/api/workspaces', '/api/me/sessions']) {
      const res = await asSession(t, member.cookie, 'GET', url);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    }
    const me = (await asSession(t, member.cookie, 'GET', '/api/me')).json<{ workspaces: { id: string; requireMfa: boolean }[]; secondFactor: boolean }>();
    expect(me.workspaces.find((w) => w.id === workspaceId)?.requireMfa).toBe(true);
    // What the dashboard needs to show the refusal before asking for anything.
    expect(me.secondFactor).toBe(false);
  });

  test('other workspaces of the member are not affected', async () => {
    const { member } = await securedWorkspace();
    const other = await t.workspace();
    const res = await t.admin('POST', `/workspaces/${other.id}/members`, { userId: member.user.id, role: 'member' });
    expect(res.statusCode, res.body).toBe(201);
    expect((await asSession(t, member.cookie, 'GET', '/api/links', undefined, { workspaceId: other.id })).statusCode).toBe(200);
  });

  test('after enrolling, everything works at the very next request; turning their two-factor off refuses them again', async () => {
    const { member, expectMemberAllowed, expectMemberRefused } = await securedWorkspace();
    const recoveryCode = await enrol(t, member);
    await expectMemberAllowed();
    expect((await asSession(t, member.cookie, 'GET', '/api/me')).json()).toMatchObject({ secondFactor: true });
    await disable(t, member, recoveryCode);
    await expectMemberRefused();
  });

  test('the owner turning the requirement off lets the member in again', async () => {
    const { owner, workspaceId, expectMemberAllowed } = await securedWorkspace();
    const off = await require2fa(t, owner, workspaceId, false);
    expect(off.statusCode, off.body).toBe(200);
    expect(off.json()).toMatchObject({ requireMfa: false });
    await expectMemberAllowed();
  });
});

describe.skipIf(!onPostgres || !onRedis)('two instances: the flag and enrolment hold on B at its next request', () => {
  let a: TestApp;
  let b: TestApp;
  let owner: SignedIn;
  let member: SignedIn;
  let workspaceId: string;
  let humanToken: string;

  beforeAll(async () => {
    [a, b] = await Promise.all([startTestApp(), startTestApp()]);
    const made = await ownedWorkspace(a);
    owner = made.owner;
    workspaceId = made.workspace.id;
    member = await signedInMember(a, workspaceId, 'member');
    humanToken = (await createHumanToken(a, member.cookie, workspaceId, ['linksRead'])).token;
    await enrol(a, owner);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  const onB = async () => [
    await asSession(b, member.cookie, 'GET', '/api/links', undefined, { workspaceId }),
    await b.inject({ method: 'GET', url: '/api/links', headers: bearer(humanToken) }),
  ];
  /** B answers `status` to both, polled: the Redis bus reaches B within milliseconds (see test/modules/people/instances.test.ts). */
  const bAnswers = async (status: number) => expect(await within(5000, async () => (await onB()).every((res) => res.statusCode === status), 20)).toBe(true);

  test('on A: required, enrolled, disabled — B follows each time', async () => {
    for (const res of await onB()) expect(res.statusCode, res.body).toBe(200);
    expect((await require2fa(a, owner, workspaceId, true)).statusCode).toBe(200);
    await bAnswers(403);
    for (const res of await onB()) expectError(res, 403, 'mfa_required');
    const recovery = await enrol(a, member);
    await bAnswers(200);
    await disable(a, member, recovery);
    await bAnswers(403);
    for (const res of await onB()) expectError(res, 403, 'mfa_required');
  });
});
