/**
 * Invitations (operations.md §7) through the service on the real database (PGlite, or
 * PostgreSQL with DATABASE_URL): the link is shown once, stored as SHA-256, valid 7 days and
 * used once even by concurrent accepts; a refused accept leaves the invite usable.
 */
import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { AppError } from '../../../src/core/errors.js';
import * as invites from '../../../src/modules/invites/service.js';
import * as users from '../../../src/modules/users/service.js';
import type { Role } from '../../../src/modules/users/roles.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const BASE_URL = 'https://lt.test';
const PASSWORD = 'a long enough secret phrase';
const DAY = 24 * 3600_000;
const T0 = new Date('2031-03-10T09:00:00Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

const email = () => `i${Math.random().toString(36).slice(2)}@example.com`;
const db = () => t.database.db;
/** What a service call is given: the database and the time (T0 unless the test moves it). */
const ctx = (now = T0) => ({ db: db(), now });

/** 'ok', or the refusal as `field:reason` (or the error code when it names no field). */
async function outcome(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return err.params.field ? `${err.params.field}:${err.params.reasonCode}` : err.code;
  }
}

async function newUser(address = email()): Promise<users.User> {
  const res = await t.admin('POST', '/users', { email: address, name: 'Invitee', password: PASSWORD });
  if (res.statusCode !== 201) throw new Error(res.body);
  const user = res.json<users.User>();
  return { ...user, createdAt: new Date(user.createdAt) };
}

async function addMember(workspaceId: string, userId: string, role: Role = 'member'): Promise<void> {
  const res = await t.admin('POST', `/workspaces/${workspaceId}/members`, { userId, role });
  if (res.statusCode !== 201) throw new Error(res.body);
}

async function invite(workspaceId: string, address: string, opts: { role?: Role; now?: Date; invitedBy?: string | null } = {}) {
  const made = await invites.createInvite({
    ctx: ctx(opts.now),
    input: { workspaceId, email: address, role: opts.role ?? 'member', invitedBy: opts.invitedBy ?? null },
    deps: { baseUrl: BASE_URL },
  });
  return { ...made, token: new URL(made.url).searchParams.get('token')! };
}

const membersOf = (workspaceId: string) =>
  rows<{ user_id: string; role: string }>(db(), sql`select user_id, role from memberships where workspace_id = ${workspaceId} order by seq`);

describe('creating and listing', () => {
  test('the url carries a 256-bit token, stored only as its SHA-256; valid 7 days', async () => {
    const ws = await t.workspace();
    const owner = await newUser();
    const made = await invite(ws.id, 'New.Person@Example.com', { role: 'viewer', invitedBy: owner.id });
    expect(made.url).toMatch(/^https:\/\/lt\.test\/app\/invite\?token=[A-Za-z0-9_-]{43}$/);
    // The address in its one form (core/email.ts), the form the account will have.
    expect(made).toMatchObject({ email: 'new.person@example.com', role: 'viewer', createdAt: T0, expiresAt: at(7 * DAY) });
    expect(Buffer.from(made.token, 'base64url')).toHaveLength(32);

    const [stored] = await rows<{ token_hash: Buffer; invited_by: string }>(db(), sql`select token_hash, invited_by from invites where id = ${made.id}`);
    expect(Buffer.from(stored!.token_hash).equals(createHash('sha256').update(made.token).digest())).toBe(true);
    expect(stored!.invited_by).toBe(owner.id);
    const [other] = await rows<{ n: number }>(db(), sql`select count(*)::int as n from invites where token_hash = ${Buffer.from(made.token)}`);
    expect(other!.n).toBe(0);
  });

  test('the list shows pending invites only, oldest first, without token or hash', async () => {
    const ws = await t.workspace();
    const accepted = await invite(ws.id, email(), { now: at(-2 * DAY) });
    await invites.acceptInvite({ ctx: ctx(at(-DAY)), input: { token: accepted.token, newAccount: { name: 'A', password: PASSWORD } } });
    const revoked = await invite(ws.id, email(), { now: at(-2 * DAY) });
    await invites.revokeInvite({ ctx: ctx(at(-DAY)), input: { workspaceId: ws.id, id: revoked.id } });
    await invite(ws.id, email(), { now: at(-8 * DAY) }); // expired by T0
    const older = await invite(ws.id, email(), { now: at(-3 * DAY), role: 'owner' });
    const newer = await invite(ws.id, email(), { now: at(-1000) });
    await invite((await t.workspace()).id, email()); // another workspace's

    const list = await invites.listInvites({ ctx: ctx(), input: { workspaceId: ws.id } });
    expect(list.map((i) => i.id)).toEqual([older.id, newer.id]);
    expect(list[0]).toEqual({ id: older.id, email: older.email, role: 'owner', expiresAt: at(4 * DAY), createdAt: at(-3 * DAY), invitedBy: null });
    const json = JSON.stringify(list);
    expect(json).not.toContain(newer.token);
    expect(json).not.toMatch(/hash|token/i);
  });

  test('an address that is already a member (any case) is refused; an unknown workspace is 404', async () => {
    const ws = await t.workspace();
    const member = await newUser();
    await addMember(ws.id, member.id);
    expect(await outcome(invite(ws.id, member.email.toUpperCase()))).toBe('email:already_member');
    expect(await outcome(invite(ws.id, email()))).toBe('ok');
    expect(await outcome(invite('0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', email()))).toBe('not_found');
  });

  test('a new invite to a pending address revokes the older one', async () => {
    const ws = await t.workspace();
    const address = email();
    const first = await invite(ws.id, address, { role: 'viewer' });
    const second = await invite(ws.id, address.toUpperCase(), { role: 'owner', now: at(1000) });
    expect((await invites.listInvites({ ctx: ctx(at(2000)), input: { workspaceId: ws.id } })).map((i) => i.id)).toEqual([second.id]);
    expect(await outcome(invites.acceptInvite({ ctx: ctx(at(2000)), input: { token: first.token, newAccount: { name: 'N', password: PASSWORD } } }))).toBe(
      'token:invite_invalid',
    );
    const done = await invites.acceptInvite({ ctx: ctx(at(2000)), input: { token: second.token, newAccount: { name: 'N', password: PASSWORD } } });
    expect(done.member.role).toBe('owner');
  });

  test('two invites of one address at once leave exactly one pending', async () => {
    const ws = await t.workspace();
    const address = email();
    await Promise.all([invite(ws.id, address), invite(ws.id, address), invite(ws.id, address)]);
    expect(await invites.listInvites({ ctx: ctx(), input: { workspaceId: ws.id } })).toHaveLength(1);
  });
});

