import type { RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { routeTable } from '../../src/http/server.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { asSession, expectError, ownedWorkspace, signedInMember, type SignedIn } from '../modules/people/helpers.js';

/**
 * Who may call a person's settings route is declared in its config (`workspaceRole`), as scopes
 * are, and enforced by http/auth.ts: walked over every route the app registered, so a settings
 * route added later without a declaration, or with one that is not enforced, fails here.
 */
let t: TestApp;
let workspaceId: string;
let viewer: SignedIn;
let stranger: SignedIn;

beforeAll(async () => {
  t = await startTestApp();
  const { workspace } = await ownedWorkspace(t);
  workspaceId = workspace.id;
  viewer = await signedInMember(t, workspaceId, 'viewer');
  stranger = await signedInMember(t, null, 'viewer');
});

afterAll(async () => {
  await t?.close();
});

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
interface SettingsRoute {
  method: Method;
  url: string;
  role?: 'member' | 'owner';
}

/** Every route acting in the workspace of its path's `:id` for a signed-in person. */
function workspaceSettingsRoutes(): SettingsRoute[] {
  return routeTable(t.runtime.app)
    .filter((r: RouteOptions) => r.url.startsWith('/api/workspaces/:id'))
    .flatMap((r) =>
      (Array.isArray(r.method) ? r.method : [r.method]).map((m) => ({
        method: String(m).toUpperCase() as Method,
        url: r.url,
        role: (r.config as { workspaceRole?: 'member' | 'owner' } | undefined)?.workspaceRole,
      })),
    )
    .filter((r) => (r.method as string) !== 'HEAD');
}

/** A body each route's schema accepts, so the request reaches the role check (validation runs first). */
const VALID_BODIES: Record<string, unknown> = {
  'PATCH /api/workspaces/:id': { name: 'Renamed' },
  'PATCH /api/workspaces/:id/members/:userId': { role: 'viewer' },
  'POST /api/workspaces/:id/invites': { email: 'someone@example.com', role: 'viewer' },
  'POST /api/workspaces/:id/keys': { name: 'k', scopes: ['linksRead'] },
  'POST /api/workspaces/:id/oauth-apps': { name: 'App', redirectUris: ['https://app.example.com/cb'], confidential: true, scopes: ['linksRead'] },
  'PATCH /api/workspaces/:id/oauth-apps/:appId': { name: 'App 2' },
};

const OTHER_ID = '0b6c3c4e-2f2a-4c55-9a0e-5c7d2b1e9f10';
const concrete = (url: string, id: string) => url.replace(':id', id).replace(/:[A-Za-z_]\w*/g, OTHER_ID);

function call(r: SettingsRoute, who: SignedIn, id = workspaceId) {
  const body = VALID_BODIES[`${r.method} ${r.url}`];
  return asSession(t, who.cookie, r.method, concrete(r.url, id), body);
}

describe('settings routes declare the role they need in the workspace of :id', () => {
  test('every /api/workspaces/:id route declares workspaceRole (member or owner)', () => {
    const routes = workspaceSettingsRoutes();
    expect(routes.length).toBeGreaterThanOrEqual(15);
    expect(routes.filter((r) => r.role === undefined).map((r) => `${r.method} ${r.url}`)).toEqual([]);
  });

  test('a body is known for every route that takes one', () => {
    const withBody = workspaceSettingsRoutes().filter((r) => r.method === 'POST' || r.method === 'PATCH' || r.method === 'PUT');
    const missing = withBody.map((r) => `${r.method} ${r.url}`).filter((k) => !(k in VALID_BODIES) && !k.endsWith('/secret'));
    expect(missing).toEqual([]);
  });

  test('a person who is not a member: 404 not_found on every one (whether the workspace exists is none of their business)', async () => {
    for (const r of workspaceSettingsRoutes()) expectError(await call(r, stranger), 404, 'not_found');
  });

  test('a viewer: 403 owner_required on every owner route; member routes let them past the check', async () => {
    for (const r of workspaceSettingsRoutes()) {
      const res = await call(r, viewer);
      if (r.role === 'owner') expectError(res, 403, 'owner_required');
      // Past the role check the route's own rules answer (removing someone else is an owner's
      // right: the service says so); what must not come back is the check's non-member 404.
      else expect(res.statusCode === 404 && res.body.includes('workspace'), `${r.method} ${r.url}: ${res.body}`).toBe(false);
    }
    expect((await asSession(t, viewer.cookie, 'GET', `/api/workspaces/${workspaceId}/members`)).statusCode).toBe(200);
  });

  test('a malformed :id is a 400 before any membership is looked up', async () => {
    for (const r of workspaceSettingsRoutes()) expect((await call(r, stranger, 'not-a-uuid')).statusCode, `${r.method} ${r.url}`).toBe(400);
  });
});
