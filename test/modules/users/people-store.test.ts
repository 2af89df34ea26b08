/**
 * The data layer of people (issue 12, first step): users with unique emails ignoring case,
 * memberships with roles, and sessions whose tokens are stored only as SHA-256 and end when
 * idle, too old or revoked. On both engines, through the services.
 */
import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { AppError } from '../../../src/core/errors.js';
import * as sessions from '../../../src/modules/sessions/service.js';
import * as users from '../../../src/modules/users/service.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

/** What a service call is given: the database and a time (the real one unless the test sets it). */
const ctx = (now = new Date()) => ({ db: t.database.db, now });
const email = () => `u${Math.random().toString(36).slice(2)}@example.com`;
const codeOf = async (p: Promise<unknown>) => {
  try {
    await p;
    return 'ok';
  } catch (err) {
    return (err as AppError).params?.reasonCode ?? (err as AppError).code;
  }
};

describe('users', () => {
  test('created with a hashed password; the email is unique ignoring case; answers never carry the hash', async () => {
    const address = email();
    const user = await users.createUser({ ctx: ctx(), input: { email: address, name: 'Ada', password: 'correct horse battery' } });
    expect(Object.keys(user).sort()).toEqual(['createdAt', 'email', 'id', 'name']);
    const [stored] = await rows<{ password_hash: string }>(t.database.db, sql`select password_hash from users where id = ${user.id}`);
    expect(stored!.password_hash).toMatch(/^\$argon2id\$/);
    expect(stored!.password_hash).not.toContain('horse');
    expect(await codeOf(users.createUser({ ctx: ctx(), input: { email: address.toUpperCase(), name: 'B', password: 'another long one' } }))).toBe(
      'email_taken',
    );
    expect(await codeOf(users.createUser({ ctx: ctx(), input: { email: email(), name: 'C', password: 'password1' } }))).toBe('common_password');
  });

  test('memberships carry a role; a user is a member of a workspace once', async () => {
    const ws = await t.workspace();
    const user = await users.createUser({ ctx: ctx(), input: { email: email(), name: 'M', password: 'correct horse battery' } });
    await users.addMember({ ctx: ctx(), input: { workspaceId: ws.id, userId: user.id, role: 'viewer' } });
    expect(await codeOf(users.addMember({ ctx: ctx(), input: { workspaceId: ws.id, userId: user.id, role: 'owner' } }))).toBe('already_member');
    expect(await codeOf(users.addMember({ ctx: ctx(), input: { workspaceId: ws.id, userId: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', role: 'owner' } }))).toBe(
      'not_found',
    );
    const mine = await users.workspacesOf({ ctx: ctx(), input: { userId: user.id } });
    expect(mine.map((w) => [w.id, w.role])).toEqual([[ws.id, 'viewer']]);
  });
});

describe('sessions', () => {
  const limits = { idleMs: 60 * 60_000, maxMs: 3 * 60 * 60_000 };

  test('only the SHA-256 of the token is stored; the token resolves to its user', async () => {
    const user = await users.createUser({ ctx: ctx(), input: { email: email(), name: 'S', password: 'correct horse battery' } });
    const now = new Date('2026-11-23T10:00:00Z');
    const { token, session } = await sessions.createSession({ ctx: ctx(now), input: { userId: user.id, userAgent: 'test' } });
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const [stored] = await rows<{ token_hash: Buffer }>(t.database.db, sql`select token_hash from sessions where id = ${session.id}`);
    expect(Buffer.from(stored!.token_hash).equals(createHash('sha256').update(token).digest())).toBe(true);
    const resolved = await sessions.resolveSession({ ctx: ctx(now), input: { token }, deps: { limits } });
    expect(resolved.user.id).toBe(user.id);
    expect(
      await codeOf(sessions.resolveSession({ ctx: ctx(now), input: { token: token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A') }, deps: { limits } })),
    ).toBe('credential_invalid');
  });

  test('ends after the idle limit, after the absolute limit even when used, and when revoked', async () => {
    const user = await users.createUser({ ctx: ctx(), input: { email: email(), name: 'S', password: 'correct horse battery' } });
    const start = new Date('2026-11-23T10:00:00Z');
    const at = (minutes: number) => new Date(start.getTime() + minutes * 60_000);
    const idle = await sessions.createSession({ ctx: ctx(start), input: { userId: user.id, userAgent: undefined } });
    expect(await codeOf(sessions.resolveSession({ ctx: ctx(at(59)), input: { token: idle.token }, deps: { limits } }))).toBe('ok');
    // Used at 59 minutes: idle counts from then.
    expect(await codeOf(sessions.resolveSession({ ctx: ctx(at(118)), input: { token: idle.token }, deps: { limits } }))).toBe('ok');
    expect(await codeOf(sessions.resolveSession({ ctx: ctx(at(179)), input: { token: idle.token }, deps: { limits } }))).toBe('credential_expired');

    const busy = await sessions.createSession({ ctx: ctx(start), input: { userId: user.id, userAgent: undefined } });
    for (let m = 50; m < 180; m += 50)
      expect(await codeOf(sessions.resolveSession({ ctx: ctx(at(m)), input: { token: busy.token }, deps: { limits } }))).toBe('ok');
    expect(await codeOf(sessions.resolveSession({ ctx: ctx(at(181)), input: { token: busy.token }, deps: { limits } }))).toBe('credential_expired');

    const revoked = await sessions.createSession({ ctx: ctx(start), input: { userId: user.id, userAgent: undefined } });
    const other = await sessions.createSession({ ctx: ctx(start), input: { userId: user.id, userAgent: undefined } });
    expect(await sessions.revokeOtherSessions({ ctx: ctx(at(1)), input: { userId: user.id, except: other.session.id } })).toBeGreaterThanOrEqual(3);
    expect(await codeOf(sessions.resolveSession({ ctx: ctx(at(2)), input: { token: revoked.token }, deps: { limits } }))).toBe('credential_revoked');
    expect(await codeOf(sessions.resolveSession({ ctx: ctx(at(2)), input: { token: other.token }, deps: { limits } }))).toBe('ok');
    expect((await sessions.listSessions({ ctx: ctx(), input: { userId: user.id } })).map((s) => s.id)).toEqual([other.session.id]);
    expect(await codeOf(sessions.revokeSession({ ctx: ctx(at(3)), input: { userId: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', id: other.session.id } }))).toBe(
      'not_found',
    );
  });
});
