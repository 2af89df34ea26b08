/**
 * The two scopes of operations.md §11 (rules before it): `webhooksRead` and `webhooksWrite`
 * are scopes like the others — independent (they open no api.md route), the owner's role has
 * them, member and viewer do not (§7's table otherwise unchanged), and every credential kind
 * follows: keys, human tokens (∩ role), OAuth apps (consent only where the role allows), the
 * discovery metadata. Through HTTP; PGlite, and PostgreSQL + Redis with DATABASE_URL/REDIS_URL.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Scope } from '../../../src/core/scopes.js';
import { bearer, startTestApp, type TestApp, type WorkspaceFixture } from '../../helpers/app.js';
import { pkce, registerApp, authorizeParams } from '../oauth/helpers.js';
import { asSession, createHumanToken, expectError, ownedWorkspace, signedInMember, type Role, type SignedIn } from './helpers.js';

const WEBHOOK_SCOPES: Scope[] = ['webhooksRead', 'webhooksWrite'];

let t: TestApp;
let w: WorkspaceFixture;
const people = {} as Record<Role, SignedIn>;

beforeAll(async () => {
  t = await startTestApp();
  ({ workspace: w, owner: people.owner } = await ownedWorkspace(t));
  people.member = await signedInMember(t, w.id, 'member');
  people.viewer = await signedInMember(t, w.id, 'viewer');
});
afterAll(() => t.close());

/** A request of api.md's with `credential`, and its scope (one read, one write, of different resources). */
const API_MD_PROBES: [method: 'GET' | 'POST', url: string, scope: Scope][] = [
  ['GET', '/api/links', 'linksRead'],
  ['GET', '/api/tags', 'tagsRead'],
  ['POST', '/api/collections', 'collectionsWrite'],
  ['GET', '/api/analytics', 'analyticsRead'],
];

async function expectRefusedEverywhere(credential: string): Promise<void> {
  for (const [method, url, scope] of API_MD_PROBES) {
    const res = await t.inject({ method, url, headers: bearer(credential), payload: method === 'POST' ? [{ name: 'x' }] : undefined });
    expectError(res, 403, 'missing_scopes');
    expect(res.json().missingScopes, `${method} ${url}`).toEqual([scope]);
  }
}

describe('webhooksRead and webhooksWrite open no route of api.md', () => {
  test('an API key with only webhooksRead (or both webhook scopes) is 403 missingScopes on linksRead and the other routes', async () => {
    await expectRefusedEverywhere((await w.newKey(['webhooksRead'])).key);
    await expectRefusedEverywhere((await w.newKey(WEBHOOK_SCOPES)).key);
    // The control: the same request with linksRead passes the scope check.
    expect((await t.inject({ method: 'GET', url: '/api/links', headers: bearer((await w.newKey(['linksRead'])).key) })).statusCode).toBe(200);
  });

  test("the owner's human token with only webhooksRead is 403 missingScopes on GET /api/links", async () => {
    const token = await createHumanToken(t, people.owner.cookie, w.id, ['webhooksRead']);
    expect(token.scopes).toEqual(['webhooksRead']);
    await expectRefusedEverywhere(token.token);
  });

  test('the owner creates a workspace key with the webhook scopes in the settings (201, scopes kept)', async () => {
    const res = await asSession(t, people.owner.cookie, 'POST', `/api/workspaces/${w.id}/keys`, { name: 'hooks', scopes: WEBHOOK_SCOPES });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().scopes).toEqual(WEBHOOK_SCOPES);
  });
});

describe('§7 role table: the owner has both webhook scopes, member and viewer neither', () => {
  const meScopes = async (role: Role): Promise<string[]> => {
    const res = await asSession(t, people[role].cookie, 'GET', '/api/me');
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ workspaces: { id: string; scopes: string[] }[] }>().workspaces.find((x) => x.id === w.id)!.scopes;
  };

  test("GET /api/me: owner 16 scopes with both; member the twelve of api.md and the program's two; viewer the seven reads", async () => {
    const owner = await meScopes('owner');
    expect(owner).toHaveLength(16);
    expect(owner).toEqual(expect.arrayContaining(WEBHOOK_SCOPES));
    const member = await meScopes('member');
    expect(member).toHaveLength(14);
    const viewer = await meScopes('viewer');
    expect(viewer).toHaveLength(7);
    for (const scope of WEBHOOK_SCOPES) {
      expect(member).not.toContain(scope);
      expect(viewer).not.toContain(scope);
    }
  });

  test.each(['member', 'viewer'] as const)('a %s cannot make a human token with a webhook scope (400 scopes[i], scope_not_in_role)', async (role) => {
    for (const scope of WEBHOOK_SCOPES) {
      const res = await asSession(t, people[role].cookie, 'POST', '/api/me/tokens', { name: 'x', workspaceId: w.id, scopes: ['linksRead', scope] });
      expectError(res, 400, 'invalid_field', 'scopes[1]');
    }
  });

  test('an owner demoted to member loses the webhook scopes at once (GET /api/me with their token) and the token still reads links', async () => {
    const { workspace, owner } = await ownedWorkspace(t);
    const second = await signedInMember(t, workspace.id, 'owner');
    const token = await createHumanToken(t, owner.cookie, workspace.id, ['linksRead', 'webhooksRead']);
    const demote = await asSession(t, second.cookie, 'PATCH', `/api/workspaces/${workspace.id}/members/${owner.user.id}`, { role: 'member' });
    expect(demote.statusCode, demote.body).toBe(200);
    const me = await t.inject({ method: 'GET', url: '/api/me', headers: bearer(token.token) });
    expect(me.statusCode, me.body).toBe(200);
    expect(me.json().workspaces.find((x: { id: string }) => x.id === workspace.id).scopes).not.toContain('webhooksRead');
    expect((await t.inject({ method: 'GET', url: '/api/links', headers: bearer(token.token) })).statusCode).toBe(200);
  });
});

describe('OAuth (§9): the webhook scopes are supported, and consent offers only workspaces whose role allows them', () => {
  test('scopes_supported lists all sixteen', async () => {
    const res = await t.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
    const supported = res.json<{ scopes_supported: string[] }>().scopes_supported;
    expect(supported).toHaveLength(16);
    expect(supported).toEqual(expect.arrayContaining(WEBHOOK_SCOPES));
  });

  test('an app asking webhooksRead: the owner may choose the workspace, its member and viewer may not', async () => {
    const app = await registerApp(t, people.owner, w.id, { scopes: ['linksRead', 'webhooksRead'] });
    const query = new URLSearchParams(authorizeParams(app, pkce().challenge)).toString();
    const eligible = async (role: Role) => {
      const res = await asSession(t, people[role].cookie, 'GET', `/api/oauth/authorize?${query}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().scopes).toEqual(['linksRead', 'webhooksRead']);
      return res.json<{ workspaces: { id: string }[] }>().workspaces.map((x) => x.id);
    };
    expect(await eligible('owner')).toContain(w.id);
    expect(await eligible('member')).not.toContain(w.id);
    expect(await eligible('viewer')).not.toContain(w.id);
  });
});
