/**
 * Applications to a partner program (operations.md §18 "Applications") through HTTP against a
 * real SMTP server: the public page and POST /api/apply/{slug} answer alike for a new address, a
 * repeat and a partner already (only the new one changes anything); a filled honeypot stores
 * nothing; unknown or closed slugs are 404; 64 KB; per-address throttling; 500 pending at most.
 * Approval (by hand or autoApprove) mails the applicant an invitation, a rejection a notice; the
 * owners get one digest an hour, with the applicants' text inert.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { queuedMailCount } from '../../../src/modules/mail/service.js';
import { bearer, startTestApp, type TestApp } from '../../helpers/app.js';
import { dropFreshDatabases, freshDatabase } from '../../helpers/fresh-database.js';
import { startSmtp, type TestSmtp } from '../../helpers/smtp.js';
import { allChanges } from '../audit/helpers.js';
import { asSession, expectError, mutableClock, ownedWorkspace, uniqueEmail, type SignedIn } from '../people/helpers.js';

let smtp: TestSmtp;
let t: TestApp;
const clock = mutableClock(new Date('2031-03-03T09:00:00Z'));

beforeAll(async () => {
  smtp = await startSmtp();
  // A database of its own: its mail worker must not take other tests' messages.
  t = await startTestApp({ database: await freshDatabase(), clock: clock.now, env: { SMTP_URL: smtp.url, MAIL_FROM: 'Linktrail <links@lt.test>' } });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
  await dropFreshDatabases();
});

interface Program {
  key: string;
  workspaceId: string;
  owner: SignedIn;
  slug: string;
}

/** A workspace with its owner and a program taking applications (settings given override). */
async function program(settings: Record<string, unknown> = {}): Promise<Program> {
  const { workspace, owner } = await ownedWorkspace(t);
  const slug = `apply-${randomUUID().slice(0, 8)}`;
  const res = await t.inject({
    method: 'PUT',
    url: '/api/program',
    headers: bearer(workspace.key),
    payload: {
      name: 'Lamp Friends',
      slug,
      landingUrl: 'https://shop.example/',
      currency: 'usd',
      termsUrl: 'https://shop.example/terms',
      applications: { open: true, autoApprove: false },
      ...settings,
    },
  });
  expect(res.statusCode, res.body).toBe(200);
  return { key: workspace.key, workspaceId: workspace.id, owner, slug };
}

// Each request from an address of its own unless a test means one: the throttle counts per address.
let addresses = 0;
const nextAddress = () => {
  addresses++;
  return `10.20.${(addresses >> 8) & 255}.${addresses & 255}`;
};

const apply = (slug: string, body: Record<string, unknown>, remoteAddress = nextAddress()) =>
  t.inject({ method: 'POST', url: `/api/apply/${slug}`, remoteAddress, payload: body });

const applicant = (extra: Record<string, unknown> = {}) => ({
  name: 'Ana Lima',
  email: uniqueEmail('applicant'),
  website: 'https://ana.example/blog',
  promotion: 'A newsletter about lamps, 4,000 readers.',
  acceptTerms: true,
  ...extra,
});

interface PartnerSeen {
  id: string;
  name: string;
  email: string | null;
  status: string;
  groupId: string | null;
  updatedAt: string;
}

