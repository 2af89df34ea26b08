import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../helpers/app.js';
import {
  asSession,
  createHumanToken,
  expectError,
  ownedWorkspace,
  signedInMember,
  uniqueEmail,
  loginRequest,
  createUser,
  addMember,
} from '../people/helpers.js';
import { connect, registerApp } from '../oauth/helpers.js';
import { auditLog, changes } from './helpers.js';

/** operations.md §15 "Audit log": entries per change, who made it, the owner's list, its filters and CSV. */
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t?.close();
});

const UA = { 'user-agent': 'AuditTest/1.0' };

describe('entries', () => {
  it('writes one entry for a bulk request, with its counts, every id, the key, the address and the user agent', async () => {
    const { workspace, owner } = await ownedWorkspace(t);
    const key = await workspace.newKey(undefined, { name: 'ci key' });
    const res = await t.inject({
      method: 'POST',
      url: '/api/tags',
      headers: { ...bearer(key.key), ...UA },
      payload: [{ name: 'a' }, { name: 'b' }, { name: 'c' }],
    });
    expect(res.statusCode, res.body).toBe(201);
    const ids = res.json<{ id: string }[]>().map((r) => r.id);
    const entries = await changes(t, owner, workspace.id);
    expect(entries).toHaveLength(1);
    const [e] = entries;
    expect(e!.action).toBe('tags.created');
    expect(e!.counts).toEqual({ created: 3 });
    expect([...e!.targetIds].sort()).toEqual([...ids].sort());
    expect(e!.actor).toEqual({ kind: 'key', id: key.id, userId: null, name: 'ci key' });
    expect(e!.ip).toBe('127.0.0.1');
    expect(e!.userAgent).toBe('AuditTest/1.0');
    expect(Date.parse(e!.at)).not.toBeNaN();
  });

  it('counts updates and inserts of one upsert, and deletions with their ids, each request one entry', async () => {
    const { workspace, owner } = await ownedWorkspace(t);
    const made = (await t.inject({ method: 'POST', url: '/api/tags', headers: bearer(workspace.key), payload: [{ name: 'x' }, { name: 'y' }] })).json<
      { id: string }[]
    >();
    const up = await t.inject({ method: 'PUT', url: '/api/tags', headers: bearer(workspace.key), payload: [{ id: made[0]!.id, name: 'x2' }, { name: 'z' }] });
    expect(up.statusCode, up.body).toBe(200);
    const del = await t.inject({ method: 'DELETE', url: '/api/tags', headers: bearer(workspace.key), payload: made.map((m) => m.id) });
    expect(del.statusCode, del.body).toBe(200);
    const [deleted, upserted, created] = await changes(t, owner, workspace.id);
    expect(created!.action).toBe('tags.created');
    expect(upserted!.action).toBe('tags.upserted');
    expect(upserted!.counts).toEqual({ updated: 1, created: 1 });
    expect(upserted!.targetIds).toContain(made[0]!.id);
    expect(upserted!.targetIds).toHaveLength(2);
    expect(deleted!.action).toBe('tags.deleted');
    expect(deleted!.counts).toEqual({ deleted: 2 });
    expect([...deleted!.targetIds].sort()).toEqual(made.map((m) => m.id).sort());
  });

  it('keeps every id of a large bulk request on its one entry', async () => {
    const { workspace, owner } = await ownedWorkspace(t);
    const items = Array.from({ length: 2500 }, (_, i) => ({ name: `bulk-${i}` }));
    const res = await t.inject({ method: 'POST', url: '/api/tags', headers: bearer(workspace.key), payload: items });
    expect(res.statusCode).toBe(201);
    const [e, ...rest] = await changes(t, owner, workspace.id);
    expect(rest).toEqual([]);
    expect(e!.counts).toEqual({ created: 2500 });
    expect(new Set(e!.targetIds)).toEqual(new Set(res.json<{ id: string }[]>().map((r) => r.id)));
  });

  it('writes no entry for a failed change: a bulk create with one bad item is a 400 and leaves the log as it was', async () => {
    const { workspace, owner } = await ownedWorkspace(t);
    const before = await changes(t, owner, workspace.id);
    const bad = await t.inject({
      method: 'POST',
      url: '/api/links',
      headers: bearer(workspace.key),
      payload: [{ url: 'https://ok.example/a' }, { url: 'http://not-https.example' }],
    });
    expect(bad.statusCode, bad.body).toBe(400);
    const unknown = await t.inject({ method: 'DELETE', url: '/api/tags', headers: bearer(workspace.key), payload: ['0b6c3c4e-2f2a-4c55-9a0e-5c7d2b1e9f10'] });
    expect(unknown.statusCode, unknown.body).toBe(400);
    expect(await changes(t, owner, workspace.id)).toEqual(before);
    expect(before).toEqual([]);
  });

  it('names the actor: a session is the person, a human token the token and its person, an OAuth app the app and its person', async () => {
    const { workspace, owner } = await ownedWorkspace(t);
    const bySession = await asSession(t, owner.cookie, 'POST', '/api/tags', [{ name: 'by-session' }], { workspaceId: workspace.id });
    expect(bySession.statusCode, bySession.body).toBe(201);
    const token = await createHumanToken(t, owner.cookie, workspace.id, ['tagsWrite']);
    const byToken = await t.inject({ method: 'POST', url: '/api/tags', headers: bearer(token.token), payload: [{ name: 'by-token' }] });
    expect(byToken.statusCode, byToken.body).toBe(201);
    const app = await registerApp(t, owner, workspace.id, { scopes: ['tagsWrite'] });
    const access = await connect(t, owner, app, workspace.id, { scope: 'tagsWrite' });
    const byApp = await t.inject({ method: 'POST', url: '/api/tags', headers: bearer(access.access_token), payload: [{ name: 'by-app' }] });
    expect(byApp.statusCode, byApp.body).toBe(201);
    const tagEntries = (await changes(t, owner, workspace.id)).filter((e) => e.action === 'tags.created');
    expect(tagEntries.map((e) => e.actor)).toEqual([
      { kind: 'app', id: app.id, userId: owner.user.id, name: owner.user.email },
      { kind: 'token', id: token.id, userId: owner.user.id, name: owner.user.email },
      { kind: 'user', id: owner.user.id, userId: owner.user.id, name: owner.user.email },
    ]);
    // The app's registration is the owner's settings change: an entry too.
    expect((await changes(t, owner, workspace.id)).map((e) => e.action)).toContain('oauth_app.created');
  });
});