describe('revoking', () => {
  test('a revoked invite is gone from the list and cannot be accepted; only pending invites of the workspace are found', async () => {
    const ws = await t.workspace();
    const made = await invite(ws.id, email());
    const elsewhere = await t.workspace();
    expect(await outcome(invites.revokeInvite({ ctx: ctx(), input: { workspaceId: elsewhere.id, id: made.id } }))).toBe('not_found');
    await invites.revokeInvite({ ctx: ctx(), input: { workspaceId: ws.id, id: made.id } });
    expect(await invites.listInvites({ ctx: ctx(), input: { workspaceId: ws.id } })).toEqual([]);
    expect(await outcome(invites.acceptInvite({ ctx: ctx(), input: { token: made.token, newAccount: { name: 'R', password: PASSWORD } } }))).toBe(
      'token:invite_invalid',
    );
    expect(await outcome(invites.revokeInvite({ ctx: ctx(), input: { workspaceId: ws.id, id: made.id } }))).toBe('not_found');
    expect(await outcome(invites.revokeInvite({ ctx: ctx(), input: { workspaceId: ws.id, id: 'not-a-uuid' } }))).toBe('not_found');
  });
});

describe('accepting as a signed-in user', () => {
  test('the invited address (any case) becomes a member with the invite role, once', async () => {
    const ws = await t.workspace();
    const user = await newUser();
    const made = await invite(ws.id, user.email.toUpperCase(), { role: 'viewer' });
    const done = await invites.acceptInvite({ ctx: ctx(at(DAY)), input: { token: made.token, userId: user.id } });
    expect(done).toEqual({ member: { workspaceId: ws.id, userId: user.id, role: 'viewer', createdAt: at(DAY) }, user, created: false });
    expect(await membersOf(ws.id)).toEqual([{ user_id: user.id, role: 'viewer' }]);
    const [stored] = await rows<{ accepted_at: Date }>(db(), sql`select accepted_at from invites where id = ${made.id}`);
    expect(new Date(stored!.accepted_at)).toEqual(at(DAY));
    expect(await outcome(invites.acceptInvite({ ctx: ctx(at(DAY)), input: { token: made.token, userId: user.id } }))).toBe('token:invite_invalid');
  });

  test('another account is refused, and the invite stays usable by the right one', async () => {
    const ws = await t.workspace();
    const [right, wrong] = [await newUser(), await newUser()];
    const made = await invite(ws.id, right.email);
    expect(await outcome(invites.acceptInvite({ ctx: ctx(), input: { token: made.token, userId: wrong.id } }))).toBe('token:invite_other_email');
    expect(await membersOf(ws.id)).toEqual([]);
    expect(await invites.listInvites({ ctx: ctx(), input: { workspaceId: ws.id } })).toHaveLength(1);
    expect(await outcome(invites.acceptInvite({ ctx: ctx(), input: { token: made.token, userId: right.id } }))).toBe('ok');
  });

  test('a user who became a member since the invite is refused, and the invite is left unused', async () => {
    const ws = await t.workspace();
    const user = await newUser();
    const made = await invite(ws.id, user.email, { role: 'owner' });
    await addMember(ws.id, user.id, 'viewer');
    expect(await outcome(invites.acceptInvite({ ctx: ctx(), input: { token: made.token, userId: user.id } }))).toBe('token:already_member');
    expect(await membersOf(ws.id)).toEqual([{ user_id: user.id, role: 'viewer' }]);
    expect((await invites.listInvites({ ctx: ctx(), input: { workspaceId: ws.id } })).map((i) => i.id)).toEqual([made.id]);
  });

  test('an unknown token, and an expired one, are invite_invalid', async () => {
    const ws = await t.workspace();
    const user = await newUser();
    const made = await invite(ws.id, user.email);
    const accept = (token: string, now: Date) => outcome(invites.acceptInvite({ ctx: ctx(now), input: { token, userId: user.id } }));
    expect(await accept('A'.repeat(43), T0)).toBe('token:invite_invalid');
    expect(await accept('short', T0)).toBe('token:invite_invalid');
    expect(await accept(made.token, made.expiresAt)).toBe('token:invite_invalid');
    expect(await accept(made.token, at(7 * DAY + 1))).toBe('token:invite_invalid');
    expect(await accept(made.token, at(7 * DAY - 1))).toBe('ok');
  });

  test('two concurrent accepts: exactly one succeeds', async () => {
    const ws = await t.workspace();
    const user = await newUser();
    const made = await invite(ws.id, user.email);
    const results = await Promise.all([0, 1, 2].map(() => outcome(invites.acceptInvite({ ctx: ctx(), input: { token: made.token, userId: user.id } }))));
    expect(results.sort()).toEqual(['ok', 'token:invite_invalid', 'token:invite_invalid']);
    expect(await membersOf(ws.id)).toHaveLength(1);
  });
});

