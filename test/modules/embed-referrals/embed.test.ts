/**
 * Embedded referrals (operations.md §18) through HTTP: an owner's credential issues a token for
 * one partner (named, or found or made by tenant id, once even when asked concurrently); the page
 * is framed only by the program's embedOrigins, never cached, never a referrer, and its token never
 * logged; its API shows that partner's figures only; the token is a credential nowhere else and
 * ends after 2 hours; "Set up payouts" mails a partner invitation (a real SMTP server).
 */
import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { routeTable } from '../../../src/http/server.js';
import { createRuntime, LOG_REDACT, type Runtime } from '../../../src/runtime.js';
import { bearer, startTestApp, testConfig, testRuntimeOptions, type TestApp } from '../../helpers/app.js';
import { dropFreshDatabases, freshDatabase } from '../../helpers/fresh-database.js';
import { startSmtp, type TestSmtp } from '../../helpers/smtp.js';
import { within } from '../../helpers/wait.js';
import { changes } from '../audit/helpers.js';
import { ORIGIN, PASSWORD, asSession, expectError, mutableClock, sessionCookieFrom, signedInMember, uniqueEmail } from '../people/helpers.js';
import { click, programWorkspace, type ProgramFixture } from '../partner-portal/helpers.js';

const clock = mutableClock();
let smtp: TestSmtp;
let t: TestApp;
let p: ProgramFixture;
/** A second runtime on the same database whose every log line, at the most verbose level, goes into `logs`. */
let logged: Runtime;
let logs = '';

beforeAll(async () => {
  smtp = await startSmtp();
  const database = await freshDatabase();
  t = await startTestApp({ database, clock: clock.now, env: { SMTP_URL: smtp.url, MAIL_FROM: 'Linktrail <links@lt.test>' } });
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs += chunk.toString();
      done();
    },
  });
  logged = await createRuntime(testConfig({ LOG_LEVEL: 'trace', SMTP_URL: smtp.url, MAIL_FROM: 'Linktrail <links@lt.test>' }), {
    ...testRuntimeOptions(),
    logger: pino({ level: 'trace', redact: LOG_REDACT }, sink),
    database,
    clock: clock.now,
  });
  await logged.app.ready();
  p = await programWorkspace(t, { embedOrigins: ['https://allowed.example', 'https://app.allowed.example:8443'] });
});
afterAll(async () => {
  await logged?.close();
  await t?.close();
  await smtp?.close();
  await dropFreshDatabases();
});

interface Made {
  token: string;
  url: string;
  expiresAt: string;
  partnerId: string;
}

