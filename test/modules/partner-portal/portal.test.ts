/**
 * The partner portal (operations.md §18 "Partner portal") through HTTP: a partner who accepted
 * their invitation reads their program, links, figures, commissions and payouts with their
 * session only; makes links under the program's prefixes; and sets payout details after
 * confirming it is them, mailed to the account and the old and new addresses (a real SMTP server).
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { bearer, startTestApp, type TestApp } from '../../helpers/app.js';
import { dropFreshDatabases, freshDatabase } from '../../helpers/fresh-database.js';
import { startSmtp, type TestSmtp } from '../../helpers/smtp.js';
import { within } from '../../helpers/wait.js';
import { ORIGIN, PASSWORD, addMember, asSession, createHumanToken, expectError, sessionCookieFrom, signedInMember } from '../people/helpers.js';
import { SoftAuthenticator, type CreationOptions, type RequestOptions } from '../../helpers/webauthn.js';
import { click, invitedPartner, portal, programWorkspace, type PartnerFixture, type ProgramFixture } from './helpers.js';

let smtp: TestSmtp;
let t: TestApp;
let p: ProgramFixture;
let ana: PartnerFixture;

beforeAll(async () => {
  smtp = await startSmtp();
  t = await startTestApp({ database: await freshDatabase(), env: { SMTP_URL: smtp.url, MAIL_FROM: 'Linktrail <links@lt.test>' } });
  p = await programWorkspace(t, { linkPrefixes: ['https://shop.example/', 'https://blog.example/posts'], maxPartnerLinks: 2, minPayout: { usd: 1000 } });
  ana = await invitedPartner(t, p);
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
  await dropFreshDatabases();
});

interface PortalLink {
  id: string;
  url: string;
  shortUrl: string;
  qrCode: string;
  default: boolean;
  stats: { clicks: number; leads: number; sales: number };
}

const get = async <T>(cookie: string, url: string): Promise<T> => {
  const res = await portal(t, cookie, 'GET', url);
  expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
  return res.json<T>();
};

describe('who may use the portal', () => {
  test("the partner's session reads their program; keys, human tokens, foreign pages and non-partners do not", async () => {
    const summary = await get<{ partner: { id: string; status: string }; program: { id: string; name: string; linkPrefixes: string[] } }>(
      ana.cookie,
      '/api/partner',
    );
    expect(summary.partner).toMatchObject({ id: ana.id, status: 'approved' });
    expect(summary.program).toMatchObject({ id: p.programId, name: 'Friends of Lamp', linkPrefixes: ['https://shop.example/', 'https://blog.example/posts'] });

    expectError(await t.inject({ method: 'GET', url: '/api/partner/links', headers: bearer(p.key) }), 401, 'session_required');
    // A human token of a workspace the partner is also a member of.
    const elsewhere = await t.workspace();
    await addMember(t, elsewhere.id, ana.userId, 'member');
    const token = await createHumanToken(t, ana.cookie, elsewhere.id, ['linksRead']);
    expectError(await t.inject({ method: 'GET', url: '/api/partner/links', headers: bearer(token.token) }), 401, 'session_required');
    const foreign = await t.inject({ method: 'GET', url: '/api/partner/links', headers: { cookie: ana.cookie, origin: 'https://evil.example' } });
    expect(foreign.statusCode, foreign.body).toBe(401);

    const stranger = await signedInMember(t, null, 'owner');
    expectError(await portal(t, stranger.cookie, 'GET', '/api/partner'), 404, 'not_found');
    expectError(await portal(t, ana.cookie, 'GET', '/api/partner', undefined, '00000000-0000-4000-8000-000000000000'), 404, 'not_found');
  });

  test('a partner is no member: the owner routes of the workspace answer their session as a stranger', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/partners', headers: { cookie: ana.cookie, 'x-workspace-id': p.workspaceId } });
    expectError(res, 401, 'not_a_member');
    expect(res.body).not.toContain(ana.email);
  });

  test("a partner who is a viewer of another workspace acts there only as a viewer, and its program is not their portal's", async () => {
    const other = await programWorkspace(t);
    const zoe = await invitedPartner(t, p, 'Zoe Both');
    await addMember(t, other.workspaceId, zoe.userId, 'viewer');
    const inOther = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
      t.inject({ method, url, headers: { cookie: zoe.cookie, 'x-workspace-id': other.workspaceId, origin: ORIGIN }, payload: payload as object });
    // A viewer there: reads as a viewer may, changes no money.
    expect((await inOther('GET', '/api/partners')).statusCode).toBe(200);
    const paying = await inOther('POST', '/api/commissions', [{ partnerId: zoe.id, earnings: 100, currency: 'usd', description: 'x' }]);
    expect(paying.statusCode, paying.body).toBe(403);
    // Its program is not theirs as a partner; their own program is.
    expectError(await portal(t, zoe.cookie, 'GET', '/api/partner', undefined, other.programId), 404, 'not_found');
    const own = await portal(t, zoe.cookie, 'GET', '/api/partner');
    expect(own.json<{ program: { id: string } }>().program.id).toBe(p.programId);
    // And the workspace they partner in is not theirs to act in.
    expectError(await asSession(t, zoe.cookie, 'GET', '/api/commissions', undefined, { workspaceId: p.workspaceId }), 401, 'not_a_member');
  });

  test('a person partnering in two programs names one with X-Program-Id; without it the portal asks', async () => {
    const other = await programWorkspace(t);
    const [made] = await other.ok<{ id: string }[]>('POST', '/api/partners', [{ name: 'Ana Lima', email: ana.email, status: 'invited' }], 201);
    const { acceptInvite } = await import('./helpers.js');
    await acceptInvite(t, other.owner, other.workspaceId, made!.id, ana.cookie);
    expectError(await portal(t, ana.cookie, 'GET', '/api/partner'), 400, 'program_choice_required');
    const first = await portal(t, ana.cookie, 'GET', '/api/partner', undefined, p.programId);
    expect(first.json<{ partner: { id: string } }>().partner.id).toBe(ana.id);
    const second = await portal(t, ana.cookie, 'GET', '/api/partner', undefined, other.programId);
    expect(second.json<{ partner: { id: string } }>().partner.id).toBe(made!.id);
    const me = await t.inject({ method: 'GET', url: '/api/me', headers: { cookie: ana.cookie } });
    expect(
      me
        .json<{ partnerPrograms: { id: string }[] }>()
        .partnerPrograms.map((x) => x.id)
        .sort(),
    ).toEqual([p.programId, other.programId].sort());
    // Unlinked there again, so the other tests read one program.
    await other.ok('PUT', '/api/partners', [{ id: made!.id, userId: null }]);
    expect((await portal(t, ana.cookie, 'GET', '/api/partner')).statusCode).toBe(200);
  });
});

describe('links', () => {
  test('the default link is listed; a new link must fall under a prefix, takes only url, title and utm, and stops at maxPartnerLinks', async () => {
    await within(10_000, async () => (await get<PortalLink[]>(ana.cookie, '/api/partner/links')).length === 1);
    const [first] = await get<PortalLink[]>(ana.cookie, '/api/partner/links');
    expect(first).toMatchObject({ default: true, url: 'https://shop.example/' });
    expect(first!.qrCode).toContain('/api/qr?');

    const make = (body: unknown) => portal(t, ana.cookie, 'POST', '/api/partner/links', body);
    for (const url of [
      'https://evil.example/',
      'http://shop.example/x',
      'https://shop.example:8443/x',
      'https://user@shop.example/x',
      'https://blog.example/postsecret',
      'https://blog.example/posts/../admin',
      'https://shop.example.evil.example/',
    ]) {
      const res = await make({ url });
      expectError(res, 400, 'invalid_field', 'url');
    }
    // Fields beyond url, title and utm are ignored, never applied.
    const made = await make({
      url: 'https://SHOP.example/spring?x=1',
      title: 'Spring',
      utm: { source: 'ana' },
      password: 'secret',
      cloaked: true,
      geo: { DE: 'https://evil.example/' },
      expiresAt: '2030-01-01T00:00:00Z',
    });
    expect(made.statusCode, made.body).toBe(201);
    expect(made.json<PortalLink>()).toMatchObject({ url: 'https://shop.example/spring?x=1', default: false, stats: { clicks: 0, leads: 0, sales: 0 } });
    const posts = await make({ url: 'https://blog.example/posts/hello' });
    expect(posts.statusCode, posts.body).toBe(201);
    expectError(await make({ url: 'https://shop.example/third' }), 409, 'partner_link_limit');

    const listed = await portal(t, ana.cookie, 'GET', '/api/partner/links');
    expect(listed.headers['x-total-count']).toBe('3');
    const owners = await p.ok<{ id: string; collectionId: string; password: string | null; cloaked: boolean; geo: unknown; expiresAt: string | null }[]>(
      'GET',
      `/api/links?partnerId=${ana.id}`,
    );
    expect(owners.map((l) => l.collectionId)).toEqual(owners.map(() => p.collectionId));
    expect(owners.find((l) => l.id === made.json<PortalLink>().id)).toMatchObject({ password: null, cloaked: false, expiresAt: null });
    const log = await rows<{ action: string; ids: string[] }>(
      t.database.db,
      sql`SELECT action, target_ids AS ids FROM audit_entries WHERE workspace_id = ${p.workspaceId}::uuid AND action = 'partner_link.created'`,
    );
    expect(log.map((e) => e.ids[0]).sort()).toEqual([made.json<PortalLink>().id, posts.json<PortalLink>().id].sort());
  });

  test('a banned partner reads the portal but makes no link', async () => {
    const bea = await invitedPartner(t, p, 'Bea Banned');
    await p.ok('PUT', '/api/partners', [{ id: bea.id, status: 'banned' }]);
    expect((await portal(t, bea.cookie, 'GET', '/api/partner/links')).statusCode).toBe(200);
    expectError(await portal(t, bea.cookie, 'POST', '/api/partner/links', { url: 'https://shop.example/b' }), 403, 'partner_not_approved');
  });
});

describe('figures, commissions and payouts', () => {
  test('clicks, leads, sales and earnings by UTC day; customers masked; payouts as they paid the partner', async () => {
    const links = await get<PortalLink[]>(ana.cookie, '/api/partner/links?sort=asc');
    const clickId = await click(t, links[0]!.shortUrl);
    await p.ok('POST', '/api/track/lead', {
      clickId,
      eventName: 'Sign up',
      customerExternalId: 'cust-ext-77',
      customerName: 'Jane Doe',
      customerEmail: 'jane.doe@buyer.example',
    });
    await p.ok('POST', '/api/track/sale', {
      customerExternalId: 'cust-ext-77',
      customerName: 'Jane Doe',
      amount: 10_000,
      currency: 'usd',
      invoiceId: 'inv-secret-1',
    });

    const today = `${new Date().toISOString().slice(0, 10)}T00:00:00Z`;
    let series: { key: string; clicks: number; leads: number; sales: number; revenue: Record<string, number>; earnings: Record<string, number> }[] = [];
    const arrived = await within(15_000, async () => {
      series = await get(ana.cookie, '/api/partner/analytics');
      return series.some((b) => b.key === today && b.clicks === 1);
    });
    expect(arrived, JSON.stringify(series)).toBe(true);
    expect(series.find((b) => b.key === today)).toMatchObject({ clicks: 1, leads: 1, sales: 1, revenue: { usd: 10_000 }, earnings: { usd: 300 + 2000 } });

    const commissions = await get<Record<string, unknown>[]>(ana.cookie, '/api/partner/commissions?sort=asc');
    expect(commissions.map((c) => [c.type, c.earnings])).toEqual([
      ['lead', 300],
      ['sale', 2000],
    ]);
    expect(commissions[0]!.customer).toMatchObject({ name: 'Jane D.', email: 'j•••@buyer.example', country: expect.any(String) });
    const text = JSON.stringify(commissions);
    for (const secret of ['cust-ext-77', 'jane.doe@', 'inv-secret-1', 'holdReasons', 'externalId', 'metadata']) expect(text).not.toContain(secret);

    // The owner pays: the partner sees the payout, and cannot change details while it is pending.
    const details = await portal(t, ana.cookie, 'PUT', '/api/partner/payout-details', {
      method: 'paypal',
      email: 'ana.pay@partner.example',
      password: PASSWORD,
    });
    expect(details.statusCode, details.body).toBe(200);
    const payout = await p.ok<{ id: string }>('POST', '/api/payouts', { currency: 'usd', partnerIds: [ana.id] }, 201);
    const payouts = await get<{ id: string; status: string; amount: number; destination: string }[]>(ana.cookie, '/api/partner/payouts');
    expect(payouts).toEqual([
      expect.objectContaining({ id: payout.id, status: 'pending', amount: 2300, currency: 'usd', destination: 'a•••@partner.example' }),
    ]);
    const paid = await get<{ payoutId: string }[]>(ana.cookie, `/api/partner/commissions?payoutId=${payout.id}`);
    expect(paid).toHaveLength(2);
    expectError(
      await portal(t, ana.cookie, 'PUT', '/api/partner/payout-details', { method: 'wise', email: 'x@partner.example', password: PASSWORD }),
      409,
      'payout_in_progress',
    );
    await p.ok('POST', `/api/payouts/${payout.id}/complete`, { reference: 'batch-9' });
    expect((await get<{ status: string }[]>(ana.cookie, '/api/partner/payouts'))[0]!.status).toBe('completed');
  });
});

describe('payout details', () => {
  test('need the password (or a recent passkey or SSO sign-in), are sealed and masked, mailed to the account and both addresses, audited', async () => {
    const cy = await invitedPartner(t, p, 'Cy Pay');
    const put = (body: Record<string, unknown>) => portal(t, cy.cookie, 'PUT', '/api/partner/payout-details', body);
    expectError(await put({ method: 'paypal', email: 'cy.old@partner.example' }), 403, 'reauthentication_required');
    expectError(await put({ method: 'paypal', email: 'cy.old@partner.example', password: 'not the password at all' }), 400, 'invalid_field', 'password');
    expectError(await put({ method: 'paypal', password: PASSWORD }), 400, 'invalid_field', 'email');
    expectError(await put({ method: 'bank', holderName: 'Cy Pay', password: PASSWORD }), 400, 'invalid_field', 'details');

    expect((await put({ method: 'paypal', email: 'cy.old@partner.example', password: PASSWORD })).statusCode).toBe(200);
    const changed = await put({ method: 'bank', holderName: 'Cy Pay', details: 'DE89 3704 0044 0532 0130 00', password: PASSWORD });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toMatchObject({ method: 'bank', destination: '•••3000', holderName: 'Cy Pay', changedAt: expect.any(String) });
    expect(changed.body).not.toContain('3704');

    for (const to of [cy.email, 'cy.old@partner.example']) {
      const find = () => smtp.received.find((m) => m.subject?.includes('payout details') && JSON.stringify(m.to).includes(to));
      expect(await within(10_000, async () => find() !== undefined), `a mail to ${to}`).toBe(true);
      const mail = find();
      expect(mail!.text).toContain('Your payout details in the partner program "Friends of Lamp" were changed');
      expect(mail!.text).toContain('تغيّرت بيانات الدفع');
      expect(mail!.text).not.toContain('3704');
    }

    const stored = await rows<{ sealed: string }>(t.database.db, sql`SELECT payout_details_sealed AS sealed FROM partners WHERE id = ${cy.id}::uuid`);
    expect(stored[0]!.sealed).not.toContain('3704');
    const owners = await p.ok<{ id: string; payoutMethod: string; payoutDestination: string; payoutDetailsChangedAt: string }[]>(
      'GET',
      '/api/partners?take=100',
    );
    expect(owners.find((x) => x.id === cy.id)).toMatchObject({
      payoutMethod: 'bank',
      payoutDestination: '•••3000',
      payoutDetailsChangedAt: expect.any(String),
    });
    const log = await rows<{ n: number }>(
      t.database.db,
      sql`SELECT count(*)::int AS n FROM audit_entries WHERE workspace_id = ${p.workspaceId}::uuid AND action = 'partner.payout_details_changed' AND ${cy.id} = ANY (target_ids)`,
    );
    expect(log[0]!.n).toBe(2);
  });

  test('a passkey sign-in stands in for the password for 5 minutes, then the password is asked again', async () => {
    const dee = await invitedPartner(t, p, 'Dee Key');
    const auth = new SoftAuthenticator();
    const options = await t.inject({
      method: 'POST',
      url: '/api/me/passkeys/options',
      headers: { cookie: dee.cookie, origin: ORIGIN },
      payload: { password: PASSWORD },
    });
    expect(options.statusCode, options.body).toBe(200);
    const registered = await t.inject({
      method: 'POST',
      url: '/api/me/passkeys',
      headers: { cookie: dee.cookie, origin: ORIGIN },
      payload: { response: auth.register(options.json<CreationOptions>(), { origin: ORIGIN }) },
    });
    expect(registered.statusCode, registered.body).toBe(201);
    // The password's own session is no recent passkey sign-in.
    expectError(
      await portal(t, dee.cookie, 'PUT', '/api/partner/payout-details', { method: 'paypal', email: 'dee@partner.example' }),
      403,
      'reauthentication_required',
    );
    const challenge = await t.inject({ method: 'POST', url: '/api/auth/passkey/options', headers: { origin: ORIGIN }, payload: {} });
    const signIn = await t.inject({
      method: 'POST',
      url: '/api/auth/passkey',
      headers: { origin: ORIGIN },
      payload: { response: auth.assert(challenge.json<RequestOptions>(), { origin: ORIGIN }) },
    });
    expect(signIn.statusCode, signIn.body).toBe(200);
    const byPasskey = sessionCookieFrom(signIn);
    const put = () => portal(t, byPasskey, 'PUT', '/api/partner/payout-details', { method: 'paypal', email: 'dee@partner.example' });
    expect((await put()).statusCode).toBe(200);
    // Six minutes later (the session's sign-in moved back), it is not recent any more.
    await t.database.db.execute(
      sql`UPDATE sessions SET created_at = created_at - interval '6 minutes' WHERE user_id = ${dee.userId}::uuid AND signed_in_by = 'passkey'`,
    );
    expectError(await put(), 403, 'reauthentication_required');
  });
});
