/**
 * Partner invitations (operations.md §18 "Invitations") through HTTP against a real SMTP server:
 * the owner invites partners (all or none, each entry's fault named), the invitation is mailed in
 * both languages with the answer's link, and whoever accepts — a new account, or a signed-in one
 * under the invited e-mail — becomes that partner: `userId` set, approved with a default link,
 * `partner.joined` in the audit log. A link works once, a newer one replaces it, and a partner
 * someone already signs in as is 409 `partner_claimed`.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { rows } from '../../../src/db/connect.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../helpers/app.js';
import { dropFreshDatabases, freshDatabase } from '../../helpers/fresh-database.js';
import { startSmtp, type TestSmtp } from '../../helpers/smtp.js';
import { allChanges as changes } from '../audit/helpers.js';
import {
  ORIGIN,
  PASSWORD,
  asSession,
  createUser,
  expectError,
  login,
  mutableClock,
  ownedWorkspace,
  sessionCookieFrom,
  signedInMember,
  uniqueEmail,
  type SignedIn,
} from '../people/helpers.js';

let smtp: TestSmtp;
let t: TestApp;
let owner: SignedIn;
let workspaceId: string;
let key: string;
let programId: string;

beforeAll(async () => {
  smtp = await startSmtp();
  // A database of its own: its mail worker must not take other tests' messages.
  t = await startTestApp({ database: await freshDatabase(), env: { SMTP_URL: smtp.url, MAIL_FROM: 'Linktrail <links@lt.test>' } });
  const owned = await ownedWorkspace(t);
  owner = owned.owner;
  workspaceId = owned.workspace.id;
  key = owned.workspace.key;
  const program = await byKey('PUT', '/api/program', {
    name: 'Friends of Lamp',
    slug: `lamp-${randomUUID().slice(0, 8)}`,
    landingUrl: 'https://shop.example/',
    currency: 'usd',
  });
  expect(program.statusCode, program.body).toBe(200);
  programId = program.json<{ id: string }>().id;
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
  await dropFreshDatabases();
});

const byKey = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown, k = key) =>
  t.inject({ method, url, headers: bearer(k), payload: payload as object });

async function partner(fields: Record<string, unknown> = {}): Promise<{ id: string; email: string; status: string }> {
  const res = await byKey('POST', '/api/partners', [{ name: 'Ana Lima', email: uniqueEmail('partner'), status: 'invited', ...fields }]);
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string; email: string; status: string }[]>()[0]!;
}

async function invite(partnerId: string): Promise<{ id: string; partnerId: string; email: string; url: string; expiresAt: string }> {
  const res = await asSession(t, owner.cookie, 'POST', '/api/partner-invites', [{ partnerId }], { workspaceId });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string; partnerId: string; email: string; url: string; expiresAt: string }[]>()[0]!;
}

/** A 400 naming the field and why, in both languages. */
function expectInvalid(res: Awaited<ReturnType<TestApp['inject']>>, field: string, reason: string): void {
  expectError(res, 400, 'invalid_field', field);
  expect(res.json<{ field: string; reason: string }>()).toMatchObject({ field, reason });
}

const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;
const acceptAsNew = (token: string, name = 'Ana Lima', password = PASSWORD) =>
  t.inject({ method: 'POST', url: '/api/partner-invites/accept', headers: { origin: ORIGIN }, payload: { token, name, password } });

const partnerById = async (id: string) => {
  const res = await byKey('GET', `/api/partners?take=100`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ id: string; status: string; userId: string | null; defaultLinkId: string | null }[]>().find((p) => p.id === id)!;
};