const mint = async (body: Record<string, unknown>, key = p.key): Promise<Made> => {
  const res = await t.inject({ method: 'POST', url: '/api/embed-tokens', headers: bearer(key), payload: body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<Made>();
};
const partnerOf = async (name: string, extra: Record<string, unknown> = {}) =>
  (await p.ok<{ id: string }[]>('POST', '/api/partners', [{ name, email: uniqueEmail('embed'), ...extra }], 201))[0]!;
const read = (token: string) => t.inject({ method: 'GET', url: '/api/embed/referrals', headers: bearer(token) });
const page = (url: string, inject = t.inject) => inject({ method: 'GET', url: new URL(url).pathname + new URL(url).search });

interface Referrals {
  partner: { name: string };
  program: { name: string; currency: string };
  link: { shortUrl: string; url: string } | null;
  totals: { clicks: number; leads: number; sales: number; earnings: Record<string, Record<string, number>> };
  commissions: { type: string; earnings: number; currency: string; description: string | null; customer: { name: string; email: string } | null }[];
  payouts: { offer: string; email: string | null; portalUrl: string | null };
}

describe('issuing a token', () => {
  test('for a partner by id: the page URL with a 256-bit token, at most 2 hours; an unapproved or unknown partner is refused', async () => {
    const ana = await partnerOf('Ana Lima');
    const made = await mint({ partnerId: ana.id });
    expect(made.url).toBe(`https://lt.test/embed/referrals?token=${made.token}`);
    expect(made.token).toMatch(/^lte_[\w-]{43}$/);
    expect(made.partnerId).toBe(ana.id);
    expect(Date.parse(made.expiresAt) - clock.now().getTime()).toBe(2 * 3600_000);
    expect((await mint({ partnerId: ana.id })).token).not.toBe(made.token);

    // Only its SHA-256 is kept.
    const stored = await rows<Record<string, unknown>>(
      t.database.db,
      sql`SELECT *, encode(token_hash, 'hex') AS hex FROM embed_tokens WHERE partner_id = ${ana.id}::uuid`,
    );
    expect(stored.map((r) => r.hex)).toContain(createHash('sha256').update(made.token).digest('hex'));
    expect(JSON.stringify(stored)).not.toContain(made.token.slice(4));

    const pending = await partnerOf('Pat Pending', { status: 'pending' });
    const refused = await t.inject({ method: 'POST', url: '/api/embed-tokens', headers: bearer(p.key), payload: { partnerId: pending.id } });
    expectError(refused, 400, 'invalid_field', 'partnerId');
    expect(refused.json()).toMatchObject({ field: 'partnerId', reason: 'partner_not_embeddable' });
    expect(refused.json<{ error: { en: string } }>().error.en).toContain('not approved (pending)');
    const unknown = await t.inject({
      method: 'POST',
      url: '/api/embed-tokens',
      headers: bearer(p.key),
      payload: { partnerId: '00000000-0000-4000-8000-000000000000' },
    });
    expectError(unknown, 400, 'invalid_field', 'partnerId');
    for (const body of [{}, { partnerId: ana.id, tenantId: 't-1' }, { partnerId: ana.id, name: 'X' }, { tenantId: 'needs-a-name' }]) {
      const res = await t.inject({ method: 'POST', url: '/api/embed-tokens', headers: bearer(p.key), payload: body });
      expectError(res, 400, 'invalid_field');
    }
  });

  test('by tenant id: made approved in the default group once; the same tenant id again, and concurrent requests, end with one partner', async () => {
    const email = uniqueEmail('tenant');
    const first = await mint({ tenantId: 'user-1001', name: 'Tess Tenant', email, ignored: 'unknown fields are ignored' });
    const [group] = await p.ok<{ id: string; name: string }[]>('GET', '/api/partner-groups');
    const listed = await p.ok<{ id: string; tenantId: string | null; status: string; groupId: string; email: string }[]>('GET', '/api/partners?take=100');
    const tess = listed.filter((x) => x.tenantId === 'user-1001');
    expect(tess).toEqual([expect.objectContaining({ id: first.partnerId, status: 'approved', groupId: group!.id, email })]);
    // Found again, whatever name is sent this time.
    expect((await mint({ tenantId: 'user-1001', name: 'Someone Else' })).partnerId).toBe(first.partnerId);

    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        t.inject({ method: 'POST', url: '/api/embed-tokens', headers: bearer(p.key), payload: { tenantId: 'user-race', name: 'Rae Race' } }),
      ),
    );
    for (const a of answers) expect(a.statusCode, a.body).toBe(201);
    expect(new Set(answers.map((a) => a.json<Made>().partnerId)).size).toBe(1);
    const after = await p.ok<{ tenantId: string | null }[]>('GET', '/api/partners?take=100');
    expect(after.filter((x) => x.tenantId === 'user-race')).toHaveLength(1);
  });

  test('needs partnersWrite and programsWrite, a program, and by session the owner role', async () => {
    const ana = await partnerOf('Ana Scopes');
    const narrow = await t.admin('POST', `/workspaces/${p.workspaceId}/keys`, { name: 'narrow', scopes: ['partnersWrite', 'partnersRead'] });
    const res = await t.inject({
      method: 'POST',
      url: '/api/embed-tokens',
      headers: bearer(narrow.json<{ key: string }>().key),
      payload: { partnerId: ana.id },
    });
    expectError(res, 403, 'missing_scopes');
    expect(res.json<{ missingScopes: string[] }>().missingScopes).toEqual(['programsWrite']);

    const member = await signedInMember(t, p.workspaceId, 'member');
    expectError(await asSession(t, member.cookie, 'POST', '/api/embed-tokens', { partnerId: ana.id }, { workspaceId: p.workspaceId }), 403, 'owner_required');
    const byOwner = await asSession(t, p.owner.cookie, 'POST', '/api/embed-tokens', { partnerId: ana.id }, { workspaceId: p.workspaceId });
    expect(byOwner.statusCode, byOwner.body).toBe(201);
    const [entry] = await changes(t, p.owner, p.workspaceId, 'take=1&action=embed_token.created');
    expect(entry).toMatchObject({ action: 'embed_token.created', actor: { kind: 'user', id: p.owner.user.id } });
    expect(entry!.targetIds).toContain(ana.id);

    const bare = await t.workspace();
    const none = await t.inject({ method: 'POST', url: '/api/embed-tokens', headers: bearer(bare.key), payload: { tenantId: 'x', name: 'X' } });
    expectError(none, 409, 'program_required');
  });
});

