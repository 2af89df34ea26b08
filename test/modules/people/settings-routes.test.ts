/**
 * The account and workspace-settings routes of operations.md §7 and the human tokens of §8,
 * through HTTP the way the dashboard and a client call them: the session cookie and its
 * flags, the first-party rule, X-Workspace-Id, one credential per request, each role against
 * each of the fourteen scopes, owners-only settings, the last owner, human tokens, invitations
 * and the workspace's keys. Runs on PGlite, and on PostgreSQL + Redis with DATABASE_URL/REDIS_URL.
 */
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Scope } from '../../../src/core/scopes.js';
import { bearer, startTestApp, type TestApp, type WorkspaceFixture } from '../../helpers/app.js';
import {
  addMember,
  asSession,
  COOKIE_NAME,
  createHumanToken,
  createUser,
  DAY_MS,
  expectError,
  login,
  loginRequest,
  mutableClock,
  ORIGIN,
  ownedWorkspace,
  PASSWORD,
  sessionCookieFrom,
  signedInMember,
  uniqueEmail,
  type Role,
  type SignedIn,
} from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** operations.md §7's role table with §11's two scopes, written out here (not read from the code). */
const API_MD_SCOPES: Scope[] = [
  'linksRead',
  'linksWrite',
  'collectionsRead',
  'collectionsWrite',
  'tagsRead',
  'tagsWrite',
  'analyticsRead',
  'conversionsWrite',
  'customersRead',
  'customersWrite',
  'partnersRead',
  'partnersWrite',
];
const ALL_SCOPES: Scope[] = [...API_MD_SCOPES, 'webhooksRead', 'webhooksWrite', 'programsRead', 'programsWrite'];
const ROLE_TABLE: Record<Role, Scope[]> = {
  owner: ALL_SCOPES,
  // "member and viewer unchanged" (operations.md, rules before §11): no webhooks scopes. The program's
  // scopes (§18) are a member's too; its money routes ask for an owner besides.
  member: [...API_MD_SCOPES, 'programsRead', 'programsWrite'],
  viewer: ['linksRead', 'collectionsRead', 'tagsRead', 'analyticsRead', 'customersRead', 'partnersRead', 'programsRead'],
};

const uniq = (label: string) => `${label}-${randomUUID().slice(0, 8)}`;