describe('inviting partners', () => {
  test('answers each invitation with its link, mails it in both languages, and a new account accepting becomes the partner', async () => {
    const p = await partner();
    const made = await invite(p.id);
    expect(made).toMatchObject({ partnerId: p.id, email: p.email });
    expect(made.url).toMatch(/^https:\/\/lt\.test\/app\/partner\/invite\?token=[\w-]{43}$/);
    expect(Date.parse(made.expiresAt) - Date.now()).toBeGreaterThan(6.9 * 24 * 3600_000);

    const mail = await smtp.messageTo(p.email);
    expect(mail, 'the invitation mail arrived').toBeDefined();
    expect(mail!.subject).toContain('Friends of Lamp');
    expect(mail!.text).toContain('you are invited to the partner program "Friends of Lamp"');
    expect(mail!.text).toContain('أنت مدعو إلى برنامج الشركاء «Friends of Lamp»');
    expect(mail!.text).toContain(made.url);

    const lookup = (token: string) => t.inject({ method: 'POST', url: '/api/partner-invites/lookup', payload: { token } });
    const about = await lookup(tokenOf(made.url));
    expect(about.statusCode, about.body).toBe(200);
    expect(about.json()).toEqual({ email: p.email, partnerName: 'Ana Lima', programName: 'Friends of Lamp', expiresAt: made.expiresAt });

    const accepted = await acceptAsNew(tokenOf(made.url));
    expect(accepted.statusCode, accepted.body).toBe(200);
    const cookie = sessionCookieFrom(accepted);
    const me = await t.inject({ method: 'GET', url: '/api/me', headers: { cookie } });
    expect(me.statusCode, me.body).toBe(200);
    const { user: who } = me.json<{ user: { id: string; email: string } }>();
    const userId = who.id;
    expect(who.email).toBe(p.email);
    // The program they now partner in, for the portal (X-Program-Id); no workspace of their own.
    expect(me.json<{ partnerPrograms: unknown[]; workspaces: unknown[] }>()).toMatchObject({
      partnerPrograms: [{ id: programId, name: 'Friends of Lamp', status: 'approved' }],
      workspaces: [],
    });
    // A partner-only account cannot make a workspace while sign-up is closed (the default).
    expectError(await asSession(t, cookie, 'POST', '/api/workspaces', { name: 'Mine' }), 403, 'signup_closed');
    const body = accepted.json<{ partner: { id: string; status: string; userId: string } }>();
    expect(body.partner).toMatchObject({ id: p.id, status: 'approved', userId });

    // Approved as any approval: the default link is made (in the transaction, or by the job soon after).
    await expect.poll(async () => (await partnerById(p.id)).defaultLinkId).not.toBeNull();
    const [entry, ...more] = await changes(t, owner, workspaceId, 'action=partner.joined');
    expect(more).toEqual([]);
    expect(entry!.targetIds).toEqual(expect.arrayContaining([p.id, made.id]));

    // Once only.
    expectInvalid(await lookup(tokenOf(made.url)), 'token', 'invite_invalid');
    expectInvalid(await acceptAsNew(tokenOf(made.url), 'Someone', PASSWORD), 'token', 'invite_invalid');
  });

  test('an existing account accepts by signing in, under the invited e-mail only; a partner someone signs in as cannot be invited again', async () => {
    const email = uniqueEmail('member');
    const user = await createUser(t, { email });
    const stranger = await createUser(t);
    const p = await partner({ email, status: 'pending' });
    const made = await invite(p.id);
    const accept = (cookie: string) =>
      t.inject({ method: 'POST', url: '/api/partner-invites/accept', headers: { cookie, origin: ORIGIN }, payload: { token: tokenOf(made.url) } });

    expectInvalid(await accept(await login(t, stranger)), 'token', 'invite_other_email');
    // An account that exists proves it by signing in, not by choosing a password.
    expectInvalid(await acceptAsNew(tokenOf(made.url)), 'token', 'sign_in_to_accept');
    const ok = await accept(await login(t, user));
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json<{ partner: unknown }>().partner).toMatchObject({ id: p.id, status: 'approved', userId: user.id });

    expectError(await asSession(t, owner.cookie, 'POST', '/api/partner-invites', [{ partnerId: p.id }], { workspaceId }), 409, 'partner_claimed');

    // The owner unlinks them (PUT userId null): the person and their payout details go; a new invitation works.
    await t.database.db.execute(
      sql`UPDATE partners SET payout_method = 'paypal', payout_details_sealed = 'sealed', payout_destination_masked = 'a•••@pay.example', payout_details_changed_at = now() WHERE id = ${p.id}::uuid`,
    );
    const limited = await t.admin('POST', `/workspaces/${workspaceId}/keys`, { name: 'partners only', scopes: ['partnersWrite'] });
    expectError(await byKey('PUT', '/api/partners', [{ id: p.id, userId: null }], limited.json<{ key: string }>().key), 403, 'missing_scopes');
    const unlinked = await byKey('PUT', '/api/partners', [{ id: p.id, userId: null }]);
    expect(unlinked.statusCode, unlinked.body).toBe(200);
    expect(unlinked.json<unknown[]>()[0]).toMatchObject({ id: p.id, userId: null, payoutMethod: null, payoutDestination: null, status: 'approved' });
    const [stored] = await rows<{ sealed: string | null }>(t.database.db, sql`SELECT payout_details_sealed AS sealed FROM partners WHERE id = ${p.id}::uuid`);
    expect(stored!.sealed).toBeNull();
    expect((await partnerById(p.id)).userId).toBeNull();
    expect((await byKey('PUT', '/api/partners', [{ id: p.id, userId: randomUUID() }])).statusCode).toBe(400);
    const again = await invite(p.id);
    const other = await acceptAsNew(tokenOf(again.url), 'Ana again');
    expectInvalid(other, 'token', 'sign_in_to_accept');
    expect((await accept(await login(t, user))).statusCode).toBe(400);
    const relinked = await t.inject({
      method: 'POST',
      url: '/api/partner-invites/accept',
      headers: { cookie: await login(t, user), origin: ORIGIN },
      payload: { token: tokenOf(again.url) },
    });
    expect(relinked.statusCode, relinked.body).toBe(200);
  });

  test('a newer invitation replaces the pending one', async () => {
    const p = await partner();
    const first = await invite(p.id);
    const second = await invite(p.id);
    expectInvalid(await acceptAsNew(tokenOf(first.url)), 'token', 'invite_invalid');
    expect((await acceptAsNew(tokenOf(second.url))).statusCode).toBe(200);
  });
});