describe('the page', () => {
  test('is framed only by the embedding sites, never cached, sends no referrer, and runs only its own script', async () => {
    const ana = await partnerOf('Ana Page');
    const made = await mint({ partnerId: ana.id });
    const res = await page(made.url);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain('frame-ancestors https://allowed.example https://app.allowed.example:8443');
    expect(res.headers['x-frame-options']).toBeUndefined();
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(res.body).toContain(`<script nonce="${nonce}">`);
    expect(res.body).not.toMatch(/\son[a-z]+=/i);
    expect(res.body).not.toContain(made.token);
    expect(res.body).toMatch(/<html lang="en" dir="ltr">/);
    expect(res.body).toContain('Your link');

    const ar = await page(`${made.url}&lang=ar`);
    expect(ar.body).toMatch(/<html lang="ar" dir="rtl">/);
    expect(ar.body).toContain('رابطك');

    // A program with no embedding site: framed by nobody.
    const other = await programWorkspace(t);
    const [bo] = await other.ok<{ id: string }[]>('POST', '/api/partners', [{ name: 'Bo Other' }], 201);
    const theirs = await mint({ partnerId: bo!.id }, other.key);
    const closed = await page(theirs.url);
    expect(closed.statusCode).toBe(200);
    expect(closed.headers['content-security-policy']).toContain("frame-ancestors 'none'");

    // No token, a wrong one: a page saying so, framed by nobody.
    for (const url of ['/embed/referrals', `/embed/referrals?token=lte_${'A'.repeat(43)}`, '/embed/referrals?token=x']) {
      const bad = await t.inject({ method: 'GET', url });
      expect(bad.statusCode, url).toBe(401);
      expect(bad.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(bad.headers['cache-control']).toBe('no-store');
      expect(bad.body).toContain('open it again');
    }
  });

  test('its query is never logged: the page, its API and the invitation it asks for leave no token in the logs', async () => {
    const made = await mint({ tenantId: 'user-logs', name: 'Lou Logs', email: uniqueEmail('logs') });
    const inject = logged.app.inject.bind(logged.app);
    expect((await page(made.url, inject)).statusCode).toBe(200);
    expect((await page(`${made.url}&lang=ar`, inject)).statusCode).toBe(200);
    expect((await inject({ method: 'GET', url: '/api/embed/referrals', headers: bearer(made.token) })).statusCode).toBe(200);
    expect((await inject({ method: 'POST', url: '/api/embed/referrals/payouts-invite', headers: bearer(made.token) })).statusCode).toBe(201);
    expect((await inject({ method: 'GET', url: '/api/links', headers: bearer(made.token) })).statusCode).toBe(401);
    expect((await inject({ method: 'GET', url: `/embed/referrals?token=${made.token}x` })).statusCode).toBe(401);
    const lines = logs
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { msg: string; url?: string });
    expect(lines.filter((l) => l.msg === 'request completed' && l.url === '/embed/referrals').length).toBeGreaterThanOrEqual(3);
    expect(logs).not.toContain(made.token);
    expect(logs).not.toContain(made.token.slice(4, 30));
    expect(logs).not.toContain('token=');
  });
});