describe('an invitation accepted', () => {
  it('is a member.joined entry in the invitation’s workspace, by the person who joined; a refused accept writes none', async () => {
    const { workspace, owner } = await ownedWorkspace(t);
    const email = uniqueEmail('joiner');
    const made = await asSession(t, owner.cookie, 'POST', `/api/workspaces/${workspace.id}/invites`, { email, role: 'member' });
    expect(made.statusCode, made.body).toBe(201);
    const token = new URL(made.json<{ url: string }>().url).searchParams.get('token')!;
    const accept = (password: string) =>
      t.inject({ method: 'POST', url: '/api/invites/accept', headers: { origin: 'https://lt.test', ...UA }, payload: { token, name: 'Joiner', password } });
    expect((await accept('short')).statusCode).toBe(400);
    expect((await changes(t, owner, workspace.id, 'action=member.joined')).length).toBe(0);
    const joined = await accept('a long enough secret phrase');
    expect(joined.statusCode, joined.body).toBe(201);
    const userId = joined.json<{ userId: string }>().userId;
    const [entry, ...more] = await changes(t, owner, workspace.id, 'action=member.joined');
    expect(more).toEqual([]);
    expect(entry!.actor).toEqual({ kind: 'user', id: userId, userId, name: email });
    expect(entry!.targetIds).toContain(userId);
    expect(entry!.userAgent).toBe('AuditTest/1.0');
  });
});