/** A workspace route called with the session cookie and X-Workspace-Id. */
const inWorkspace = (cookie: string, workspaceId: string, method: Method, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
  t.inject({ method, url, headers: { cookie, 'x-workspace-id': workspaceId, ...headers }, payload: payload as object });

/** A request with a key or human token in the given header form. */
const withToken = (token: string, method: Method, url: string, payload?: unknown, form: 'bearer' | 'x-api-key' | 'bare' = 'bearer') =>
  t.inject({
    method,
    url,
    headers: form === 'bearer' ? bearer(token) : form === 'bare' ? { authorization: token } : { 'x-api-key': token },
    payload: payload as object,
  });

async function newCollection(w: WorkspaceFixture): Promise<string> {
  const res = await withToken(w.key, 'POST', '/api/collections', [{ name: uniq('c') }]);
  if (res.statusCode !== 201) throw new Error(res.body);
  return res.json<{ id: string }[]>()[0]!.id;
}

// ---------------------------------------------------------------------------------------------

describe('the session cookie of POST /api/auth/login', () => {
  test('https BASE_URL: __Host-lt_session, 43 base64url characters, HttpOnly, SameSite=Lax, Path=/, Secure; the answer is the user', async () => {
    const user = await createUser(t, { name: 'Cookie Person' });
    const res = await loginRequest(t, user.email, user.password);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ user: { id: user.id, email: user.email, name: 'Cookie Person', createdAt: expect.any(String) } });
    const raw = res.headers['set-cookie'];
    const cookies = Array.isArray(raw) ? raw : [raw!];
    expect(cookies).toHaveLength(1);
    const [pair, ...attrs] = cookies[0]!.split(';').map((s) => s.trim());
    const [name, value] = [pair!.slice(0, pair!.indexOf('=')), pair!.slice(pair!.indexOf('=') + 1)];
    expect(name).toBe(COOKIE_NAME);
    expect(value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const lower = attrs.map((a) => a.toLowerCase());
    expect(lower).toContain('httponly');
    expect(lower).toContain('samesite=lax');
    expect(lower).toContain('path=/');
    expect(lower).toContain('secure');
    // __Host- cookies must not name a Domain.
    expect(lower.some((a) => a.startsWith('domain='))).toBe(false);
    // A new session at every login: a second login sets another value.
    const again = sessionCookieFrom(await loginRequest(t, user.email, user.password));
    expect(again).not.toBe(pair);
    expect((await asSession(t, pair!, 'GET', '/api/me')).statusCode).toBe(200);
    expect((await asSession(t, again, 'GET', '/api/me')).statusCode).toBe(200);
  });

  test('wrong password or unknown email: the same 401 login_failed body, no cookie', async () => {
    const user = await createUser(t);
    const wrong = await loginRequest(t, user.email, `${PASSWORD}x`);
    const unknown = await loginRequest(t, uniqueEmail('nobody'), PASSWORD);
    expectError(wrong, 401, 'login_failed');
    expectError(unknown, 401, 'login_failed');
    expect(wrong.body).toBe(unknown.body);
    expect(wrong.headers['set-cookie']).toBeUndefined();
  });

  test('http BASE_URL: lt_session without Secure, and it works as a credential there', async () => {
    const plain = await startTestApp({ env: { BASE_URL: 'http://localhost:3000' } });
    try {
      const email = uniqueEmail('http');
      expect((await plain.admin('POST', '/users', { email, name: 'Plain', password: PASSWORD })).statusCode).toBe(201);
      const res = await plain.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password: PASSWORD } });
      expect(res.statusCode, res.body).toBe(200);
      const cookie = String(res.headers['set-cookie']);
      expect(cookie).toMatch(/^lt_session=[A-Za-z0-9_-]{43};/);
      const attrs = cookie.split(';').map((s) => s.trim().toLowerCase());
      expect(attrs).toContain('httponly');
      expect(attrs).toContain('samesite=lax');
      expect(attrs).toContain('path=/');
      expect(attrs).not.toContain('secure');
      const pair = cookie.split(';')[0]!;
      const me = await plain.inject({ method: 'GET', url: '/api/me', headers: { cookie: pair, origin: 'http://localhost:3000' } });
      expect(me.statusCode, me.body).toBe(200);
      expect(me.json().user.email).toBe(email);
      // The https name is not read on an http deployment.
      const other = await plain.inject({ method: 'GET', url: '/api/me', headers: { cookie: `__Host-${pair}` } });
      expectError(other, 401, 'credential_missing');
    } finally {
      await plain.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('first-party rule, X-Workspace-Id, one credential', () => {
  let w: WorkspaceFixture;
  let owner: SignedIn;
  beforeAll(async () => {
    ({ workspace: w, owner } = await ownedWorkspace(t));
  });

  test.each([
    ['a cross-site Origin', { origin: 'https://evil.example' }],
    ['another subdomain as Origin', { origin: 'https://app.lt.test' }],
    ['the same host over http', { origin: 'http://lt.test' }],
    ['Origin: null', { origin: 'null' }],
    ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
    ['Sec-Fetch-Site: cross-site with the right Origin', { origin: ORIGIN, 'sec-fetch-site': 'cross-site' }],
  ])('%s: the cookie is no credential (401 credential_missing) on account and workspace routes', async (_name, headers) => {
    expectError(await asSession(t, owner.cookie, 'GET', '/api/me', undefined, { headers }), 401, 'credential_missing');
    expectError(await inWorkspace(owner.cookie, w.id, 'GET', '/api/links', undefined, headers), 401, 'credential_missing');
    expectError(await asSession(t, owner.cookie, 'POST', '/api/workspaces', { name: 'csrf' }, { headers }), 401, 'credential_missing');
  });

  test.each([
    ['no Origin', {}],
    ['Origin https://lt.test', { origin: ORIGIN }],
    ['Sec-Fetch-Site: same-origin', { origin: ORIGIN, 'sec-fetch-site': 'same-origin' }],
    ['Sec-Fetch-Site: none', { 'sec-fetch-site': 'none' }],
  ])('%s: the cookie is accepted', async (_name, headers) => {
    const me = await asSession(t, owner.cookie, 'GET', '/api/me', undefined, { headers });
    expect(me.statusCode, me.body).toBe(200);
    expect(me.json().user.id).toBe(owner.user.id);
    const links = await inWorkspace(owner.cookie, w.id, 'GET', '/api/links', undefined, headers);
    expect(links.statusCode, links.body).toBe(200);
    expect(Array.isArray(links.json())).toBe(true);
  });

  test('a cross-site login is refused (403), so no page of another site signs a visitor in', async () => {
    const res = await loginRequest(t, owner.user.email, PASSWORD, { origin: 'https://evil.example' });
    expectError(res, 403, 'cross_site_sign_in');
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  test('X-Workspace-Id: missing → 400 workspace_required; foreign, unknown or malformed → 401 not_a_member; its own (any case) → 200', async () => {
    expectError(await asSession(t, owner.cookie, 'GET', '/api/links'), 400, 'workspace_required');
    expectError(await asSession(t, owner.cookie, 'POST', '/api/tags', [{ name: 'x' }]), 400, 'workspace_required');
    const foreign = await t.workspace();
    expectError(await inWorkspace(owner.cookie, foreign.id, 'GET', '/api/links'), 401, 'not_a_member');
    expectError(await inWorkspace(owner.cookie, randomUUID(), 'GET', '/api/links'), 401, 'not_a_member');
    for (const bad of ['not-a-uuid', `${w.id}x`, '', `${w.id}, ${w.id}`]) {
      expectError(await inWorkspace(owner.cookie, w.id, 'GET', '/api/links', undefined, { 'x-workspace-id': bad }), 401, 'not_a_member');
    }
    expect((await inWorkspace(owner.cookie, w.id.toUpperCase(), 'GET', '/api/links')).statusCode).toBe(200);
    // The workspace a key is bound to is not changed by the header.
    const viaKey = await t.inject({ method: 'GET', url: '/api/links', headers: { ...bearer(foreign.key), 'x-workspace-id': w.id } });
    expect(viaKey.statusCode).toBe(200);
  });

  test('cookie + API key, cookie + human token (either header): 401 credential_conflict', async () => {
    const human = await createHumanToken(t, owner.cookie, w.id, ['linksRead']);
    for (const token of [w.key, human.token]) {
      for (const header of [bearer(token), { 'x-api-key': token }]) {
        expectError(await inWorkspace(owner.cookie, w.id, 'GET', '/api/links', undefined, header), 401, 'credential_conflict');
        expectError(await asSession(t, owner.cookie, 'GET', '/api/me', undefined, { headers: header }), 401, 'credential_conflict');
        expectError(await asSession(t, owner.cookie, 'GET', '/api/me/tokens', undefined, { headers: header }), 401, 'credential_conflict');
      }
    }
    // Two copies of the cookie are two credentials too.
    expectError(await inWorkspace(`${owner.cookie}; ${owner.cookie}`, w.id, 'GET', '/api/links'), 401, 'credential_conflict');
  });

  test('an unknown or garbled session cookie: 401 credential_invalid', async () => {
    for (const cookie of [`${COOKIE_NAME}=${'A'.repeat(43)}`, `${COOKIE_NAME}=x`]) {
      expectError(await asSession(t, cookie, 'GET', '/api/me'), 401, 'credential_invalid');
      expectError(await inWorkspace(cookie, w.id, 'GET', '/api/links'), 401, 'credential_invalid');
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('each role against each of the fourteen scopes (session + X-Workspace-Id)', () => {
  let w: WorkspaceFixture;
  let collectionId: string;
  const people = {} as Record<Role, SignedIn>;
  beforeAll(async () => {
    ({ workspace: w, owner: people.owner } = await ownedWorkspace(t));
    people.member = await signedInMember(t, w.id, 'member');
    people.viewer = await signedInMember(t, w.id, 'viewer');
    collectionId = await newCollection(w);
  });

  /** One request per scope, and what it answers when the scope is there. */
  const PROBES: Record<Scope, { method: Method; url: string; payload?: () => unknown; allowed: (res: LightMyRequestResponse) => void }> = {
    linksRead: { method: 'GET', url: '/api/links', allowed: (r) => expect(r.statusCode, r.body).toBe(200) },
    linksWrite: {
      method: 'POST',
      url: '/api/links',
      payload: () => [{ url: `https://example.com/${uniq('l')}`, collectionId }],
      allowed: (r) => expect(r.statusCode, r.body).toBe(201),
    },
    collectionsRead: { method: 'GET', url: '/api/collections', allowed: (r) => expect(r.statusCode, r.body).toBe(200) },
    collectionsWrite: { method: 'POST', url: '/api/collections', payload: () => [{ name: uniq('c') }], allowed: (r) => expect(r.statusCode, r.body).toBe(201) },
    tagsRead: { method: 'GET', url: '/api/tags', allowed: (r) => expect(r.statusCode, r.body).toBe(200) },
    tagsWrite: { method: 'POST', url: '/api/tags', payload: () => [{ name: uniq('t') }], allowed: (r) => expect(r.statusCode, r.body).toBe(201) },
    analyticsRead: { method: 'GET', url: '/api/analytics', allowed: (r) => expect(r.statusCode, r.body).toBe(200) },
    // Past the scope check, an unknown click id is the service's 400 (not a 401/403).
    conversionsWrite: {
      method: 'POST',
      url: '/api/track/lead',
      payload: () => ({ clickId: randomUUID(), eventName: 'Sign up', customerExternalId: 'c1', customerName: 'C' }),
      allowed: (r) => expectError(r, 400, 'invalid_field', 'clickId'),
    },
    customersRead: { method: 'GET', url: '/api/customers', allowed: (r) => expect(r.statusCode, r.body).toBe(200) },
    customersWrite: { method: 'DELETE', url: '/api/customers', payload: () => [randomUUID()], allowed: (r) => expectError(r, 400, 'invalid_field') },
    partnersRead: { method: 'GET', url: '/api/partners', allowed: (r) => expect(r.statusCode, r.body).toBe(200) },
    partnersWrite: { method: 'POST', url: '/api/partners', payload: () => [{ name: uniq('p') }], allowed: (r) => expect(r.statusCode, r.body).toBe(201) },
    webhooksRead: { method: 'GET', url: '/api/webhooks', allowed: (r) => expect(r.statusCode, r.body).toBe(200) },
    // Past the scope check, a webhook.test to an unknown endpoint is a 404 (not a 401/403).
    webhooksWrite: { method: 'POST', url: `/api/webhooks/${randomUUID()}/test`, allowed: (r) => expect(r.statusCode, r.body).toBe(404) },
    // Past the scope check: the program, or 404 before the owner's probe below makes it.
    programsRead: {
      method: 'GET',
      url: '/api/program',
      allowed: (r) => (r.statusCode === 200 ? expect(r.json().name).toBe('Friends') : expectError(r, 404, 'not_found')),
    },
    // A money route: past the scope check, an owner makes the program and a member is refused by role.
    programsWrite: {
      method: 'PUT',
      url: '/api/program',
      payload: () => ({
        name: 'Friends',
        slug: uniq('friends')
          .toLowerCase()
          .replace(/[^a-z0-9-]/g, '-'),
        landingUrl: 'https://shop.example/',
        currency: 'usd',
      }),
      allowed: (r) => (r.statusCode === 200 ? expect(r.json().name).toBe('Friends') : expectError(r, 403, 'owner_required')),
    },
  };

  const cases = (['owner', 'member', 'viewer'] as Role[]).flatMap((role) =>
    ALL_SCOPES.map((scope) => [role, scope, ROLE_TABLE[role].includes(scope)] as const),
  );

  test.each(cases)('%s, %s: allowed = %s', async (role, scope, allowed) => {
    const probe = PROBES[scope];
    const res = await inWorkspace(people[role].cookie, w.id, probe.method, probe.url, probe.payload?.());
    if (allowed) probe.allowed(res);
    else {
      expectError(res, 403, 'missing_scopes');
      expect(res.json().missingScopes).toEqual([scope]);
    }
  });

  test("the table itself: viewer has exactly the seven reads, member all but the webhooks' two, owner all sixteen", () => {
    expect(ROLE_TABLE.viewer.every((s) => s.endsWith('Read'))).toBe(true);
    expect(ROLE_TABLE.viewer).toHaveLength(7);
    expect(ROLE_TABLE.member).toHaveLength(14);
    expect(ROLE_TABLE.member).not.toContain('webhooksRead');
    expect(new Set(cases.map((c) => c[1])).size).toBe(16);
  });
});

// ---------------------------------------------------------------------------------------------

describe('account and settings routes: 401 for anything but the session', () => {
  let w: WorkspaceFixture;
  let owner: SignedIn;
  let humanToken: string;
  beforeAll(async () => {
    ({ workspace: w, owner } = await ownedWorkspace(t));
    humanToken = (await createHumanToken(t, owner.cookie, w.id, ALL_SCOPES)).token;
  });

  const sessionRoutes = (): [Method, string, unknown?][] => {
    const x = randomUUID();
    const ws = `/api/workspaces/${w.id}`;
    return [
      ['PATCH', '/api/me', { name: 'x', currentPassword: PASSWORD }],
      ['GET', '/api/me/sessions'],
      ['DELETE', `/api/me/sessions/${x}`],
      ['GET', '/api/me/tokens'],
      ['POST', '/api/me/tokens', { name: 'minted', workspaceId: w.id, scopes: ['linksRead'] }],
      ['DELETE', `/api/me/tokens/${x}`],
      ['GET', '/api/workspaces'],
      ['POST', '/api/workspaces', { name: 'x' }],
      ['PATCH', ws, { name: 'x' }],
      ['GET', `${ws}/members`],
      ['PATCH', `${ws}/members/${owner.user.id}`, { role: 'viewer' }],
      ['DELETE', `${ws}/members/${owner.user.id}`],
      ['GET', `${ws}/invites`],
      ['POST', `${ws}/invites`, { email: uniqueEmail(), role: 'member' }],
      ['DELETE', `${ws}/invites/${x}`],
      ['GET', `${ws}/keys`],
      ['POST', `${ws}/keys`, { name: 'minted', scopes: ['linksRead'] }],
      ['DELETE', `${ws}/keys/${x}`],
      ['POST', '/api/auth/logout'],
    ];
  };

  test('an API key or a human token (Bearer, bare or X-API-Key) on a session-only route: 401 session_required, and nothing happens', async () => {
    for (const [method, url, payload] of sessionRoutes()) {
      for (const token of [w.key, humanToken]) {
        for (const form of ['bearer', 'x-api-key', 'bare'] as const) {
          const res = await withToken(token, method, url, payload, form);
          expectError(res, 401, 'session_required');
        }
      }
    }
    // Nothing was minted, renamed or demoted by those calls.
    const tokens = await asSession(t, owner.cookie, 'GET', '/api/me/tokens');
    expect(tokens.json<{ name: string }[]>().map((x) => x.name)).not.toContain('minted');
    const keys = await asSession(t, owner.cookie, 'GET', `/api/workspaces/${w.id}/keys`);
    expect(keys.json<{ name: string }[]>().map((x) => x.name)).not.toContain('minted');
    const members = await asSession(t, owner.cookie, 'GET', `/api/workspaces/${w.id}/members`);
    expect(members.json()).toEqual([expect.objectContaining({ userId: owner.user.id, role: 'owner' })]);
  });

  test('no credential: 401 credential_missing on every session route and on GET /api/me', async () => {
    for (const [method, url, payload] of [...sessionRoutes(), ['GET', '/api/me'] as [Method, string]]) {
      expectError(await t.inject({ method, url, payload: payload as object }), 401, 'credential_missing');
    }
  });

  test('GET /api/me: the session and a human token answer the person; an API key → 401 person_required', async () => {
    const bySession = await asSession(t, owner.cookie, 'GET', '/api/me');
    expect(bySession.statusCode, bySession.body).toBe(200);
    expect(bySession.json()).toEqual({
      user: { id: owner.user.id, email: owner.user.email, name: owner.user.name, createdAt: expect.any(String) },
      workspaces: [
        {
          id: w.id,
          name: expect.any(String),
          plan: 'enterprise',
          role: 'owner',
          scopes: ALL_SCOPES,
          features: expect.arrayContaining(['cloaking', 'geoTargeting']),
          maxBulkItems: expect.any(Number),
          requireMfa: false,
        },
      ],
      partnerPrograms: [],
      secondFactor: false,
      scopeEndpoints: expect.any(Object),
    });
    expect(Object.keys(bySession.json<{ scopeEndpoints: object }>().scopeEndpoints).sort()).toEqual([...ALL_SCOPES].sort());
    const byToken = await withToken(humanToken, 'GET', '/api/me');
    expect(byToken.statusCode, byToken.body).toBe(200);
    expect(byToken.json()).toEqual(bySession.json());
    expectError(await withToken(w.key, 'GET', '/api/me'), 401, 'person_required');
    expectError(await withToken(w.key, 'GET', '/api/me', undefined, 'x-api-key'), 401, 'person_required');
  });

  test('POST /api/invites/accept with a key or a human token: 401 session_required', async () => {
    for (const token of [w.key, humanToken]) {
      expectError(await withToken(token, 'POST', '/api/invites/accept', { token: 'whatever' }), 401, 'session_required');
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('owner-only settings: 403 for member and viewer, 404 for a non-member', () => {
  let w: WorkspaceFixture;
  let owner: SignedIn;
  const people = {} as Record<'member' | 'viewer' | 'outsider', SignedIn>;
  let originalName: string;
  beforeAll(async () => {
    ({ workspace: w, owner } = await ownedWorkspace(t));
    people.member = await signedInMember(t, w.id, 'member');
    people.viewer = await signedInMember(t, w.id, 'viewer');
    // A member of another workspace only.
    const elsewhere = await t.workspace();
    people.outsider = await signedInMember(t, elsewhere.id, 'owner');
    originalName = (await asSession(t, owner.cookie, 'GET', '/api/workspaces')).json<{ name: string }[]>()[0]!.name;
  });

  /** Valid requests of the owner routes (they would succeed for an owner). */
  const ownerRoutes = (workspaceId: string): [Method, string, unknown?][] => {
    const ws = `/api/workspaces/${workspaceId}`;
    return [
      ['PATCH', ws, { name: 'Taken over' }],
      ['PATCH', `${ws}/members/${owner.user.id}`, { role: 'viewer' }],
      ['DELETE', `${ws}/members/${owner.user.id}`],
      ['GET', `${ws}/invites`],
      ['POST', `${ws}/invites`, { email: uniqueEmail('uninvited'), role: 'owner' }],
      ['DELETE', `${ws}/invites/${randomUUID()}`],
      ['GET', `${ws}/keys`],
      ['POST', `${ws}/keys`, { name: 'stolen', scopes: ['linksRead'] }],
      ['DELETE', `${ws}/keys/${randomUUID()}`],
    ];
  };

  test.each(['member', 'viewer'] as const)('%s: 403 owner_required without missingScopes on every owner route, and nothing changes', async (role) => {
    for (const [method, url, payload] of ownerRoutes(w.id)) {
      const res = await asSession(t, people[role].cookie, method, url, payload);
      expectError(res, 403, 'owner_required');
      expect(res.json(), `${method} ${url}`).not.toHaveProperty('missingScopes');
    }
    const mine = (await asSession(t, owner.cookie, 'GET', '/api/workspaces')).json<{ id: string; name: string }[]>();
    expect(mine.find((x) => x.id === w.id)!.name).toBe(originalName);
    const members = (await asSession(t, owner.cookie, 'GET', `/api/workspaces/${w.id}/members`)).json<{ userId: string; role: string }[]>();
    expect(members.find((m) => m.userId === owner.user.id)!.role).toBe('owner');
    expect((await asSession(t, owner.cookie, 'GET', `/api/workspaces/${w.id}/invites`)).json()).toEqual([]);
    const keys = (await asSession(t, owner.cookie, 'GET', `/api/workspaces/${w.id}/keys`)).json<{ name: string }[]>();
    expect(keys.map((k) => k.name)).not.toContain('stolen');
  });

  test('a member of another workspace: 404 on every route of this one (members list included); so is an unknown workspace', async () => {
    for (const workspaceId of [w.id, randomUUID()]) {
      for (const [method, url, payload] of [...ownerRoutes(workspaceId), ['GET', `/api/workspaces/${workspaceId}/members`] as [Method, string]]) {
        expectError(await asSession(t, people.outsider.cookie, method, url, payload), 404, 'not_found');
      }
      // Leaving a workspace one is not in.
      expectError(await asSession(t, people.outsider.cookie, 'DELETE', `/api/workspaces/${workspaceId}/members/${people.outsider.user.id}`), 404, 'not_found');
    }
  });

  test('GET /api/workspaces/{id}/members: any member sees everyone with their role', async () => {
    for (const who of [owner, people.member, people.viewer]) {
      const res = await asSession(t, who.cookie, 'GET', `/api/workspaces/${w.id}/members`);
      expect(res.statusCode, res.body).toBe(200);
      const list = res.json<{ userId: string; email: string; name: string; role: string; createdAt: string }[]>();
      expect(list.map((m) => [m.userId, m.role]).sort()).toEqual(
        [
          [owner.user.id, 'owner'],
          [people.member.user.id, 'member'],
          [people.viewer.user.id, 'viewer'],
        ].sort(),
      );
      expect(Object.keys(list[0]!).sort()).toEqual(['createdAt', 'email', 'name', 'role', 'userId']);
      expect(list.find((m) => m.userId === people.member.user.id)!.email).toBe(people.member.user.email);
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('account routes: success and 400s', () => {
  test('PATCH /api/me: a name change; 400s name the field; a new password ends the other sessions only', async () => {
    const user = await createUser(t, { name: 'Before' });
    const here = await login(t, user);
    const elsewhere = await login(t, user);
    const renamed = await asSession(t, here, 'PATCH', '/api/me', { name: 'After', currentPassword: PASSWORD });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json()).toEqual({ id: user.id, email: user.email, name: 'After', createdAt: expect.any(String) });
    expect((await asSession(t, elsewhere, 'GET', '/api/me')).json().user.name).toBe('After');

    expectError(await asSession(t, here, 'PATCH', '/api/me', { name: 'X' }), 400, 'invalid_field', 'currentPassword');
    expectError(await asSession(t, here, 'PATCH', '/api/me', { name: 'X', currentPassword: `${PASSWORD}!` }), 400, 'invalid_field', 'currentPassword');
    expectError(await asSession(t, here, 'PATCH', '/api/me', { currentPassword: PASSWORD }), 400, 'invalid_field');
    expectError(await asSession(t, here, 'PATCH', '/api/me', { password: 'short', currentPassword: PASSWORD }), 400, 'invalid_field', 'password');
    expectError(await asSession(t, here, 'PATCH', '/api/me', { password: 'password123', currentPassword: PASSWORD }), 400, 'invalid_field', 'password');
    expectError(await asSession(t, here, 'PATCH', '/api/me', { name: '', currentPassword: PASSWORD }), 400, 'invalid_field', 'name');
    expect((await asSession(t, here, 'GET', '/api/me')).json().user.name).toBe('After');

    const next = 'another long secret phrase';
    const changed = await asSession(t, here, 'PATCH', '/api/me', { password: next, currentPassword: PASSWORD });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.body).not.toContain(next);
    expect((await asSession(t, here, 'GET', '/api/me')).statusCode).toBe(200);
    expectError(await asSession(t, elsewhere, 'GET', '/api/me'), 401, 'credential_revoked');
    expectError(await loginRequest(t, user.email, PASSWORD), 401, 'login_failed');
    expect((await loginRequest(t, user.email, next)).statusCode).toBe(200);
  });

  test('GET/DELETE /api/me/sessions: list with the current one marked; revoking one ends it at once; another user’s is 404', async () => {
    const user = await createUser(t);
    const a = await t.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { 'user-agent': 'Browser A' },
      payload: { email: user.email, password: PASSWORD },
    });
    const cookieA = sessionCookieFrom(a);
    const cookieB = await login(t, user);
    const list = await asSession(t, cookieA, 'GET', '/api/me/sessions');
    expect(list.statusCode, list.body).toBe(200);
    const sessions = list.json<{ id: string; createdAt: string; lastSeenAt: string; userAgent: string | null; current: boolean }[]>();
    expect(sessions).toHaveLength(2);
    expect(Object.keys(sessions[0]!).sort()).toEqual(['createdAt', 'current', 'id', 'lastSeenAt', 'userAgent']);
    const current = sessions.filter((s) => s.current);
    expect(current).toHaveLength(1);
    expect(current[0]!.userAgent).toBe('Browser A');
    const other = sessions.find((s) => !s.current)!;
    // The secret value of a cookie is never listed.
    expect(list.body).not.toContain(cookieA.split('=')[1]);
    expect(list.body).not.toContain(cookieB.split('=')[1]);

    const stranger = await signedInMember(t, null, 'member');
    expectError(await asSession(t, stranger.cookie, 'DELETE', `/api/me/sessions/${other.id}`), 404, 'not_found');
    expect((await asSession(t, cookieB, 'GET', '/api/me')).statusCode).toBe(200);
    expectError(await asSession(t, cookieA, 'DELETE', '/api/me/sessions/not-a-uuid'), 400, 'invalid_path', 'id');

    const revoked = await asSession(t, cookieA, 'DELETE', `/api/me/sessions/${other.id}`);
    expect(revoked.statusCode, revoked.body).toBe(200);
    expect(revoked.json()).toEqual({ deletedIds: [other.id] });
    expectError(await asSession(t, cookieB, 'GET', '/api/me'), 401, 'credential_revoked');
    expect((await asSession(t, cookieA, 'GET', '/api/me/sessions')).json()).toEqual([expect.objectContaining({ current: true })]);
  });

  test('POST /api/auth/logout: 204, the cookie cleared, that session 401 afterwards', async () => {
    const user = await createUser(t);
    const cookie = await login(t, user);
    const out = await asSession(t, cookie, 'POST', '/api/auth/logout');
    expect(out.statusCode).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(/^__Host-lt_session=;.*Max-Age=0/);
    expectError(await asSession(t, cookie, 'GET', '/api/me'), 401, 'credential_revoked');
  });

  test('GET/POST /api/workspaces: the caller becomes owner of a free workspace; 400 naming name', async () => {
    const { workspace: w, owner } = await ownedWorkspace(t);
    const created = await asSession(t, owner.cookie, 'POST', '/api/workspaces', { name: 'My second' });
    expect(created.statusCode, created.body).toBe(201);
    const ws = created.json<{ id: string; name: string; plan: string }>();
    expect(ws).toMatchObject({ name: 'My second', plan: 'free' });
    const list = await asSession(t, owner.cookie, 'GET', '/api/workspaces');
    expect(list.statusCode).toBe(200);
    expect(list.json<{ id: string; role: string; name: string }[]>().map((x) => [x.id, x.role])).toEqual([
      [w.id, 'owner'],
      [ws.id, 'owner'],
    ]);
    const me = (await asSession(t, owner.cookie, 'GET', '/api/me')).json<{ workspaces: { id: string; plan: string; role: string; name: string }[] }>();
    expect(me.workspaces).toContainEqual({
      id: ws.id,
      name: 'My second',
      plan: 'free',
      role: 'owner',
      scopes: ALL_SCOPES,
      features: [],
      maxBulkItems: 100,
      requireMfa: false,
    });
    // The new workspace works at once with the session.
    expect((await inWorkspace(owner.cookie, ws.id, 'POST', '/api/tags', [{ name: 'first' }])).statusCode).toBe(201);
    for (const bad of [{}, { name: '' }, { name: 5 }, { name: 'x'.repeat(191) }]) {
      expectError(await asSession(t, owner.cookie, 'POST', '/api/workspaces', bad), 400, 'invalid_field', 'name');
    }
  });

  test('PATCH /api/workspaces/{id}: the owner renames it (GET /api/me shows it); 400 naming name', async () => {
    const { workspace: w, owner } = await ownedWorkspace(t);
    const res = await asSession(t, owner.cookie, 'PATCH', `/api/workspaces/${w.id}`, { name: 'Renamed' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: w.id, name: 'Renamed' });
    expect((await asSession(t, owner.cookie, 'GET', '/api/me')).json().workspaces[0].name).toBe('Renamed');
    expectError(await asSession(t, owner.cookie, 'PATCH', `/api/workspaces/${w.id}`, { name: '' }), 400, 'invalid_field', 'name');
    expectError(await asSession(t, owner.cookie, 'PATCH', `/api/workspaces/${w.id}`, {}), 400, 'invalid_field', 'name');
    expectError(await asSession(t, owner.cookie, 'PATCH', '/api/workspaces/not-a-uuid', { name: 'x' }), 400, 'invalid_path', 'id');
  });
});

// ---------------------------------------------------------------------------------------------

describe('members: role changes, removal, the last owner', () => {
  test('PATCH role: 200 and it holds on the next request of that session; 400 naming role; unknown member 404', async () => {
    const { workspace: w, owner } = await ownedWorkspace(t);
    const member = await signedInMember(t, w.id, 'member');
    expect((await inWorkspace(member.cookie, w.id, 'POST', '/api/tags', [{ name: uniq('t') }])).statusCode).toBe(201);
    const res = await asSession(t, owner.cookie, 'PATCH', `/api/workspaces/${w.id}/members/${member.user.id}`, { role: 'viewer' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ userId: member.user.id, email: member.user.email, name: member.user.name, role: 'viewer', createdAt: expect.any(String) });
    const denied = await inWorkspace(member.cookie, w.id, 'POST', '/api/tags', [{ name: uniq('t') }]);
    expectError(denied, 403, 'missing_scopes');
    expect(denied.json().missingScopes).toEqual(['tagsWrite']);
    expect((await inWorkspace(member.cookie, w.id, 'GET', '/api/tags')).statusCode).toBe(200);
    expect((await asSession(t, member.cookie, 'GET', '/api/me')).json().workspaces).toEqual([expect.objectContaining({ id: w.id, role: 'viewer' })]);
    // Promoted to owner: the settings open at once.
    expect((await asSession(t, owner.cookie, 'PATCH', `/api/workspaces/${w.id}/members/${member.user.id}`, { role: 'owner' })).statusCode).toBe(200);
    expect((await asSession(t, member.cookie, 'GET', `/api/workspaces/${w.id}/keys`)).statusCode).toBe(200);

    for (const bad of [{ role: 'admin' }, {}, { role: null }]) {
      expectError(await asSession(t, owner.cookie, 'PATCH', `/api/workspaces/${w.id}/members/${member.user.id}`, bad), 400, 'invalid_field', 'role');
    }
    expectError(await asSession(t, owner.cookie, 'PATCH', `/api/workspaces/${w.id}/members/${randomUUID()}`, { role: 'member' }), 404, 'not_found');
  });

  test('the only owner can neither be demoted nor removed (400); with two owners one can be demoted, then the other is the last', async () => {
    const { workspace: w, owner } = await ownedWorkspace(t);
    const self = `/api/workspaces/${w.id}/members/${owner.user.id}`;
    for (const role of ['member', 'viewer']) expectError(await asSession(t, owner.cookie, 'PATCH', self, { role }), 400, 'invalid_field', 'role');
    expectError(await asSession(t, owner.cookie, 'DELETE', self), 400, 'invalid_field', 'userId');
    // Keeping the role of the last owner is no change to refuse.
    expect((await asSession(t, owner.cookie, 'PATCH', self, { role: 'owner' })).statusCode).toBe(200);

    const second = await signedInMember(t, w.id, 'owner');
    const demoted = await asSession(t, second.cookie, 'PATCH', self, { role: 'member' });
    expect(demoted.statusCode, demoted.body).toBe(200);
    expect(demoted.json().role).toBe('member');
    // The demoted one lost the settings at once; the second is now the last owner.
    expectError(await asSession(t, owner.cookie, 'GET', `/api/workspaces/${w.id}/keys`), 403, 'owner_required');
    expectError(
      await asSession(t, second.cookie, 'PATCH', `/api/workspaces/${w.id}/members/${second.user.id}`, { role: 'viewer' }),
      400,
      'invalid_field',
      'role',
    );
    expectError(await asSession(t, second.cookie, 'DELETE', `/api/workspaces/${w.id}/members/${second.user.id}`), 400, 'invalid_field', 'userId');
    const members = (await asSession(t, second.cookie, 'GET', `/api/workspaces/${w.id}/members`)).json<{ userId: string; role: string }[]>();
    expect(members.filter((m) => m.role === 'owner').map((m) => m.userId)).toEqual([second.user.id]);
  });

  test('an owner removes a member; a member leaves by themselves; a member cannot remove another (403); each loses access at once', async () => {
    const { workspace: w, owner } = await ownedWorkspace(t);
    const a = await signedInMember(t, w.id, 'member');
    const b = await signedInMember(t, w.id, 'viewer');
    const c = await signedInMember(t, w.id, 'member');

    expectError(await asSession(t, a.cookie, 'DELETE', `/api/workspaces/${w.id}/members/${b.user.id}`), 403, 'owner_required');
    expect((await inWorkspace(b.cookie, w.id, 'GET', '/api/links')).statusCode).toBe(200);

    const left = await asSession(t, a.cookie, 'DELETE', `/api/workspaces/${w.id}/members/${a.user.id}`);
    expect(left.statusCode, left.body).toBe(200);
    expect(left.json()).toEqual({ deletedIds: [a.user.id] });
    expectError(await inWorkspace(a.cookie, w.id, 'GET', '/api/links'), 401, 'not_a_member');
    expectError(await asSession(t, a.cookie, 'GET', `/api/workspaces/${w.id}/members`), 404, 'not_found');
    expect((await asSession(t, a.cookie, 'GET', '/api/me')).json().workspaces).toEqual([]);

    const removed = await asSession(t, owner.cookie, 'DELETE', `/api/workspaces/${w.id}/members/${b.user.id}`);
    expect(removed.statusCode, removed.body).toBe(200);
    expectError(await inWorkspace(b.cookie, w.id, 'GET', '/api/links'), 401, 'not_a_member');
    // A second removal: the member is gone.
    expectError(await asSession(t, owner.cookie, 'DELETE', `/api/workspaces/${w.id}/members/${b.user.id}`), 404, 'not_found');

    const rest = (await asSession(t, owner.cookie, 'GET', `/api/workspaces/${w.id}/members`)).json<{ userId: string }[]>();
    expect(rest.map((m) => m.userId).sort()).toEqual([owner.user.id, c.user.id].sort());
  });
});

// ---------------------------------------------------------------------------------------------

describe('human tokens over HTTP (§8)', () => {
  test('created with the session: ltp_ + 43 characters once, 90-day default expiry, listed without secret; works as Bearer, bare and X-API-Key', async () => {
    const { workspace: w, owner } = await ownedWorkspace(t);
    const before = Date.now();
    const res = await asSession(t, owner.cookie, 'POST', '/api/me/tokens', { name: 'CI script', workspaceId: w.id, scopes: ['linksRead', 'tagsRead'] });
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json<{ id: string; token: string; prefix: string; expiresAt: string; lastUsedAt: string | null; scopes: string[] }>();
    expect(Object.keys(created).sort()).toEqual(['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'prefix', 'scopes', 'token', 'workspaceId']);
    expect(created).toMatchObject({ name: 'CI script', workspaceId: w.id, scopes: ['linksRead', 'tagsRead'], lastUsedAt: null });
    expect(created.token).toMatch(/^ltp_[A-Za-z0-9_-]{43}$/);
    expect(created.token.startsWith(created.prefix)).toBe(true);
    expect(created.prefix.length).toBeLessThan(created.token.length);
    const expires = new Date(created.expiresAt).getTime();
    expect(expires).toBeGreaterThanOrEqual(before + 90 * DAY_MS - 60_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 90 * DAY_MS + 60_000);

    for (const form of ['bearer', 'bare', 'x-api-key'] as const) {
      const links = await withToken(created.token, 'GET', '/api/links', undefined, form);
      expect(links.statusCode, `${form}: ${links.body}`).toBe(200);
    }
    const write = await withToken(created.token, 'POST', '/api/tags', [{ name: 'nope' }]);
    expectError(write, 403, 'missing_scopes');
    expect(write.json().missingScopes).toEqual(['tagsWrite']);

    const list = await asSession(t, owner.cookie, 'GET', '/api/me/tokens');
    expect(list.statusCode).toBe(200);
    const listed = list.json<Record<string, unknown>[]>();
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ id: created.id, name: 'CI script', prefix: created.prefix, scopes: ['linksRead', 'tagsRead'] });
    expect(listed[0]).not.toHaveProperty('token');
    expect(list.body).not.toContain(created.token);
    // Used above, so the list shows it.
    expect(listed[0]!.lastUsedAt).toEqual(expect.any(String));
  });

  test('scopes ∩ current role: demoted to viewer, the next write with the token is 403 while reads stay 200; promoted back, it writes again', async () => {
    const { workspace: w, owner } = await ownedWorkspace(t);
    const collectionId = await newCollection(w);
    const member = await signedInMember(t, w.id, 'member');
    const { token } = await createHumanToken(t, member.cookie, w.id, ['linksRead', 'linksWrite']);
    const link = () => [{ url: `https://example.com/${uniq('h')}`, collectionId }];
    expect((await withToken(token, 'POST', '/api/links', link())).statusCode).toBe(201);

    expect((await asSession(t, owner.cookie, 'PATCH', `/api/workspaces/${w.id}/members/${member.user.id}`, { role: 'viewer' })).statusCode).toBe(200);
    const denied = await withToken(token, 'POST', '/api/links', link());
    expectError(denied, 403, 'missing_scopes');
    expect(denied.json().missingScopes).toEqual(['linksWrite']);
    const read = await withToken(token, 'GET', '/api/links');
    expect(read.statusCode).toBe(200);
    expect(read.json()).toHaveLength(1);

    expect((await asSession(t, owner.cookie, 'PATCH', `/api/workspaces/${w.id}/members/${member.user.id}`, { role: 'member' })).statusCode).toBe(200);
    expect((await withToken(token, 'POST', '/api/links', link(), 'x-api-key')).statusCode).toBe(201);
  });

  test('removal from the workspace ends the token at once; so does leaving', async () => {
    const { workspace: w, owner } = await ownedWorkspace(t);
    const removedOne = await signedInMember(t, w.id, 'member');
    const leaver = await signedInMember(t, w.id, 'viewer');
    const t1 = (await createHumanToken(t, removedOne.cookie, w.id, ['linksRead'])).token;
    const t2 = (await createHumanToken(t, leaver.cookie, w.id, ['linksRead'])).token;
    expect((await withToken(t1, 'GET', '/api/links')).statusCode).toBe(200);
    expect((await withToken(t2, 'GET', '/api/links')).statusCode).toBe(200);

    expect((await asSession(t, owner.cookie, 'DELETE', `/api/workspaces/${w.id}/members/${removedOne.user.id}`)).statusCode).toBe(200);
    expect((await asSession(t, leaver.cookie, 'DELETE', `/api/workspaces/${w.id}/members/${leaver.user.id}`)).statusCode).toBe(200);
    for (const token of [t1, t2]) {
      expectError(await withToken(token, 'GET', '/api/links'), 401, 'credential_revoked');
    }
    // Invited back (accepting empties the credential caches), the old token stays dead: it was revoked, not only orphaned.
    const again = await asSession(t, owner.cookie, 'POST', `/api/workspaces/${w.id}/invites`, { email: removedOne.user.email, role: 'member' });
    expect(again.statusCode, again.body).toBe(201);
    const token = new URL(again.json<{ url: string }>().url).searchParams.get('token');
    const accepted = await t.inject({ method: 'POST', url: '/api/invites/accept', headers: { cookie: removedOne.cookie }, payload: { token } });
    expect(accepted.statusCode, accepted.body).toBe(201);
    expect((await inWorkspace(removedOne.cookie, w.id, 'GET', '/api/links')).statusCode).toBe(200);
    expectError(await withToken(t1, 'GET', '/api/links'), 401, 'credential_revoked');
    const fresh = await createHumanToken(t, removedOne.cookie, w.id, ['linksRead']);
    expect((await withToken(fresh.token, 'GET', '/api/links')).statusCode).toBe(200);
  });

  test('DELETE /api/me/tokens/{id}: 401 at once; another user cannot revoke it (404)', async () => {
    const { workspace: w, owner } = await ownedWorkspace(t);
    const created = await createHumanToken(t, owner.cookie, w.id, ['linksRead']);
    expect((await withToken(created.token, 'GET', '/api/links')).statusCode).toBe(200);
    const stranger = await signedInMember(t, w.id, 'member');
    expectError(await asSession(t, stranger.cookie, 'DELETE', `/api/me/tokens/${created.id}`), 404, 'not_found');
    expect((await withToken(created.token, 'GET', '/api/links')).statusCode).toBe(200);

    const res = await asSession(t, owner.cookie, 'DELETE', `/api/me/tokens/${created.id}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ deletedIds: [created.id] });
    expectError(await withToken(created.token, 'GET', '/api/links'), 401, 'credential_revoked');
    expectError(await withToken(created.token, 'GET', '/api/me'), 401, 'credential_revoked');
  });

  test('creation refused: a scope outside the role (400 naming scopes[i]), a workspace not one’s own, bad bodies', async () => {
    const { workspace: w } = await ownedWorkspace(t);
    const viewer = await signedInMember(t, w.id, 'viewer');
    const post = (payload: unknown) => asSession(t, viewer.cookie, 'POST', '/api/me/tokens', payload);
    expectError(await post({ name: 'x', workspaceId: w.id, scopes: ['linksRead', 'linksWrite'] }), 400, 'invalid_field', 'scopes[1]');
    expectError(await post({ name: 'x', workspaceId: w.id, scopes: ['conversionsWrite'] }), 400, 'invalid_field', 'scopes[0]');
    const foreign = await t.workspace();
    expectError(await post({ name: 'x', workspaceId: foreign.id, scopes: ['linksRead'] }), 400, 'invalid_field', 'workspaceId');
    expectError(await post({ name: 'x', workspaceId: randomUUID(), scopes: ['linksRead'] }), 400, 'invalid_field', 'workspaceId');
    expectError(await post({ name: 'x', workspaceId: 'nope', scopes: ['linksRead'] }), 400, 'invalid_field', 'workspaceId');
    expectError(await post({ name: 'x', workspaceId: w.id, scopes: [] }), 400, 'invalid_field', 'scopes');
    expectError(await post({ name: 'x', workspaceId: w.id, scopes: ['everything'] }), 400, 'invalid_field', 'scopes[0]');
    expectError(await post({ workspaceId: w.id, scopes: ['linksRead'] }), 400, 'invalid_field', 'name');
    expectError(
      await post({ name: 'x', workspaceId: w.id, scopes: ['linksRead'], expiresAt: new Date(Date.now() - 60_000).toISOString() }),
      400,
      'invalid_field',
      'expiresAt',
    );
    expectError(
      await post({ name: 'x', workspaceId: w.id, scopes: ['linksRead'], expiresAt: new Date(Date.now() + 400 * DAY_MS).toISOString() }),
      400,
      'invalid_field',
      'expiresAt',
    );
    expectError(await post({ name: 'x', workspaceId: w.id, scopes: ['linksRead'], expiresAt: 'soon' }), 400, 'invalid_field', 'expiresAt');
    expect((await asSession(t, viewer.cookie, 'GET', '/api/me/tokens')).json()).toEqual([]);
    // Within the role and a year: accepted, with the asked expiry.
    const at = new Date(Date.now() + 30 * DAY_MS).toISOString();
    const ok = await post({ name: 'x', workspaceId: w.id, scopes: ['linksRead', 'analyticsRead'], expiresAt: at });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(new Date(ok.json().expiresAt).getTime()).toBe(new Date(at).getTime());
  });
});

// ---------------------------------------------------------------------------------------------

describe('invitations over HTTP', () => {
  async function invite(owner: SignedIn, workspaceId: string, email: string, role: Role) {
    const res = await asSession(t, owner.cookie, 'POST', `/api/workspaces/${workspaceId}/invites`, { email, role });
    expect(res.statusCode, res.body).toBe(201);
    const made = res.json<{ id: string; email: string; role: Role; url: string; expiresAt: string }>();
    const token = new URL(made.url).searchParams.get('token')!;
    return { ...made, token };
  }
  const accept = (payload: unknown, cookie?: string) =>
    t.inject({ method: 'POST', url: '/api/invites/accept', headers: cookie ? { cookie } : {}, payload: payload as object });

  test('a new account: accept without a cookie with name and password → 201 membership + a working cookie with the invited role', async () => {
    const { workspace: w, owner } = await ownedWorkspace(t);
    const email = uniqueEmail('newcomer');
    const made = await invite(owner, w.id, email, 'viewer');
    expect(Object.keys(made).sort()).toEqual(['email', 'expiresAt', 'id', 'mailed', 'role', 'token', 'url']);
    expect(made).toMatchObject({ email, role: 'viewer' });
    expect(made.url.startsWith(`${ORIGIN}/app/invite?token=`)).toBe(true);
    expect(made.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const ttl = new Date(made.expiresAt).getTime() - Date.now();
    expect(ttl).toBeGreaterThan(7 * DAY_MS - 60_000);
    expect(ttl).toBeLessThanOrEqual(7 * DAY_MS);

    // The pending list shows it without its token.
    const pending = await asSession(t, owner.cookie, 'GET', `/api/workspaces/${w.id}/invites`);
    expect(pending.statusCode).toBe(200);
    expect(pending.json()).toEqual([expect.objectContaining({ id: made.id, email, role: 'viewer', invitedBy: owner.user.id })]);
    expect(pending.body).not.toContain(made.token);

    expectError(await accept({ token: made.token, name: 'New Person' }), 400, 'invalid_field', 'password');
    expectError(await accept({ token: made.token, password: PASSWORD }), 400, 'invalid_field', 'name');
    expectError(await accept({ token: made.token, name: 'New Person', password: 'short' }), 400, 'invalid_field', 'password');

    const res = await accept({ token: made.token, name: 'New Person', password: PASSWORD });
    expect(res.statusCode, res.body).toBe(201);
    const member = res.json<{ workspaceId: string; userId: string; role: string }>();
    expect(member).toEqual({ workspaceId: w.id, userId: expect.any(String), role: 'viewer', createdAt: expect.any(String) });
    const cookie = sessionCookieFrom(res);
    expect(cookie).toMatch(/^__Host-lt_session=[A-Za-z0-9_-]{43}$/);
    expect(String(res.headers['set-cookie'])).toMatch(/HttpOnly; SameSite=Lax; Secure/);

    const me = await asSession(t, cookie, 'GET', '/api/me');
    expect(me.statusCode, me.body).toBe(200);
    expect(me.json()).toMatchObject({ user: { id: member.userId, email, name: 'New Person' }, workspaces: [{ id: w.id, role: 'viewer' }] });
    expect((await inWorkspace(cookie, w.id, 'GET', '/api/links')).statusCode).toBe(200);
    expectError(await inWorkspace(cookie, w.id, 'POST', '/api/tags', [{ name: 'x' }]), 403, 'missing_scopes');
    expect((await loginRequest(t, email, PASSWORD)).statusCode).toBe(200);
    // Used: gone from the pending list, and a second accept fails.
    expect((await asSession(t, owner.cookie, 'GET', `/api/workspaces/${w.id}/invites`)).json()).toEqual([]);
    expectError(await accept({ token: made.token, name: 'Again', password: PASSWORD }), 400, 'invalid_field', 'token');
    expectError(await accept({ token: made.token }, cookie), 400, 'invalid_field', 'token');
  });

  test('a new account is never signed in from another site (login CSRF): 403, no cookie, the invite stays usable', async () => {
    const { workspace: w, owner } = await ownedWorkspace(t);
    const made = await invite(owner, w.id, uniqueEmail('csrf'), 'member');
    const body = { token: made.token, name: 'New Person', password: PASSWORD };
    for (const headers of [{ origin: 'https://evil.test' }, { 'sec-fetch-site': 'cross-site' }]) {
      const res = await t.inject({ method: 'POST', url: '/api/invites/accept', headers, payload: body });
      expectError(res, 403, 'cross_site_sign_in');
      expect(res.headers['set-cookie']).toBeUndefined();
    }
    const res = await t.inject({ method: 'POST', url: '/api/invites/accept', headers: { origin: ORIGIN }, payload: body });
    expect(res.statusCode, res.body).toBe(201);
  });

  test('an existing account accepts with its session; without one it is told to sign in (400); single use', async () => {
    const { workspace: w, owner } = await ownedWorkspace(t);
    const user = await createUser(t);
    const made = await invite(owner, w.id, user.email.toUpperCase(), 'member');
    expectError(await accept({ token: made.token, name: 'Impostor', password: PASSWORD }), 400, 'invalid_field', 'token');
    const cookie = await login(t, user);
    const res = await accept({ token: made.token }, cookie);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toEqual({ workspaceId: w.id, userId: user.id, role: 'member', createdAt: expect.any(String) });
    expect(res.headers['set-cookie']).toBeUndefined();
    const mine = (await asSession(t, cookie, 'GET', '/api/workspaces')).json<{ id: string; role: string }[]>();
    expect(mine.map((x) => [x.id, x.role])).toEqual([[w.id, 'member']]);
    expect((await inWorkspace(cookie, w.id, 'POST', '/api/tags', [{ name: uniq('t') }])).statusCode).toBe(201);
    expectError(await accept({ token: made.token }, cookie), 400, 'invalid_field', 'token');
  });

  test('the wrong account’s session: 400, and the invite stays usable by the right one', async () => {
    const { workspace: w, owner } = await ownedWorkspace(t);
    const invited = await createUser(t);
    const other = await signedInMember(t, null, 'member');
    const made = await invite(owner, w.id, invited.email, 'member');
    expectError(await accept({ token: made.token }, other.cookie), 400, 'invalid_field', 'token');
    expect((await asSession(t, other.cookie, 'GET', '/api/me')).json().workspaces).toEqual([]);
    expect((await accept({ token: made.token }, await login(t, invited))).statusCode).toBe(201);
  });

  test('a withdrawn invite: DELETE 200, then accept 400; a bad or missing token 400; bad invite bodies name the field', async () => {
    const { workspace: w, owner } = await ownedWorkspace(t);
    const made = await invite(owner, w.id, uniqueEmail('withdrawn'), 'member');
    const del = await asSession(t, owner.cookie, 'DELETE', `/api/workspaces/${w.id}/invites/${made.id}`);
    expect(del.statusCode, del.body).toBe(200);
    expect(del.json()).toEqual({ deletedIds: [made.id] });
    expect((await asSession(t, owner.cookie, 'GET', `/api/workspaces/${w.id}/invites`)).json()).toEqual([]);
    expectError(await accept({ token: made.token, name: 'Late', password: PASSWORD }), 400, 'invalid_field', 'token');
    expectError(await asSession(t, owner.cookie, 'DELETE', `/api/workspaces/${w.id}/invites/${made.id}`), 404, 'not_found');

    expectError(await accept({ name: 'N', password: PASSWORD }), 400, 'invalid_field', 'token');
    expectError(await accept({ token: 'A'.repeat(43), name: 'N', password: PASSWORD }), 400, 'invalid_field', 'token');
    const post = (payload: unknown) => asSession(t, owner.cookie, 'POST', `/api/workspaces/${w.id}/invites`, payload);
    expectError(await post({ email: 'not an email', role: 'member' }), 400, 'invalid_field', 'email');
    expectError(await post({ email: uniqueEmail(), role: 'boss' }), 400, 'invalid_field', 'role');
    expectError(await post({ email: uniqueEmail() }), 400, 'invalid_field', 'role');
    expect((await asSession(t, owner.cookie, 'GET', `/api/workspaces/${w.id}/invites`)).json()).toEqual([]);
  });
});

describe('invitation and token expiry (a clock the test moves)', () => {
  test('an invite accepted 1 s before 7 days works; 7 days + 1 s later it is 400; a human token expires with its default 90 days', async () => {
    const clock = mutableClock(new Date());
    const c = await startTestApp({ clock: clock.now });
    try {
      const w = await c.workspace();
      const owner = await createUser(c);
      await addMember(c, w.id, owner.id, 'owner');
      const cookie = await login(c, owner);
      const inviteOf = async (email: string) => {
        const res = await c.inject({ method: 'POST', url: `/api/workspaces/${w.id}/invites`, headers: { cookie }, payload: { email, role: 'member' } });
        expect(res.statusCode, res.body).toBe(201);
        const made = res.json<{ url: string; expiresAt: string }>();
        expect(new Date(made.expiresAt).getTime()).toBe(clock.now().getTime() + 7 * DAY_MS);
        return new URL(made.url).searchParams.get('token')!;
      };
      const early = await inviteOf(uniqueEmail('early'));
      const late = await inviteOf(uniqueEmail('late'));
      const accept = (token: string) => c.inject({ method: 'POST', url: '/api/invites/accept', payload: { token, name: 'N', password: PASSWORD } });

      const tokenRes = await c.inject({
        method: 'POST',
        url: '/api/me/tokens',
        headers: { cookie },
        payload: { name: 'n', workspaceId: w.id, scopes: ['linksRead'] },
      });
      expect(tokenRes.statusCode, tokenRes.body).toBe(201);
      const human = tokenRes.json<{ token: string; expiresAt: string }>();
      // The default expiry is exactly 90 days from the server's clock.
      expect(new Date(human.expiresAt).getTime()).toBe(clock.now().getTime() + 90 * DAY_MS);

      clock.advance(7 * DAY_MS - 1000);
      expect((await accept(early)).statusCode).toBe(201);
      clock.advance(2000);
      expectError(await accept(late), 400, 'invalid_field', 'token');

      expect((await c.inject({ method: 'GET', url: '/api/links', headers: bearer(human.token) })).statusCode).toBe(200);
      clock.advance(83 * DAY_MS);
      expectError(await c.inject({ method: 'GET', url: '/api/links', headers: bearer(human.token) }), 401, 'credential_expired');
    } finally {
      await c.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('the workspace’s API keys in the settings', () => {
  test('the owner creates a key (shown once; works on /api/links within its scopes), lists it without secret, revokes it (401 at once)', async () => {
    const { workspace: w, owner } = await ownedWorkspace(t);
    const keys = `/api/workspaces/${w.id}/keys`;
    const created = await asSession(t, owner.cookie, 'POST', keys, { name: 'Zapier', scopes: ['linksRead'] });
    expect(created.statusCode, created.body).toBe(201);
    const key = created.json<{ id: string; key: string; name: string; scopes: string[]; prefix: string; workspaceId: string; revokedAt: string | null }>();
    expect(key).toMatchObject({ name: 'Zapier', scopes: ['linksRead'], workspaceId: w.id, revokedAt: null });
    expect(key.key.length).toBeGreaterThan(20);
    expect(key.key.startsWith(key.prefix)).toBe(true);

    expect((await withToken(key.key, 'GET', '/api/links')).statusCode).toBe(200);
    const write = await withToken(key.key, 'POST', '/api/tags', [{ name: 'x' }]);
    expectError(write, 403, 'missing_scopes');
    expect(write.json().missingScopes).toEqual(['tagsWrite']);

    const list = await asSession(t, owner.cookie, 'GET', keys);
    expect(list.statusCode).toBe(200);
    const listed = list.json<Record<string, unknown>[]>();
    const mine = listed.find((k) => k.id === key.id)!;
    expect(mine).toMatchObject({ id: key.id, name: 'Zapier', prefix: key.prefix, revokedAt: null });
    expect(mine).not.toHaveProperty('key');
    expect(list.body).not.toContain(key.key);
    // The operator's fixture key is listed too: the same workspace.
    expect(listed.length).toBeGreaterThanOrEqual(2);

    const del = await asSession(t, owner.cookie, 'DELETE', `${keys}/${key.id}`);
    expect(del.statusCode, del.body).toBe(200);
    expect(del.json()).toEqual({ deletedIds: [key.id] });
    expectError(await withToken(key.key, 'GET', '/api/links'), 401, 'credential_revoked');
    const after = (await asSession(t, owner.cookie, 'GET', keys)).json<{ id: string; revokedAt: string | null }[]>();
    expect(after.find((k) => k.id === key.id)!.revokedAt).toEqual(expect.any(String));
    // The fixture key still works: only that one was revoked.
    expect((await withToken(w.key, 'GET', '/api/links')).statusCode).toBe(200);
  });

  test('bad key bodies name the field; a key of another workspace cannot be revoked through this one', async () => {
    const { workspace: w, owner } = await ownedWorkspace(t);
    const post = (payload: unknown) => asSession(t, owner.cookie, 'POST', `/api/workspaces/${w.id}/keys`, payload);
    expectError(await post({ name: 'k', scopes: ['nope'] }), 400, 'invalid_field', 'scopes[0]');
    expectError(await post({ name: 'k', scopes: [] }), 400, 'invalid_field', 'scopes');
    expectError(await post({ scopes: ['linksRead'] }), 400, 'invalid_field', 'name');
    expectError(await post({ name: 'k', scopes: ['linksRead'], expiresAt: 'tomorrow' }), 400, 'invalid_field', 'expiresAt');

    const other = await t.workspace();
    const foreignKey = await other.newKey(['linksRead']);
    expectError(await asSession(t, owner.cookie, 'DELETE', `/api/workspaces/${w.id}/keys/${foreignKey.id}`), 404, 'not_found');
    expect((await withToken(foreignKey.key, 'GET', '/api/links')).statusCode).toBe(200);
  });

  test('viewer and member: 403 owner_required on create, list and revoke; the key stays alive', async () => {
    const { workspace: w } = await ownedWorkspace(t);
    const live = await w.newKey(['linksRead']);
    for (const role of ['viewer', 'member'] as const) {
      const p = await signedInMember(t, w.id, role);
      expectError(await asSession(t, p.cookie, 'POST', `/api/workspaces/${w.id}/keys`, { name: 'k', scopes: ['linksRead'] }), 403, 'owner_required');
      expectError(await asSession(t, p.cookie, 'GET', `/api/workspaces/${w.id}/keys`), 403, 'owner_required');
      expectError(await asSession(t, p.cookie, 'DELETE', `/api/workspaces/${w.id}/keys/${live.id}`), 403, 'owner_required');
    }
    expect((await withToken(live.key, 'GET', '/api/links')).statusCode).toBe(200);
  });
});
