/**
 * Single sign-on through HTTP: an owner sets the connection (PUT /api/sso), the operator
 * verifies domains, and a browser goes our 302 → the provider's pages → our callback.
 */
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import { Browser, startProvider, type TestProvider } from '../../helpers/oidc-provider.js';
import { asSession, ownedWorkspace, ORIGIN } from '../people/helpers.js';

export const CALLBACK = `${ORIGIN}/api/auth/sso/callback`;

export const newProvider = (): Promise<TestProvider> => startProvider({ redirectUri: CALLBACK });

/** A unique domain per test (shared PostgreSQL runs keep verified domains around). */
export const uniqueDomain = (label = 'corp') => `${label}-${Math.random().toString(36).slice(2)}${Date.now().toString(36)}.test`;

export async function ssoWorkspace(
  t: TestApp,
  idp: TestProvider,
  o: { domains: string[]; role?: 'member' | 'viewer'; requireSso?: boolean; verify?: boolean },
) {
  const { workspace, owner } = await ownedWorkspace(t);
  const put = await asSession(
    t,
    owner.cookie,
    'PUT',
    '/api/sso',
    { issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, domains: o.domains, role: o.role ?? 'member', requireSso: o.requireSso },
    { workspaceId: workspace.id },
  );
  expect(put.statusCode, put.body).toBe(200);
  if (o.verify !== false)
    for (const d of o.domains) expect((await t.admin('POST', `/workspaces/${workspace.id}/sso/domains/${d}/verify`)).statusCode).toBe(200);
  return { workspace, owner };
}

export const cookieOf = (res: LightMyRequestResponse, name: RegExp): string | undefined =>
  [res.headers['set-cookie'] ?? []]
    .flat()
    .find((c) => name.test(c))
    ?.split(';')[0];

/** The headers a browser sends on a navigation from this service's own page (the sign-in page's "Sign in with SSO"). */
export const FROM_OWN_PAGE = { 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'navigate' } as const;

/** The start from the service's own sign-in page (302 to the provider, or a refusal page). */
export const startFromOwnPage = (t: TestApp, start: string) => t.inject({ method: 'GET', url: start, headers: FROM_OWN_PAGE });

/** Our start (302 + lt_sso cookie), the provider's pages as `login`, and the URL it sends back to. */
export async function throughProvider(t: TestApp, start: string, login: string): Promise<{ callback: URL; ssoCookie: string; authorizationUrl: URL }> {
  const started = await startFromOwnPage(t, start);
  expect(started.statusCode, started.body).toBe(302);
  const ssoCookie = cookieOf(started, /^(__Host-)?lt_sso=/)!;
  expect(ssoCookie).toBeTruthy();
  const authorizationUrl = new URL(String(started.headers.location));
  const callback = await new Browser().authorize(authorizationUrl.href, login);
  return { callback, ssoCookie, authorizationUrl };
}

export function callbackRequest(t: TestApp, callback: URL, cookie: string | undefined): Promise<LightMyRequestResponse> {
  return t.inject({ method: 'GET', url: `${callback.pathname}${callback.search}`, headers: cookie ? { cookie } : {} });
}

/** The whole flow; the callback's answer. */
export async function ssoSignIn(t: TestApp, start: string, login: string): Promise<LightMyRequestResponse> {
  const { callback, ssoCookie } = await throughProvider(t, start, login);
  expect(callback.href.startsWith(CALLBACK), callback.href).toBe(true);
  return callbackRequest(t, callback, ssoCookie);
}

/** A refusal page: HTML (never JSON), the code, English and Arabic. */
export function expectPage(res: LightMyRequestResponse, status: number, code: string): void {
  expect(res.statusCode, res.body).toBe(status);
  expect(String(res.headers['content-type'])).toMatch(/^text\/html/);
  expect(res.body).toContain(`data-code="${code}"`);
  expect(res.body).toMatch(/[\u0600-\u06ff]/);
  expect(cookieOf(res, /^(__Host-)?lt_session=/)).toBeUndefined();
}