describe('settings changes', () => {
  it('names who changed a member’s role or removed them, the member, and the role before and after; leaving is one’s own entry', async () => {
    const { workspace, owner } = await ownedWorkspace(t);
    const member = await signedInMember(t, workspace.id, 'member');
    const leaver = await signedInMember(t, workspace.id, 'viewer');
    const members = `/api/workspaces/${workspace.id}/members`;
    expect((await asSession(t, owner.cookie, 'PATCH', `${members}/${member.user.id}`, { role: 'viewer' }, { headers: UA })).statusCode).toBe(200);
    expect((await asSession(t, owner.cookie, 'DELETE', `${members}/${member.user.id}`, undefined, { headers: UA })).statusCode).toBe(200);
    expect((await asSession(t, leaver.cookie, 'DELETE', `${members}/${leaver.user.id}`)).statusCode).toBe(200);
    const [left, removed, changed, ...more] = await changes(t, owner, workspace.id);
    expect(more).toEqual([]);
    const byOwner = { kind: 'user', id: owner.user.id, userId: owner.user.id, name: owner.user.email };
    expect(changed).toMatchObject({
      action: 'member.role_changed',
      actor: byOwner,
      targetIds: [member.user.id],
      changes: { role: { before: 'member', after: 'viewer' } },
      userAgent: 'AuditTest/1.0',
    });
    expect(removed).toMatchObject({
      action: 'member.removed',
      actor: byOwner,
      targetIds: [member.user.id],
      changes: { role: { before: 'viewer', after: null } },
    });
    expect(left).toMatchObject({
      action: 'member.removed',
      actor: { kind: 'user', id: leaver.user.id },
      targetIds: [leaver.user.id],
      changes: { role: { before: 'viewer', after: null } },
    });
  });

  it('puts the operator’s changes of a workspace (keys, members, plan) in its log, actor operator, with the plan before and after', async () => {
    const { workspace, owner } = await ownedWorkspace(t);
    const person = await createUser(t, { email: uniqueEmail('byoperator') });
    const ok = async (method: 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) => {
      const res = await t.admin(method, url, payload);
      expect(res.statusCode, res.body).toBeLessThan(300);
      return res.json<{ id: string }>();
    };
    const key = await ok('POST', `/workspaces/${workspace.id}/keys`, { name: 'minted by the operator', scopes: ['linksRead'] });
    await ok('DELETE', `/keys/${key.id}`);
    await ok('POST', `/workspaces/${workspace.id}/members`, { userId: person.id, role: 'member' });
    await ok('PATCH', `/workspaces/${workspace.id}`, { plan: 'pro' });

    // Newest first; the workspace's own setup (its first key, the owner's membership) is older.
    const mine = await auditLog(t, owner, workspace.id, 'actor=operator&take=4');
    const operator = { kind: 'operator', id: 'operator', userId: null, name: null };
    expect(mine.map(({ action, actor, targetIds, changes }) => ({ action, actor, targetIds, changes }))).toEqual([
      {
        action: 'workspace.updated',
        actor: operator,
        targetIds: [workspace.id],
        changes: {
          plan: { before: 'enterprise', after: 'pro' },
          rateLimitPerMinute: { before: 10_000, after: 600 },
          maxBulkItems: { before: 10_000, after: 1_000 },
        },
      },
      { action: 'member.added', actor: operator, targetIds: [person.id], changes: { role: { before: null, after: 'member' } } },
      { action: 'key.revoked', actor: operator, targetIds: [key.id], changes: {} },
      { action: 'key.created', actor: operator, targetIds: [key.id], changes: {} },
    ]);
  });
});