describe('the API of the page', () => {
  test("shows the token's partner only: their link, figures of all time and commissions, customers masked", async () => {
    const ana = await partnerOf('Ana Figures');
    const bea = await partnerOf('Bea Other');
    const made = await mint({ partnerId: ana.id });
    let data: Referrals | undefined;
    expect(
      await within(10_000, async () => {
        data = (await read(made.token)).json<Referrals>();
        return data.link !== null;
      }),
    ).toBe(true);
    expect(data).toMatchObject({
      partner: { name: 'Ana Figures' },
      program: { name: 'Friends of Lamp', currency: 'usd' },
      link: { url: 'https://shop.example/' },
    });

    const clickId = await click(t, data!.link!.shortUrl);
    await p.ok('POST', '/api/track/lead', {
      clickId,
      eventName: 'Sign up',
      customerExternalId: 'embed-ext-1',
      customerName: 'Jane Doe',
      customerEmail: 'jane.doe@buyer.example',
    });
    await p.ok('POST', '/api/track/sale', {
      customerExternalId: 'embed-ext-1',
      customerName: 'Jane Doe',
      amount: 10_000,
      currency: 'usd',
      invoiceId: 'inv-embed-1',
    });
    await p.ok('POST', '/api/commissions', [{ partnerId: bea.id, earnings: 777, currency: 'usd', description: 'bea-only bonus' }], 201);

    expect(
      await within(15_000, async () => {
        data = (await read(made.token)).json<Referrals>();
        return data.totals.clicks === 1;
      }),
      JSON.stringify(data),
    ).toBe(true);
    const res = await read(made.token);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(data!.totals).toMatchObject({ clicks: 1, leads: 1, sales: 1 });
    expect(data!.totals.earnings.usd).toMatchObject({ pending: 0, held: 0 });
    expect(data!.totals.earnings.usd!.payable! + data!.totals.earnings.usd!.paid!).toBe(300 + 2000);
    expect(data!.commissions.map((c) => [c.type, c.earnings]).sort()).toEqual([
      ['lead', 300],
      ['sale', 2000],
    ]);
    expect(data!.commissions[0]!.customer).toMatchObject({ name: 'Jane D.', email: 'j•••@buyer.example' });
    for (const secret of ['bea-only', 'embed-ext-1', 'jane.doe@', 'inv-embed-1', bea.id, 'holdReasons']) expect(res.body).not.toContain(secret);
    // Bea's 777 as a number of the answer (the text can hold "777" inside an id: CI's run of 8c96e3b met one).
    const numbers: unknown[] = [];
    JSON.parse(res.body, (_key, value: unknown) => (typeof value === 'number' && numbers.push(value), value));
    expect(numbers).not.toContain(777);
    expect(data!.payouts).toMatchObject({ offer: 'invite', email: expect.stringMatching(/^e•••@example\.com$/) });

    // Bea's own token shows hers only.
    const beas = (await read((await mint({ partnerId: bea.id })).token)).json<Referrals>();
    expect(beas.commissions.map((c) => c.description)).toEqual(['bea-only bonus']);
    expect(beas.totals).toMatchObject({ clicks: 0, leads: 0, sales: 0 });
  });

  test('the token is a credential nowhere else: every other /api route answers it 401', async () => {
    const made = await mint({ partnerId: (await partnerOf('Ana Elsewhere')).id });
    const tried: string[] = [];
    const failures: string[] = [];
    for (const r of routeTable(t.runtime.app)) {
      const url = r.url ?? '';
      if (!url.startsWith('/api/') || url.startsWith('/api/embed/') || r.config?.public) continue;
      const { scope, account } = r.config ?? {};
      if (!scope && !account) continue;
      for (const method of [r.method].flat().map(String)) {
        if (method === 'HEAD') continue;
        const path = url.replace(/:(\w+)/g, '00000000-0000-4000-8000-000000000000');
        for (const headers of [bearer(made.token), { 'x-api-key': made.token }]) {
          const res = await t.inject({ method: method as 'GET', url: path, headers, ...(method === 'GET' || method === 'DELETE' ? {} : { payload: {} }) });
          if (res.statusCode !== 401) failures.push(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 120)}`);
        }
        tried.push(`${method} ${url}`);
      }
    }
    expect(failures).toEqual([]);
    expect(tried).toEqual(expect.arrayContaining(['GET /api/links', 'GET /api/partner', 'GET /api/me', 'GET /api/partners', 'POST /api/embed-tokens']));
    expect(tried.length).toBeGreaterThan(100);
    // And the page's API takes no other credential: a key, a session are not tokens.
    expectError(await read(p.key), 401, 'embed_token_invalid');
    expectError(await t.inject({ method: 'GET', url: '/api/embed/referrals', headers: { cookie: p.owner.cookie } }), 401, 'embed_token_invalid');
    expectError(await t.inject({ method: 'GET', url: '/api/embed/referrals', headers: { 'x-api-key': made.token } }), 401, 'embed_token_invalid');
  });

  test('"Set up payouts" mails the partner an invitation, under the issuer in the audit log, at most one per 15 minutes; once accepted the page points to the portal', async () => {
    const email = uniqueEmail('payouts');
    const made = await mint({ tenantId: 'user-payouts', name: 'Paz Payouts', email });
    const ask = () => t.inject({ method: 'POST', url: '/api/embed/referrals/payouts-invite', headers: bearer(made.token) });
    const res = await ask();
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ email: expect.stringMatching(/^p•••@example\.com$/) });
    const mail = await smtp.messageTo(email);
    expect(mail, 'the invitation mail arrived').toBeDefined();
    expect(mail!.subject).toContain('Friends of Lamp');
    const url = /https:\/\/lt\.test\/app\/partner\/invite\?token=[\w-]{43}/.exec(mail!.text ?? '')?.[0];
    expect(url).toBeTruthy();
    const [entry] = await changes(t, p.owner, p.workspaceId, 'take=1&action=partner_invite.requested');
    expect(entry).toMatchObject({ actor: { kind: 'key' } });
    expect(entry!.targetIds.length).toBeGreaterThan(0);

    // Again at once, even with a new token: refused, nothing mailed.
    expectError(await ask(), 429, 'embed_invite_recent');
    const again = await mint({ tenantId: 'user-payouts' });
    expectError(await t.inject({ method: 'POST', url: '/api/embed/referrals/payouts-invite', headers: bearer(again.token) }), 429, 'embed_invite_recent');

    // The partner accepts: the page then offers the portal, and no more invitations.
    const accepted = await t.inject({
      method: 'POST',
      url: '/api/partner-invites/accept',
      headers: { origin: ORIGIN },
      payload: { token: new URL(url!).searchParams.get('token'), name: 'Paz Payouts', password: PASSWORD },
    });
    expect(accepted.statusCode, accepted.body).toBe(200);
    sessionCookieFrom(accepted);
    const after = (await read(again.token)).json<Referrals>();
    expect(after.payouts).toEqual({ offer: 'portal', email: null, portalUrl: 'https://lt.test/app/partner' });

    // Without an e-mail, nothing to offer, and the route says why.
    const mute = await mint({ tenantId: 'user-no-mail', name: 'Ned Nomail' });
    expect((await read(mute.token)).json<Referrals>().payouts.offer).toBe('none');
    expectError(await t.inject({ method: 'POST', url: '/api/embed/referrals/payouts-invite', headers: bearer(mute.token) }), 409, 'embed_email_required');
  });
});

describe('after 2 hours', () => {
  test('the token opens nothing: 401 for the API and the page', async () => {
    const made = await mint({ partnerId: (await partnerOf('Ana Expiring')).id });
    expect((await read(made.token)).statusCode).toBe(200);
    clock.advance(2 * 3600_000 - 1000);
    expect((await read(made.token)).statusCode).toBe(200);
    clock.advance(1000);
    expectError(await read(made.token), 401, 'embed_token_invalid');
    expect((await page(made.url)).statusCode).toBe(401);
    expectError(await t.inject({ method: 'POST', url: '/api/embed/referrals/payouts-invite', headers: bearer(made.token) }), 401, 'embed_token_invalid');
  });
});