describe('accepting with a new account', () => {
  test('creates the account under the invited address with an argon2id hash, and its membership', async () => {
    const ws = await t.workspace();
    const address = email();
    const made = await invite(ws.id, address, { role: 'member' });
    const done = await invites.acceptInvite({ ctx: ctx(), input: { token: made.token, newAccount: { name: 'Nadia', password: PASSWORD } } });
    expect(done.created).toBe(true);
    expect(done.user).toMatchObject({ email: address, name: 'Nadia' });
    expect(Object.keys(done.user).sort()).toEqual(['createdAt', 'email', 'id', 'name']);
    expect(done.member).toEqual({ workspaceId: ws.id, userId: done.user.id, role: 'member', createdAt: T0 });
    const [stored] = await rows<{ password_hash: string }>(db(), sql`select password_hash from users where id = ${done.user.id}`);
    expect(stored!.password_hash).toMatch(/^\$argon2id\$/);
    expect(stored!.password_hash).not.toContain(PASSWORD);
    expect((await users.workspacesOf({ ctx: ctx(), input: { userId: done.user.id } })).map((w) => [w.id, w.role])).toEqual([[ws.id, 'member']]);
  });

  test('bad names and passwords are refused by field, and the invite stays usable', async () => {
    const ws = await t.workspace();
    const made = await invite(ws.id, email());
    const accept = (name: string, password: string) =>
      outcome(invites.acceptInvite({ ctx: ctx(), input: { token: made.token, newAccount: { name, password } } }));
    expect(await accept('', PASSWORD)).toBe('name:min_length');
    expect(await accept('x'.repeat(101), PASSWORD)).toBe('name:max_length');
    expect(await accept('Ok', 'short')).toBe('password:min_length');
    expect(await accept('Ok', 'Password1')).toBe('password:common_password');
    expect(await accept('x'.repeat(100), PASSWORD)).toBe('ok');
  });

  test('an address that already has an account must sign in to accept', async () => {
    const ws = await t.workspace();
    const user = await newUser();
    const made = await invite(ws.id, user.email.toUpperCase());
    expect(await outcome(invites.acceptInvite({ ctx: ctx(), input: { token: made.token, newAccount: { name: 'X', password: PASSWORD } } }))).toBe(
      'token:sign_in_to_accept',
    );
    expect(await membersOf(ws.id)).toEqual([]);
    expect(await outcome(invites.acceptInvite({ ctx: ctx(), input: { token: made.token, userId: user.id } }))).toBe('ok');
  });

  test('two concurrent sign-ups with one invite: exactly one account is made', async () => {
    const ws = await t.workspace();
    const address = email();
    const made = await invite(ws.id, address);
    const results = await Promise.all(
      [0, 1].map((i) => outcome(invites.acceptInvite({ ctx: ctx(), input: { token: made.token, newAccount: { name: `N${i}`, password: PASSWORD } } }))),
    );
    expect(results.sort()).toEqual(['ok', 'token:invite_invalid']);
    const [count] = await rows<{ n: number }>(db(), sql`select count(*)::int as n from users where lower(email) = lower(${address})`);
    expect(count!.n).toBe(1);
    expect(await membersOf(ws.id)).toHaveLength(1);
  });

  test('exactly one of userId and newAccount', async () => {
    const ws = await t.workspace();
    const user = await newUser();
    const made = await invite(ws.id, user.email);
    await expect(invites.acceptInvite({ ctx: ctx(), input: { token: made.token } })).rejects.toThrow(/exactly one/);
    await expect(
      invites.acceptInvite({ ctx: ctx(), input: { token: made.token, userId: user.id, newAccount: { name: 'X', password: PASSWORD } } }),
    ).rejects.toThrow(/exactly one/);
  });
});