async function partnersOf(p: Program): Promise<PartnerSeen[]> {
  const res = await t.inject({ method: 'GET', url: '/api/partners?take=5000', headers: bearer(p.key) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<PartnerSeen[]>();
}

async function applicationsOf(p: Program) {
  const res = await t.inject({ method: 'GET', url: '/api/partner-applications', headers: bearer(p.key) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<
    { partnerId: string; name: string; email: string; status: string; website: string | null; promotion: string | null; termsUrl: string | null }[]
  >();
}

const to = (mail: ParsedMail) => (Array.isArray(mail.to) ? mail.to : mail.to ? [mail.to] : []).flatMap((a) => a.value.map((v) => v.address?.toLowerCase()));
const mailsTo = (address: string) => smtp.received.filter((m) => to(m).includes(address.toLowerCase()));

/** Waits until the outbox is empty (every mail queued so far delivered): then what did not arrive was never sent. */
async function outboxDrained(): Promise<void> {
  await expect.poll(() => queuedMailCount(t.database.db), { timeout: 15_000, interval: 50 }).toBe(0);
}

/** An answer's headers but those that differ per request by nature. */
const sameShape = (res: LightMyRequestResponse) => {
  const { date: _d, 'x-request-id': _r, ...headers } = res.headers;
  return { status: res.statusCode, body: res.body, headers };
};

describe('applying', () => {
  test('answers 202 with no body alike for a new address, a repeat and a partner already; only the new one is stored', async () => {
    const p = await program();
    const body = applicant();
    const first = await apply(p.slug, body);
    expect(first.statusCode, first.body).toBe(202);
    expect(first.body).toBe('');

    const stored = (await partnersOf(p)).filter((x) => x.email === body.email);
    expect(stored).toHaveLength(1);
    const groups = await t.inject({ method: 'GET', url: '/api/partner-groups', headers: bearer(p.key) });
    const defaultGroup = groups.json<{ id: string; name: string }[]>().find((g) => g.name === 'default')!;
    expect(stored[0]).toMatchObject({ name: 'Ana Lima', status: 'pending', groupId: defaultGroup.id });
    expect(await applicationsOf(p)).toEqual([
      expect.objectContaining({
        partnerId: stored[0]!.id,
        email: body.email,
        status: 'pending',
        website: 'https://ana.example/blog',
        promotion: 'A newsletter about lamps, 4,000 readers.',
        termsUrl: 'https://shop.example/terms',
      }),
    ]);
    const [entry, ...others] = await allChanges(t, p.owner, p.workspaceId, 'action=partner.applied');
    expect(others).toEqual([]);
    expect(entry).toMatchObject({ actor: { kind: 'applicant', id: stored[0]!.id }, targetIds: [stored[0]!.id] });

    // The same address again, in other letters and with other words: nothing changes, and it is told so by mail.
    const before = await partnersOf(p);
    const repeat = await apply(p.slug, { ...body, email: body.email.toUpperCase(), name: 'Someone Else', promotion: 'changed' });
    expect(sameShape(repeat)).toEqual(sameShape(first));
    expect(await partnersOf(p)).toEqual(before);
    expect((await applicationsOf(p))[0]!.promotion).toBe('A newsletter about lamps, 4,000 readers.');
    await expect.poll(() => mailsTo(body.email).length, { timeout: 10_000 }).toBe(1);
    expect(mailsTo(body.email)[0]!.text).toContain('We already have an application from this address to the partner program "Lamp Friends"');
    expect(mailsTo(body.email)[0]!.text).not.toContain('Someone Else');
    // Once an hour per address, however often it is sent.
    expect(sameShape(await apply(p.slug, body))).toEqual(sameShape(first));
    await outboxDrained();
    expect(mailsTo(body.email)).toHaveLength(1);

    // A partner the owner made: the same answer, and the partner stays as it was.
    const known = await t.inject({
      method: 'POST',
      url: '/api/partners',
      headers: bearer(p.key),
      payload: [{ name: 'Known One', email: uniqueEmail('known') }],
    });
    expect(known.statusCode, known.body).toBe(201);
    const partner = known.json<PartnerSeen[]>()[0]!;
    const asPartner = await apply(p.slug, applicant({ email: partner.email }));
    expect(sameShape(asPartner)).toEqual(sameShape(first));
    const after = (await partnersOf(p)).find((x) => x.id === partner.id)!;
    expect(after).toMatchObject({ status: 'approved', name: 'Known One', updatedAt: partner.updatedAt });
    expect((await partnersOf(p)).filter((x) => x.email === partner.email)).toHaveLength(1);
    expect(await applicationsOf(p)).toHaveLength(1);
  });

  test('a filled honeypot gets the same 202 and stores nothing', async () => {
    const p = await program();
    const body = applicant({ homepage: 'https://spam.example' });
    const res = await apply(p.slug, body);
    expect(res.statusCode, res.body).toBe(202);
    expect(res.body).toBe('');
    expect((await partnersOf(p)).filter((x) => x.email === body.email)).toEqual([]);
    expect(await applicationsOf(p)).toEqual([]);
    expect(await allChanges(t, p.owner, p.workspaceId, 'action=partner.applied')).toEqual([]);
    const [stored] = await rows<{ n: number }>(
      t.database.db,
      sql`SELECT count(*)::int AS n FROM partner_applications WHERE workspace_id = ${p.workspaceId}::uuid`,
    );
    expect(stored!.n).toBe(0);
  });

  test('an unknown or closed slug is 404 for the page, its form and the route', async () => {
    const closed = await program({ applications: { open: false, autoApprove: false } });
    for (const slug of [`nope-${randomUUID().slice(0, 8)}`, closed.slug, 'NOT A SLUG']) {
      const path = encodeURIComponent(slug);
      const page = await t.inject({ method: 'GET', url: `/apply/${path}` });
      expect(page.statusCode, slug).toBe(404);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.body).toContain('There is no partner program taking applications at this address.');
      const form = await t.inject({
        method: 'POST',
        url: `/apply/${path}`,
        remoteAddress: nextAddress(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ name: 'A', email: uniqueEmail(), acceptTerms: 'true' }).toString(),
      });
      expect(form.statusCode, slug).toBe(404);
      expectError(await apply(path, applicant()), 404, 'not_found');
    }
    expect(await partnersOf(closed)).toEqual([]);
  });

  test('refuses a body over 64 KB, and fields that are wrong with the field named', async () => {
    const p = await program();
    const big = await apply(p.slug, applicant({ promotion: 'x'.repeat(70 * 1024) }));
    expect(big.statusCode).toBe(413);
    expectError(big, 413, 'body_too_large');
    const form = await t.inject({
      method: 'POST',
      url: `/apply/${p.slug}`,
      remoteAddress: nextAddress(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `name=A&email=a%40b.example&acceptTerms=true&promotion=${'y'.repeat(70 * 1024)}`,
    });
    expect(form.statusCode).toBe(413);
    expect(form.headers['content-type']).toMatch(/^text\/html/);

    const terms = await apply(p.slug, applicant({ acceptTerms: false }));
    expectError(terms, 400, 'invalid_field', 'acceptTerms');
    expect(terms.json()).toMatchObject({ field: 'acceptTerms', reason: 'terms_not_accepted' });
    expectError(await apply(p.slug, applicant({ website: 'javascript:alert(1)' })), 400, 'invalid_field', 'website');
    expectError(await apply(p.slug, applicant({ email: 'not-an-address' })), 400, 'invalid_field', 'email');
    expectError(await apply(p.slug, applicant({ promotion: 'z'.repeat(2001) })), 400, 'invalid_field', 'promotion');
    expect(await partnersOf(p)).toEqual([]);
  });

  test('throttles per address: 10, then 429 with Retry-After, the form too; another address goes on', async () => {
    const p = await program();
    const address = '203.0.113.77';
    for (let i = 0; i < 10; i++) {
      const res = await apply(p.slug, applicant(), address);
      expect(res.statusCode, `attempt ${i + 1}: ${res.body}`).toBe(202);
    }
    const refused = await apply(p.slug, applicant(), address);
    expectError(refused, 429, 'apply_throttled');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.json<{ error: { ar: string } }>().error.ar).toContain('طلبات كثيرة');
    // The page's form counts against the same address.
    const form = await t.inject({
      method: 'POST',
      url: `/apply/${p.slug}`,
      remoteAddress: address,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ name: 'A', email: uniqueEmail(), acceptTerms: 'true' }).toString(),
    });
    expect(form.statusCode).toBe(429);
    expect((await partnersOf(p)).length).toBe(10);
    expect((await apply(p.slug, applicant(), '203.0.113.78')).statusCode).toBe(202);
    // (The window itself is the sign-in throttle's counter, kept by Redis's clock there: test/http/login-throttle.test.ts.)
  });

  test('past 500 pending partners, 429 applications_full for every address alike', async () => {
    const p = await program();
    const pending = Array.from({ length: 500 }, (_, i) => ({ name: `Waiting ${i}`, email: uniqueEmail(`w${i}`), status: 'pending' }));
    const made = await t.inject({ method: 'POST', url: '/api/partners', headers: bearer(p.key), payload: pending });
    expect(made.statusCode, made.body.slice(0, 300)).toBe(201);
    const fresh = await apply(p.slug, applicant());
    expectError(fresh, 429, 'applications_full');
    const known = await apply(p.slug, applicant({ email: pending[0]!.email }));
    expect(sameShape(known)).toEqual(sameShape(fresh));
    expect((await partnersOf(p)).length).toBe(500);
    // One decided: room for one more.
    const [first] = (await partnersOf(p)).filter((x) => x.status === 'pending');
    const rejected = await asSession(t, p.owner.cookie, 'PUT', '/api/partners', [{ id: first!.id, status: 'rejected' }], { workspaceId: p.workspaceId });
    expect(rejected.statusCode, rejected.body).toBe(200);
    expect((await apply(p.slug, applicant())).statusCode).toBe(202);
    expectError(await apply(p.slug, applicant()), 429, 'applications_full');
  });
});