describe('GET /api/audit-log', () => {
  it('filters by actor, action and date, pages with skip/take, and answers CSV', async () => {
    const { workspace, owner } = await ownedWorkspace(t);
    const key = await workspace.newKey(undefined, { name: 'second' });
    for (const [url, k, name] of [
      ['/api/tags', workspace.key, 'one'],
      ['/api/tags', key.key, 'two'],
      ['/api/collections', key.key, 'c'],
    ] as const) {
      const made = await t.inject({ method: 'POST', url, headers: bearer(k), payload: [{ name }] });
      expect(made.statusCode, made.body).toBe(201);
    }
    const all = await changes(t, owner, workspace.id);
    expect(all.map((e) => e.action)).toEqual(['collections.created', 'tags.created', 'tags.created']);
    expect((await auditLog(t, owner, workspace.id, `actor=${key.id}`)).map((e) => e.action)).toEqual(['collections.created', 'tags.created']);
    expect((await auditLog(t, owner, workspace.id, 'action=tags.created')).map((e) => e.actor.name)).toEqual(['second', expect.any(String)]);
    expect((await auditLog(t, owner, workspace.id, `actor=${owner.user.id}`)).map((e) => e.action)).toEqual(['sign_in.password.succeeded']);
    expect(await auditLog(t, owner, workspace.id, 'endDate=2000-01-01')).toEqual([]);
    expect(await auditLog(t, owner, workspace.id, 'startDate=2999-01-01')).toEqual([]);
    const today = new Date().toISOString().slice(0, 10);
    expect((await auditLog(t, owner, workspace.id, `startDate=${today}&action=tags.created`)).length).toBe(2);
    const page = await auditLog(t, owner, workspace.id, 'take=1&skip=1&sort=asc&action=tags.created');
    expect(page.map((e) => e.actor.name)).toEqual(['second']);
    expectError(
      await asSession(t, owner.cookie, 'GET', '/api/audit-log?startDate=yesterday', undefined, { workspaceId: workspace.id }),
      400,
      'invalid_query',
      'startDate',
    );

    const csv = await asSession(t, owner.cookie, 'GET', '/api/audit-log?format=csv&action=tags.created&sort=asc', undefined, { workspaceId: workspace.id });
    expect(csv.statusCode, csv.body).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const lines = csv.body.trimEnd().split('\r\n');
    expect(lines[0]).toBe('at,actorKind,actorId,actorUserId,actorName,action,targetIds,counts,changes,ip,userAgent');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toContain(`key,${key.id},,second,tags.created,`);
    expect(lines[2]).toContain('"{""created"":1}"');
  });

  it('names its actors for the filter: a person once by user id, a key by its id and name, the operator; each id filters the log', async () => {
    const { workspace, owner } = await ownedWorkspace(t);
    const key = await workspace.newKey(undefined, { name: 'CRM sync' });
    expect((await t.inject({ method: 'POST', url: '/api/tags', headers: bearer(key.key), payload: [{ name: 'k' }] })).statusCode).toBe(201);
    const { token } = await createHumanToken(t, owner.cookie, workspace.id, ['tagsWrite']);
    expect((await t.inject({ method: 'POST', url: '/api/tags', headers: bearer(token), payload: [{ name: 't' }] })).statusCode).toBe(201);
    const res = await asSession(t, owner.cookie, 'GET', '/api/audit-log/actors', undefined, { workspaceId: workspace.id });
    expect(res.statusCode, res.body).toBe(200);
    const actors = res.json<{ id: string; kind: string; name: string | null }[]>();
    expect(actors).toEqual(
      expect.arrayContaining([
        { id: owner.user.id, kind: 'person', name: owner.user.email },
        { id: key.id, kind: 'key', name: 'CRM sync' },
        { id: 'operator', kind: 'operator', name: null },
      ]),
    );
    // The owner acted by session (sign-in) and by token: one person, once.
    expect(actors.filter((a) => a.id === owner.user.id)).toHaveLength(1);
    for (const a of actors) expect((await auditLog(t, owner, workspace.id, `actor=${a.id}`)).length, a.id).toBeGreaterThan(0);
    const member = await signedInMember(t, workspace.id, 'member');
    expectError(await asSession(t, member.cookie, 'GET', '/api/audit-log/actors', undefined, { workspaceId: workspace.id }), 403, 'owner_required');
  });

  it('is the owner’s only: a member is refused, a key has no way in, and a workspace never sees another’s entries', async () => {
    const a = await ownedWorkspace(t);
    const b = await ownedWorkspace(t);
    await t.inject({ method: 'POST', url: '/api/tags', headers: bearer(a.workspace.key), payload: [{ name: 'only-a' }] });
    expect((await changes(t, a.owner, a.workspace.id)).length).toBe(1);
    expect(await changes(t, b.owner, b.workspace.id)).toEqual([]);
    // B's owner naming A's workspace: not a member there.
    expectError(await asSession(t, b.owner.cookie, 'GET', '/api/audit-log', undefined, { workspaceId: a.workspace.id }), 404, 'not_found');
    const member = await signedInMember(t, a.workspace.id, 'member');
    expectError(await asSession(t, member.cookie, 'GET', '/api/audit-log', undefined, { workspaceId: a.workspace.id }), 403, 'owner_required');
    expectError(await asSession(t, a.owner.cookie, 'GET', '/api/audit-log'), 400, 'workspace_required');
    const byKey = await t.inject({ method: 'GET', url: '/api/audit-log', headers: bearer(a.workspace.key) });
    expect(byKey.statusCode).toBe(401);
  });
});