describe('bad invitations', () => {
  test('all or none: the failing entry and its fault are named, and nothing is invited', async () => {
    const good = await partner();
    const noEmail = await partner({ email: undefined });
    const banned = await partner({ status: 'approved' });
    const ban = await byKey('PUT', '/api/partners', [{ id: banned.id, name: 'Ana Lima', status: 'banned' }]);
    expect(ban.statusCode, ban.body).toBe(200);
    const send = (body: unknown) => byKey('POST', '/api/partner-invites', body);
    expectInvalid(await send([{ partnerId: good.id }, { partnerId: randomUUID() }]), '[1].partnerId', 'not_found');
    expectInvalid(await send([{ partnerId: good.id }, { partnerId: 'not-an-id' }]), '[1].partnerId', 'not_found');
    expectInvalid(await send([{ partnerId: good.id }, { partnerId: noEmail.id }]), '[1].partnerId', 'partner_email_required');
    expectInvalid(await send([{ partnerId: good.id }, { partnerId: banned.id }]), '[1].partnerId', 'partner_not_invitable');
    expectInvalid(await send([{ partnerId: good.id }, { partnerId: good.id.toUpperCase() }]), '[1].partnerId', 'duplicate_in_request');
    expect((await send([])).statusCode).toBe(400);
    expect((await send({ partnerId: good.id })).statusCode).toBe(400);
    // Nothing was invited (or mailed) by the refused requests.
    expect(await smtp.messageTo(good.email, 300)).toBeUndefined();
  });

  test('a member is not an owner: 403 owner_required; a key needs partnersWrite and programsWrite', async () => {
    const p = await partner();
    const member = await signedInMember(t, workspaceId, 'member');
    expectError(await asSession(t, member.cookie, 'POST', '/api/partner-invites', [{ partnerId: p.id }], { workspaceId }), 403, 'owner_required');
    const limited = await t.admin('POST', `/workspaces/${workspaceId}/keys`, { name: 'partners only', scopes: ['partnersWrite'] });
    const res = await byKey('POST', '/api/partner-invites', [{ partnerId: p.id }], limited.json<{ key: string }>().key);
    expectError(res, 403, 'missing_scopes');
    expect(res.json<{ missingScopes: string[] }>().missingScopes).toEqual(['programsWrite']);
  });

  test('accepting: a malformed or unknown token is invite_invalid; a new account needs a name and a password', async () => {
    expectInvalid(await acceptAsNew('short'), 'token', 'invite_invalid');
    expectInvalid(await acceptAsNew('A'.repeat(43)), 'token', 'invite_invalid');
    const made = await invite((await partner()).id);
    expect((await acceptAsNew(tokenOf(made.url), 'Ana', 'short')).statusCode).toBe(400);
    const res = await t.inject({ method: 'POST', url: '/api/partner-invites/accept', headers: { origin: ORIGIN }, payload: { token: tokenOf(made.url) } });
    expectInvalid(res, 'name', 'required');
    // Still usable after the refusals.
    expect((await acceptAsNew(tokenOf(made.url))).statusCode).toBe(200);
  });
});

describe('on a server with open sign-up and a clock the test moves', () => {
  let u: TestApp;
  const clock = mutableClock();
  beforeAll(async () => {
    u = await startTestApp({ database: await freshDatabase(), clock: clock.now, env: { ALLOW_SIGNUP: 'true' } });
  });
  afterAll(() => u?.close());

  test('an invitation older than 7 days is invite_invalid; a partner-only account may make a workspace when sign-up is open', async () => {
    const owned = await ownedWorkspace(u);
    const send = (method: 'POST' | 'PUT', url: string, payload: unknown) =>
      u.inject({ method, url, headers: bearer(owned.workspace.key), payload: payload as object });
    expect(
      (await send('PUT', '/api/program', { name: 'Open', slug: `open-${randomUUID().slice(0, 8)}`, landingUrl: 'https://shop.example/', currency: 'usd' }))
        .statusCode,
    ).toBe(200);
    const made = await send('POST', '/api/partners', [{ name: 'Kim', email: uniqueEmail('kim'), status: 'invited' }]);
    const partnerId = made.json<{ id: string }[]>()[0]!.id;
    const invite = async () => (await send('POST', '/api/partner-invites', [{ partnerId }])).json<{ url: string }[]>()[0]!.url;
    const accept = (url: string) =>
      u.inject({
        method: 'POST',
        url: '/api/partner-invites/accept',
        headers: { origin: ORIGIN },
        payload: { token: tokenOf(url), name: 'Kim', password: PASSWORD },
      });

    const old = await invite();
    clock.advance(7 * 24 * 3600_000 + 1);
    expectInvalid(await u.inject({ method: 'POST', url: '/api/partner-invites/lookup', payload: { token: tokenOf(old) } }), 'token', 'invite_invalid');
    expectInvalid(await accept(old), 'token', 'invite_invalid');

    const accepted = await accept(await invite());
    expect(accepted.statusCode, accepted.body).toBe(200);
    const created = await asSession(u, sessionCookieFrom(accepted), 'POST', '/api/workspaces', { name: 'Kim’s own' });
    expect(created.statusCode, created.body).toBe(201);
  });
});