describe('decisions mail the applicant', () => {
  const inviteUrl = /https:\/\/lt\.test\/app\/partner\/invite\?token=[\w-]{43}/;

  test('with autoApprove the applicant is approved at once and mailed an invitation', async () => {
    const p = await program({ applications: { open: true, autoApprove: true } });
    const body = applicant({ name: 'Auto https://phish.example Approved' });
    expect((await apply(p.slug, body)).statusCode).toBe(202);
    const [partner] = (await partnersOf(p)).filter((x) => x.email === body.email);
    expect(partner).toMatchObject({ status: 'approved' });
    const mail = await smtp.messageTo(body.email);
    expect(mail, 'the invitation arrived').toBeDefined();
    expect(mail!.text).toContain('you are invited to the partner program "Lamp Friends"');
    expect(mail!.text).toMatch(inviteUrl);
    // The name they typed is inert in the mail: nothing a mail client would link.
    expect(mail!.text).toContain('Auto https[:]//phish[.]example Approved');
    expect(mail!.text).not.toContain('phish.example');
    const [entry] = await allChanges(t, p.owner, p.workspaceId, 'action=partner.applied');
    expect(entry!.targetIds).toHaveLength(2);
    // Approved applicants are no longer listed as applications.
    expect(await applicationsOf(p)).toEqual([]);
  });

  test('an owner approving a pending applicant mails the invitation; rejecting mails a notice', async () => {
    const p = await program();
    const [yes, no] = [applicant({ name: 'Yes Person' }), applicant({ name: 'No Person' })];
    expect((await apply(p.slug, yes)).statusCode).toBe(202);
    expect((await apply(p.slug, no)).statusCode).toBe(202);
    const byEmail = new Map((await partnersOf(p)).map((x) => [x.email, x]));
    const decided = await asSession(
      t,
      p.owner.cookie,
      'PUT',
      '/api/partners',
      [
        { id: byEmail.get(yes.email)!.id, status: 'approved' },
        { id: byEmail.get(no.email)!.id, status: 'rejected' },
      ],
      { workspaceId: p.workspaceId },
    );
    expect(decided.statusCode, decided.body).toBe(200);
    const invitation = await smtp.messageTo(yes.email);
    expect(invitation!.text).toMatch(inviteUrl);
    expect(invitation!.subject).toContain('Lamp Friends');
    const notice = await smtp.messageTo(no.email);
    expect(notice!.text).toContain('Your application was not accepted.');
    expect(notice!.text).toContain('لم يُقبل طلبك');
    expect(notice!.text).not.toMatch(/https?:\/\//);
    // The invitation works: accepting it makes the account that partner.
    const token = new URL(invitation!.text!.match(inviteUrl)![0]).searchParams.get('token')!;
    const lookup = await t.inject({ method: 'POST', url: '/api/partner-invites/lookup', payload: { token } });
    expect(lookup.statusCode, lookup.body).toBe(200);
    expect(lookup.json()).toMatchObject({ email: yes.email, programName: 'Lamp Friends' });
    // The owner's write is one audit entry with the invitation in it.
    const [entry] = await allChanges(t, p.owner, p.workspaceId, 'action=partners.upserted');
    expect(entry!.counts).toMatchObject({ invited: 1 });
    await outboxDrained();
    // Once each: the decision mails nothing else.
    expect(mailsTo(yes.email)).toHaveLength(1);
    expect(mailsTo(no.email)).toHaveLength(1);
  });

  test('a pending partner the owner made (not an applicant) is not mailed when approved', async () => {
    const p = await program();
    const email = uniqueEmail('owner-made');
    const made = await t.inject({ method: 'POST', url: '/api/partners', headers: bearer(p.key), payload: [{ name: 'Made', email, status: 'pending' }] });
    const id = made.json<PartnerSeen[]>()[0]!.id;
    const res = await asSession(t, p.owner.cookie, 'PUT', '/api/partners', [{ id, status: 'approved' }], { workspaceId: p.workspaceId });
    expect(res.statusCode, res.body).toBe(200);
    await outboxDrained();
    expect(mailsTo(email)).toEqual([]);
  });
});

describe("the owners' digest", () => {
  test('at most one mail per program an hour, the applicants’ text escaped and never a link', async () => {
    const p = await program();
    const ownerMails = () => mailsTo(p.owner.user.email).filter((m) => m.subject?.startsWith('New applications to Lamp Friends'));
    const hostile = applicant({
      name: '<script>alert(1)</script> Eve',
      website: 'https://evil.example/path?x=<b>',
      promotion: 'Visit www.phish.example or http://x.test/a <b>bold</b> <a href="https://evil.example">here</a>, mail eve@evil.example',
    });
    expect((await apply(p.slug, hostile)).statusCode).toBe(202);
    await expect.poll(() => ownerMails().length, { timeout: 10_000 }).toBe(1);
    const [digest] = ownerMails();
    const pageUrl = `https://lt.test/app/program/applications?workspace=${p.workspaceId}`;
    expect(digest!.text).toContain('1 new application to the partner program "Lamp Friends"');
    expect(digest!.text).toContain(pageUrl);
    expect(digest!.text).toContain('<script>alert(1)</script> Eve');
    expect(digest!.text).toContain('https[:]//evil[.]example/path');
    expect(digest!.text).toContain('www[.]phish[.]example');
    expect(digest!.text).toContain('eve@evil[.]example');
    for (const live of ['evil.example', 'phish.example', 'http://', 'x.test']) expect(digest!.text).not.toContain(live);
    const html = String(digest!.html);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; Eve');
    expect(html).not.toMatch(/<script|<b>|evil\.example|phish\.example/);
    // Its only links are the dashboard's page.
    const hrefs = [...html.matchAll(/<a\s[^>]*href="([^"]*)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
    expect(hrefs.length).toBeGreaterThan(0);
    expect(new Set(hrefs)).toEqual(new Set([pageUrl]));

    // Within the hour: stored, not mailed.
    clock.advance(10 * 60_000);
    const second = applicant({ name: 'Second Applicant' });
    expect((await apply(p.slug, second)).statusCode).toBe(202);
    await t.runtime.maintain();
    await outboxDrained();
    expect(ownerMails()).toHaveLength(1);

    // An hour after the first: the job sends what waited, once.
    clock.advance(51 * 60_000);
    await t.runtime.maintain();
    await expect.poll(() => ownerMails().length, { timeout: 10_000 }).toBe(2);
    expect(ownerMails()[1]!.text).toContain('1 new application');
    expect(ownerMails()[1]!.text).toContain('Second Applicant');
    expect(ownerMails()[1]!.text).not.toContain('Eve');
    await t.runtime.maintain();
    const third = applicant({ name: 'Third Applicant' });
    expect((await apply(p.slug, third)).statusCode).toBe(202);
    await outboxDrained();
    expect(ownerMails()).toHaveLength(2);

    // Another program's owners have their own hour.
    const other = await program();
    expect((await apply(other.slug, applicant())).statusCode).toBe(202);
    await expect.poll(() => mailsTo(other.owner.user.email).length, { timeout: 10_000 }).toBe(1);
  });
});

describe('the page', () => {
  test('in English and Arabic (lang or Accept-Language), naming the program, its terms and nothing of its partners', async () => {
    const p = await program();
    await t.inject({ method: 'POST', url: '/api/partners', headers: bearer(p.key), payload: [{ name: 'Secret Partner', email: uniqueEmail('secret') }] });
    const en = await t.inject({ method: 'GET', url: `/apply/${p.slug}` });
    expect(en.statusCode).toBe(200);
    expect(en.headers['content-type']).toMatch(/^text\/html/);
    expect(en.headers['content-security-policy']).toContain("default-src 'none'");
    expect(en.body).toContain('<html lang="en">');
    expect(en.body).toContain('Become a partner of <bdi>Lamp Friends</bdi>');
    expect(en.body).toContain('href="https://shop.example/terms"');
    expect(en.body).toContain('name="homepage"');
    expect(en.body).not.toContain('Secret Partner');
    expect(en.body).not.toMatch(/<script/);
    for (const ar of [
      await t.inject({ method: 'GET', url: `/apply/${p.slug}?lang=ar` }),
      await t.inject({ method: 'GET', url: `/apply/${p.slug}`, headers: { 'accept-language': 'ar-EG,ar;q=0.9,en;q=0.5' } }),
    ]) {
      expect(ar.statusCode).toBe(200);
      expect(ar.body).toContain('<html lang="ar" dir="rtl">');
      expect(ar.body).toContain('انضمّ إلى شركاء <bdi>Lamp Friends</bdi>');
    }
  });

  test('its form applies as the route does, and shows a wrong field again with the values typed', async () => {
    const p = await program();
    const email = uniqueEmail('form');
    const post = (fields: Record<string, string>, lang = 'en') =>
      t.inject({
        method: 'POST',
        url: `/apply/${p.slug}?lang=${lang}`,
        remoteAddress: nextAddress(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(fields).toString(),
      });
    const wrong = await post({ name: 'Form <Person>', email: 'nope', promotion: 'Podcasts', acceptTerms: 'true' }, 'ar');
    expect(wrong.statusCode).toBe(400);
    expect(wrong.body).toContain('<html lang="ar" dir="rtl">');
    expect(wrong.body).toMatch(/id="apply-email"[^>]*aria-invalid="true"/);
    expect(wrong.body).toContain('value="Form &lt;Person&gt;"');
    expect(wrong.body).toContain('>Podcasts</textarea>');
    const noTerms = await post({ name: 'Form Person', email });
    expect(noTerms.statusCode).toBe(400);
    expect(noTerms.body).toMatch(/name="acceptTerms"[^>]*aria-invalid="true"/);
    const sent = await post({ name: 'Form Person', email, website: 'form.example', promotion: 'Podcasts', acceptTerms: 'true', homepage: '' });
    expect(sent.statusCode, sent.body).toBe(200);
    expect(sent.body).toContain('Your application has been received.');
    expect((await applicationsOf(p))[0]).toMatchObject({ email, website: 'https://form.example/', promotion: 'Podcasts', status: 'pending' });
    // Again: the very same page.
    const again = await post({ name: 'Form Person', email, acceptTerms: 'true' });
    expect(again.statusCode).toBe(200);
    expect(again.body).toBe(sent.body);
  });
});