describe('sign-ins', () => {
  it('puts a person’s sign-ins, failed ones included, in their security log and in each of their workspaces’ logs', async () => {
    const a = await ownedWorkspace(t);
    const b = await ownedWorkspace(t);
    const person = await createUser(t, { email: uniqueEmail('signin') });
    await addMember(t, a.workspace.id, person.id, 'member');
    await addMember(t, b.workspace.id, person.id, 'viewer');
    const headers = { 'user-agent': 'SignInTest/2.0' };
    expect((await loginRequest(t, person.email, 'not the password at all', headers)).statusCode).toBe(401);
    const ok = await loginRequest(t, person.email, person.password, headers);
    expect(ok.statusCode).toBe(200);
    // An unknown address names nobody: no entry anywhere.
    expect((await loginRequest(t, uniqueEmail('nobody'), 'whatever it is here')).statusCode).toBe(401);
    const cookie = ok.headers['set-cookie']!.toString().split(';')[0]!;
    const log = await t.inject({ method: 'GET', url: '/api/me/security-log', headers: { cookie } });
    expect(log.statusCode, log.body).toBe(200);
    const signIns = log.json<{ method: string; outcome: string; ip: string; userAgent: string; at: string }[]>();
    expect(signIns.map((s) => [s.method, s.outcome, s.ip, s.userAgent])).toEqual([
      ['password', 'succeeded', '127.0.0.1', 'SignInTest/2.0'],
      ['password', 'failed', '127.0.0.1', 'SignInTest/2.0'],
    ]);
    for (const w of [a, b]) {
      const theirs = await auditLog(t, w.owner, w.workspace.id, `actor=${person.id}`);
      expect(theirs.map((e) => e.action)).toEqual(['sign_in.password.succeeded', 'sign_in.password.failed']);
      expect(theirs[0]!.actor).toEqual({ kind: 'user', id: person.id, userId: person.id, name: person.email });
    }
    // Another person's security log shows none of these.
    const other = await t.inject({ method: 'GET', url: '/api/me/security-log', headers: { cookie: a.owner.cookie } });
    expect(other.json<unknown[]>()).toHaveLength(1);
    expect((await t.inject({ method: 'GET', url: '/api/me/security-log' })).statusCode).toBe(401);
  });
});
