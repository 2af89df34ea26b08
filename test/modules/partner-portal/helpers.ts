import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { bearer, type TestApp } from '../../helpers/app.js';
import { DESKTOP } from '../../helpers/visitors.js';
import { ORIGIN, PASSWORD, asSession, ownedWorkspace, sessionCookieFrom, uniqueEmail, type SignedIn } from '../people/helpers.js';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A workspace with a program (no fraud rule, so commissions are never held), its owner, and a lead and sale reward. */
export async function programWorkspace(t: TestApp, settings: Record<string, unknown> = {}) {
  const { workspace, owner } = await ownedWorkspace(t);
  const byKey = (method: Method, url: string, payload?: unknown) => t.inject({ method, url, headers: bearer(workspace.key), payload: payload as object });
  const ok = async <T = unknown>(method: Method, url: string, payload?: unknown, status = 200): Promise<T> => {
    const res = await byKey(method, url, payload);
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(status);
    return res.json<T>();
  };
  const fraudRules = { selfReferral: false, sameVisitor: false, disposableEmail: false, burst: false, duplicateCustomer: false };
  const program = await ok<{ id: string; collectionId: string; slug: string }>('PUT', '/api/program', {
    name: 'Friends of Lamp',
    slug: `lamp-${randomUUID().slice(0, 8)}`,
    landingUrl: 'https://shop.example/',
    currency: 'usd',
    holdingDays: 0,
    fraudRules,
    ...settings,
  });
  const [group] = await ok<{ id: string }[]>('GET', '/api/partner-groups');
  await ok('PUT', '/api/partner-groups', [
    {
      id: group!.id,
      rewards: [
        { event: 'lead', type: 'flat', amount: 300 },
        { event: 'sale', type: 'percentage', amount: 2000 },
      ],
    },
  ]);
  return { owner, workspaceId: workspace.id, key: workspace.key, programId: program.id, collectionId: program.collectionId, byKey, ok };
}
export type ProgramFixture = Awaited<ReturnType<typeof programWorkspace>>;

export interface PartnerFixture {
  id: string;
  email: string;
  cookie: string;
  userId: string;
}

/** A partner of the program who accepted their invitation with a new account: their session cookie. */
export async function invitedPartner(t: TestApp, p: ProgramFixture, name = 'Ana Lima', email = uniqueEmail('partner')): Promise<PartnerFixture> {
  const [made] = await p.ok<{ id: string }[]>('POST', '/api/partners', [{ name, email, status: 'invited' }], 201);
  const cookie = await acceptInvite(t, p.owner, p.workspaceId, made!.id);
  const me = await t.inject({ method: 'GET', url: '/api/me', headers: { cookie } });
  return { id: made!.id, email, cookie, userId: me.json<{ user: { id: string } }>().user.id };
}

/** Invites the partner and accepts as a new account (or, with `cookie`, as that signed-in account); the session cookie. */
export async function acceptInvite(t: TestApp, owner: SignedIn, workspaceId: string, partnerId: string, cookie?: string): Promise<string> {
  const inv = await asSession(t, owner.cookie, 'POST', '/api/partner-invites', [{ partnerId }], { workspaceId });
  expect(inv.statusCode, inv.body).toBe(201);
  const token = new URL(inv.json<{ url: string }[]>()[0]!.url).searchParams.get('token')!;
  const res = await t.inject({
    method: 'POST',
    url: '/api/partner-invites/accept',
    headers: cookie ? { origin: ORIGIN, cookie } : { origin: ORIGIN },
    payload: cookie ? { token } : { token, name: 'Ana Lima', password: PASSWORD },
  });
  expect(res.statusCode, res.body).toBe(200);
  return cookie ?? sessionCookieFrom(res);
}

/** A request to the portal as this session (X-Program-Id when given). */
export function portal(t: TestApp, cookie: string, method: Method, url: string, payload?: unknown, programId?: string): Promise<LightMyRequestResponse> {
  return t.inject({ method, url, headers: { cookie, ...(programId ? { 'x-program-id': programId } : {}) }, payload: payload as object });
}

/** A visitor clicks the link; the click id the redirect hands out. */
export async function click(t: TestApp, shortUrl: string, remoteAddress = '81.2.69.160'): Promise<string> {
  const res = await t.inject({ method: 'GET', url: new URL(shortUrl).pathname, remoteAddress, headers: { 'user-agent': DESKTOP } });
  expect(res.statusCode, res.body).toBe(302);
  return new URL(res.headers.location as string).searchParams.get('ltid')!;
}
