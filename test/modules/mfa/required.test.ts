/**
 * Required two-factor per workspace (operations.md §15): an owner with two-factor turns
 * `requireMfa` on (PATCH /api/workspaces/{id}); a member without it is then refused there with
 * 403 `mfa_required` — by session, human token and OAuth token — while API keys keep working and
 * the account routes stay open; enrolling lets them in, turning it off (theirs, or the
 * workspace's) changes it back at the very next request. Every credential is used before each
 * change, so a cached resolution that was not forgotten would show. Also two instances on one
 * PostgreSQL + Redis: a change on A holds on B.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { LightMyRequestResponse } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bearer, onPostgres, onRedis, startTestApp, type TestApp } from '../../helpers/app.js';
import { asSession, createHumanToken, expectError, ownedWorkspace, signedInMember, type SignedIn } from '../people/helpers.js';
import { connect, registerApp } from '../oauth/helpers.js';

const code = (secret: string, at = Date.now()) => new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) }).generate({ timestamp: at });

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
  let owner: SignedIn;
  let member: SignedIn;
  let workspaceId: string;
  let apiKey: string;
  let humanToken: string;
  let oauthToken: string;
  let ownerSecret: string;

  beforeAll(async () => {
    t = await startTestApp();
    const made = await ownedWorkspace(t);
    owner = made.owner;
    workspaceId = made.workspace.id;
    apiKey = made.workspace.key;
    member = await signedInMember(t, workspaceId, 'member');
    humanToken = (await createHumanToken(t, member.cookie, workspaceId, ['linksRead'])).token;
    const app = await registerApp(t, owner, workspaceId);
    oauthToken = (await connect(t, member, app, workspaceId, { scope: 'linksRead' })).access_token;
  });
  afterAll(() => t?.close());

  const viaSession = () => asSession(t, member.cookie, 'GET', '/api/links', undefined, { workspaceId });
  const viaHumanToken = () => t.inject({ method: 'GET', url: '/api/links', headers: bearer(humanToken) });
  const viaOauth = () => t.inject({ method: 'GET', url: '/api/links', headers: bearer(oauthToken) });
  const viaKey = () => t.inject({ method: 'GET', url: '/api/links', headers: bearer(apiKey) });
  const viaSettings = () => asSession(t, member.cookie, 'GET', `/api/workspaces/${workspaceId}/members`);

  async function expectMemberAllowed(): Promise<void> {
    for (const [what, res] of [['session', await viaSession()], ['human token', await viaHumanToken()], ['oauth token', await viaOauth()], ['settings', await viaSettings()]] as const) {
      expect(res.statusCode, `${what}: ${res.body}`).toBe(200);
    }
  }
  async function expectMemberRefused(): Promise<void> {
    for (const res of [await viaSession(), await viaHumanToken(), await viaOauth(), await viaSettings()]) expectError(res, 403, 'mfa_required');
  }

  test('off by default, shown on the workspace objects', async () => {
    const mine = (await asSession(t, owner.cookie, 'GET', '/api/workspaces')).json<{ id: string; requireMfa: boolean }[]>();
    expect(mine.find((w) => w.id === workspaceId)?.requireMfa).toBe(false);
    const me = (await asSession(t, member.cookie, 'GET', '/api/me')).json<{ workspaces: { id: string; requireMfa: boolean }[] }>();
    expect(me.workspaces.find((w) => w.id === workspaceId)?.requireMfa).toBe(false);
    await expectMemberAllowed();
  });

  test('only an owner, and only one who has two-factor, can turn it on', async () => {
    expectError(await require2fa(t, member, workspaceId, true), 403, 'owner_required');
    const early = await require2fa(t, owner, workspaceId, true);
    expectError(early, 400, 'invalid_field');
    expect(early.json()).toMatchObject({ field: 'requireMfa', reason: 'mfa_enrol_first' });
    expectError(await asSession(t, owner.cookie, 'PATCH', `/api/workspaces/${workspaceId}`, {}), 400, 'invalid_field');
    ownerSecret = await enrol(t, owner);
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
    await expectMemberRefused();
    expect((await viaKey()).statusCode).toBe(200);
    expect((await asSession(t, owner.cookie, 'GET', '/api/links', undefined, { workspaceId })).statusCode).toBe(200);
    const body = (await viaSession()).json<{ error: { en: string; ar: string } }>();
    expect(body.error.en).toMatch(/two-factor/);
  });

  test('the account routes needed to enrol stay open', async () => {
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
    const other = await t.workspace();
    const res = await t.admin('POST', `/workspaces/${other.id}/members`, { userId: member.user.id, role: 'member' });
    expect(res.statusCode, res.body).toBe(201);
    expect((await asSession(t, member.cookie, 'GET', '/api/links', undefined, { workspaceId: other.id })).statusCode).toBe(200);
  });

  let memberSecret: string;
  test('after enrolling, everything works at the very next request; turning their two-factor off refuses them again', async () => {
    await expectMemberRefused();
    memberSecret = await enrol(t, member);
    await expectMemberAllowed();
    expect((await asSession(t, member.cookie, 'GET', '/api/me')).json()).toMatchObject({ secondFactor: true });
    await disable(t, member, memberSecret);
    await expectMemberRefused();
  });

  test('the owner turning the requirement off lets the member in again', async () => {
    await expectMemberRefused();
    const off = await require2fa(t, owner, workspaceId, false);
    expect(off.statusCode, off.body).toBe(200);
    expect(off.json()).toMatchObject({ requireMfa: false });
    await expectMemberAllowed();
    expect(ownerSecret).toBeTruthy();
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

  // See test/modules/people/instances.test.ts: the Redis bus reaches B within milliseconds.
  const settle = () => sleep(100);
  const onB = async () => [await asSession(b, member.cookie, 'GET', '/api/links', undefined, { workspaceId }), await b.inject({ method: 'GET', url: '/api/links', headers: bearer(humanToken) })];

  test('on A: required, enrolled, disabled — B follows each time', async () => {
    for (const res of await onB()) expect(res.statusCode, res.body).toBe(200);
    expect((await require2fa(a, owner, workspaceId, true)).statusCode).toBe(200);
    await settle();
    for (const res of await onB()) expectError(res, 403, 'mfa_required');
    const recovery = await enrol(a, member);
    await settle();
    for (const res of await onB()) expect(res.statusCode, res.body).toBe(200);
    await disable(a, member, recovery);
    await settle();
    for (const res of await onB()) expectError(res, 403, 'mfa_required');
  });
});
