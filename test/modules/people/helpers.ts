/**
 * Shared helpers for the people tests (operations.md §7, §8): users made through the operator
 * API, memberships, sign-in through POST /api/auth/login, and the headers a browser or a
 * client sends. Everything goes through HTTP (t.inject), the way a client calls.
 */
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { Scope } from '../../../src/core/scopes.js';
import type { TestApp } from '../../helpers/app.js';

export type Role = 'owner' | 'member' | 'viewer';

/** The test config's BASE_URL origin (test/helpers/app.ts). */
export const ORIGIN = 'https://lt.test';
/** Long and not on the common-password list. */
export const PASSWORD = 'a long enough secret phrase';
export const COOKIE_NAME = '__Host-lt_session';
export const DAY_MS = 24 * 3600_000;

export interface TestUser {
  id: string;
  email: string;
  name: string;
  password: string;
}

/** A person signed in: their user and the `Cookie` header value `__Host-lt_session=…`. */
export interface SignedIn {
  user: TestUser;
  cookie: string;
}

/** An address no other test (or earlier run on a shared PostgreSQL) uses. */
export const uniqueEmail = (label = 'p') => `${label}-${Math.random().toString(36).slice(2)}${Date.now().toString(36)}@example.com`;

/** A user made by the operator API (POST /admin/users). */
export async function createUser(t: TestApp, opts: { email?: string; name?: string; password?: string } = {}): Promise<TestUser> {
  const input = { email: opts.email ?? uniqueEmail(), name: opts.name ?? 'Test Person', password: opts.password ?? PASSWORD };
  const res = await t.admin('POST', '/users', input);
  if (res.statusCode !== 201) throw new Error(`user create failed: ${res.statusCode} ${res.body}`);
  const { id } = res.json<{ id: string }>();
  return { id, email: input.email, name: input.name, password: input.password };
}

/** Adds a membership with the operator API (POST /admin/workspaces/{id}/members). */
export async function addMember(t: TestApp, workspaceId: string, userId: string, role: Role): Promise<void> {
  const res = await t.admin('POST', `/workspaces/${workspaceId}/members`, { userId, role });
  if (res.statusCode !== 201) throw new Error(`member add failed: ${res.statusCode} ${res.body}`);
}

/** The raw login answer (for tests of the cookie itself). */
export function loginRequest(t: TestApp, email: string, password: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return t.inject({ method: 'POST', url: '/api/auth/login', headers, payload: { email, password } });
}

/** `name=value` of the session cookie an answer sets (any cookie name ending in lt_session). */
export function sessionCookieFrom(res: LightMyRequestResponse): string {
  const raw = res.headers['set-cookie'];
  const all = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  const found = all.find((c) => /^(__Host-)?lt_session=/.test(c));
  if (!found) throw new Error(`no session cookie in ${res.statusCode} ${JSON.stringify(raw)}`);
  return found.split(';')[0]!;
}

/** Signs in through POST /api/auth/login and returns the `Cookie` header value. */
export async function login(t: TestApp, user: Pick<TestUser, 'email' | 'password'>): Promise<string> {
  const res = await loginRequest(t, user.email, user.password);
  if (res.statusCode !== 200) throw new Error(`login failed: ${res.statusCode} ${res.body}`);
  return sessionCookieFrom(res);
}

/** A new user, a member of `workspaceId` with `role` (unless null), signed in. */
export async function signedInMember(t: TestApp, workspaceId: string | null, role: Role, opts: { name?: string } = {}): Promise<SignedIn> {
  const user = await createUser(t, { name: opts.name });
  if (workspaceId) await addMember(t, workspaceId, user.id, role);
  return { user, cookie: await login(t, user) };
}

/** A workspace made by the operator (enterprise, with an all-scope key) and its signed-in owner. */
export async function ownedWorkspace(t: TestApp): Promise<{ workspace: Awaited<ReturnType<TestApp['workspace']>>; owner: SignedIn }> {
  const workspace = await t.workspace();
  return { workspace, owner: await signedInMember(t, workspace.id, 'owner', { name: 'Owner' }) };
}

/** Headers of a first-party request with the session: the cookie, and the workspace when given. */
export function sessionHeaders(cookie: string, workspaceId?: string): Record<string, string> {
  return workspaceId ? { cookie, 'x-workspace-id': workspaceId } : { cookie };
}

/** A request with the session cookie (and X-Workspace-Id when given). */
export function asSession(
  t: TestApp,
  cookie: string,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  payload?: unknown,
  opts: { workspaceId?: string; headers?: Record<string, string> } = {},
): Promise<LightMyRequestResponse> {
  return t.inject({ method, url, headers: { ...sessionHeaders(cookie, opts.workspaceId), ...opts.headers }, payload: payload as object });
}

export interface CreatedHumanToken {
  id: string;
  name: string;
  workspaceId: string;
  scopes: Scope[];
  prefix: string;
  expiresAt: string;
  createdAt: string;
  lastUsedAt: string | null;
  token: string;
}

/** POST /api/me/tokens with the session; throws unless 201. */
export async function createHumanToken(
  t: TestApp,
  cookie: string,
  workspaceId: string,
  scopes: readonly Scope[],
  extra: { name?: string; expiresAt?: string } = {},
): Promise<CreatedHumanToken> {
  const res = await asSession(t, cookie, 'POST', '/api/me/tokens', { name: extra.name ?? 'test token', workspaceId, scopes, expiresAt: extra.expiresAt });
  if (res.statusCode !== 201) throw new Error(`token create failed: ${res.statusCode} ${res.body}`);
  return res.json<CreatedHumanToken>();
}

/** An error answer: the status, the catalogue code, both languages, and (when given) the field named in the English text. */
export function expectError(res: LightMyRequestResponse, status: number, code: string, field?: string): void {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json<{ error: { en: string; ar: string; code: string }; missingScopes?: string[] }>();
  expect(body.error.code, res.body).toBe(code);
  expect(body.error.en.length).toBeGreaterThan(0);
  expect(body.error.ar).toMatch(/[\u0600-\u06ff]/);
  if (field !== undefined) expect(body.error.en, res.body).toContain(field);
}

/** A clock tests move by hand: pass `clock.now` to startTestApp({ clock }). */
export function mutableClock(start = new Date()) {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    advance(ms: number) {
      current += ms;
    },
    set(date: Date) {
      current = date.getTime();
    },
  };
}
