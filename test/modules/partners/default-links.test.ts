/**
 * Partners' default links through HTTP (operations.md §18 "Default link and partner links"): made
 * once when a partner is first approved in a program (the write's answer names it), by a
 * background job for the partners the program's first PUT approved, following later landing URL
 * changes unless edited, not deletable while the partner is approved, and aliased on the
 * program's link host by the referral key when that is free.
 */
import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bearer, onPostgres, startTestApp, type TestApp, type WorkspaceFixture } from '../../helpers/app.js';
import { within } from '../../helpers/wait.js';
import { freshHost } from '../domains/helpers.js';

interface Partner {
  id: string;
  status: string;
  referralKey: string | null;
  defaultLinkId: string | null;
}

interface Link {
  id: string;
  url: string;
  partnerId: string | null;
  collectionId: string;
  shortUrl: string;
  aliases: string[];
}

interface Program {
  id: string;
  collectionId: string;
  landingUrl: string;
}

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const send = (app: TestApp, w: WorkspaceFixture, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) =>
  app.inject({
    method,
    url,
    headers: { ...bearer(w.key), 'content-type': 'application/json' },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

function ok<T>(res: LightMyRequestResponse, status: number): T {
  expect(res.statusCode, res.body).toBe(status);
  return res.json<T>();
}

const fresh = (label: string) => `${label}-${randomBytes(4).toString('hex')}`;

async function putProgram(w: WorkspaceFixture, extra: object = {}, app = t): Promise<Program> {
  const body = { name: 'Friends', slug: fresh('p'), landingUrl: 'https://acme.example/welcome', currency: 'usd', ...extra };
  return ok<Program>(await send(app, w, 'PUT', '/api/program', body), 200);
}

const createPartners = async (w: WorkspaceFixture, items: object[], app = t) => ok<Partner[]>(await send(app, w, 'POST', '/api/partners', items), 201);
const upsertPartners = async (w: WorkspaceFixture, items: object[]) => ok<Partner[]>(await send(t, w, 'PUT', '/api/partners', items), 200);
const partners = async (w: WorkspaceFixture, app = t) => ok<Partner[]>(await send(app, w, 'GET', '/api/partners?take=5000'), 200);
const linksOf = async (w: WorkspaceFixture, partnerId: string, app = t) =>
  ok<Link[]>(await send(app, w, 'GET', `/api/links?partnerId=${partnerId}&take=100`), 200);
const link = async (w: WorkspaceFixture, id: string) => ok<Link[]>(await send(t, w, 'GET', `/api/links?id=${id}`), 200)[0];

/** Where a visit of this short link goes now. */
async function target(shortUrl: string): Promise<string> {
  const url = new URL(shortUrl);
  const res = await t.inject({ method: 'GET', url: url.pathname, headers: { host: url.host, 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/125.0' } });
  if (res.statusCode !== 302) return `status ${res.statusCode}`;
  const to = new URL(res.headers.location as string);
  return to.origin + to.pathname;
}

describe('approval makes the default link', () => {
  test('a partner created approved gets one link: the landing URL, their id, the program collection; the answer names it', async () => {
    const w = await t.workspace();
    const program = await putProgram(w);
    const [ada, pending] = await createPartners(w, [{ name: 'Ada' }, { name: 'Bob', status: 'pending' }]);
    expect(ada!.defaultLinkId).toMatch(/^[0-9a-f-]{36}$/);
    expect(pending!.defaultLinkId).toBeNull();
    const links = await linksOf(w, ada!.id);
    expect(links).toHaveLength(1);
    expect(links[0]).toMatchObject({ id: ada!.defaultLinkId, url: 'https://acme.example/welcome', partnerId: ada!.id, collectionId: program.collectionId });
    expect(await linksOf(w, pending!.id)).toEqual([]);
    // GET shows it too.
    expect((await partners(w)).find((p) => p.id === ada!.id)!.defaultLinkId).toBe(ada!.defaultLinkId);
  });

  test('moving pending → approved makes it; banned → approved again makes no second', async () => {
    const w = await t.workspace();
    await putProgram(w);
    const [p] = await createPartners(w, [{ name: 'Cleo', status: 'pending' }]);
    const [approved] = await upsertPartners(w, [{ id: p!.id, status: 'approved' }]);
    expect(approved!.defaultLinkId).not.toBeNull();
    expect(await linksOf(w, p!.id)).toHaveLength(1);

    await upsertPartners(w, [{ id: p!.id, status: 'banned' }]);
    const [again] = await upsertPartners(w, [{ id: p!.id, status: 'approved' }]);
    expect(again!.defaultLinkId).toBe(approved!.defaultLinkId);
    const links = await linksOf(w, p!.id);
    expect(links.map((l) => l.id)).toEqual([approved!.defaultLinkId]);
  });

  test('without a program nothing is made', async () => {
    const w = await t.workspace();
    const [p] = await createPartners(w, [{ name: 'Dan' }]);
    expect(p!.defaultLinkId).toBeNull();
    expect(await linksOf(w, p!.id)).toEqual([]);
  });

  test("the program's collection deleted by the owner: approvals still make the link, in a new collection named after the program, which the program names", async () => {
    const w = await t.workspace();
    const program = await putProgram(w);
    expect((await send(t, w, 'DELETE', '/api/collections', [program.collectionId])).statusCode).toBe(200);
    const [p] = await createPartners(w, [{ name: 'Eve' }]);
    expect(p!.defaultLinkId).toMatch(/^[0-9a-f-]{36}$/);
    const links = await linksOf(w, p!.id);
    expect(links).toHaveLength(1);
    const now = ok<Program>(await send(t, w, 'GET', '/api/program'), 200);
    expect(now.collectionId).not.toBe(program.collectionId);
    expect(links[0]).toMatchObject({ id: p!.defaultLinkId, url: 'https://acme.example/welcome', partnerId: p!.id, collectionId: now.collectionId });
    const [collection] = ok<{ id: string; name: string }[]>(await send(t, w, 'GET', `/api/collections?id=${now.collectionId}`), 200);
    expect(collection).toMatchObject({ id: now.collectionId, name: 'Friends' });
    // The next approval uses that one.
    const [q] = await createPartners(w, [{ name: 'Fay' }]);
    expect((await linksOf(w, q!.id))[0]!.collectionId).toBe(now.collectionId);
  });
});

describe("the program's first PUT", () => {
  /** Polls until each of `approved` shows a default link; the partners as last read. */
  async function linked(w: WorkspaceFixture, approved: Partner[]): Promise<Partner[]> {
    let seen: Partner[] = [];
    const done = await within(10_000, async () => {
      seen = await partners(w);
      return approved.every((a) => seen.find((p) => p.id === a.id)?.defaultLinkId);
    });
    expect(done, JSON.stringify(seen)).toBe(true);
    return seen;
  }

  async function expectOneEach(w: WorkspaceFixture, program: Program, approved: Partner[], seen: Partner[]): Promise<void> {
    for (const a of approved) {
      const links = await linksOf(w, a.id);
      expect(links).toHaveLength(1);
      expect(links[0]).toMatchObject({
        id: seen.find((p) => p.id === a.id)!.defaultLinkId,
        url: program.landingUrl,
        partnerId: a.id,
        collectionId: program.collectionId,
      });
    }
  }

  test('answers at once; a background job made in this instance right after makes the links of the partners it approved', async () => {
    const w = await t.workspace();
    const made = await createPartners(w, [{ name: 'Eve' }, { name: 'Finn' }, { name: 'Hal', status: 'pending' }]);
    expect(made.every((p) => p.defaultLinkId === null)).toBe(true);
    // Scheduled maintenance is off in tests: only the PUT's own kick runs the job here.
    const program = await putProgram(w);
    const approved = made.filter((p) => p.status === 'approved');
    const seen = await linked(w, approved);
    await expectOneEach(w, program, approved, seen);
    expect(seen.find((p) => p.id === made[2]!.id)!.defaultLinkId).toBeNull();
    expect(await linksOf(w, made[2]!.id)).toEqual([]);
  });

  test('two instances running the job with the kick still make one link per partner', async () => {
    const w = await t.workspace();
    const made = await createPartners(
      w,
      Array.from({ length: 30 }, (_, i) => ({ name: `Partner ${i}` })),
    );
    const b = await startTestApp(onPostgres ? {} : { database: t.database });
    try {
      const program = await putProgram(w);
      await Promise.all([t.runtime.maintain(), b.runtime.maintain(), t.runtime.maintain()]);
      const seen = await linked(w, made);
      await expectOneEach(w, program, made, seen);
      const all = ok<Link[]>(await send(t, w, 'GET', `/api/links?collectionId=${program.collectionId}&take=100`), 200);
      expect(all).toHaveLength(made.length);
    } finally {
      await b.close();
    }
  });
});

describe('the landing URL', () => {
  test('a change moves the default links not edited since (and the redirect follows); an edited one and other links stay', async () => {
    const w = await t.workspace();
    const program = await putProgram(w);
    const [kept, edited] = await createPartners(w, [{ name: 'Ida' }, { name: 'Jon' }]);
    const plain = ok<Link[]>(
      await send(t, w, 'POST', '/api/links', [{ url: 'https://acme.example/welcome', collectionId: program.collectionId, partnerId: kept!.id }]),
      201,
    )[0]!;
    ok(await send(t, w, 'PUT', '/api/links', [{ id: edited!.defaultLinkId, url: 'https://acme.example/jon' }]), 200);
    const keptLink = (await link(w, kept!.defaultLinkId!))!;
    // Cached by the redirect before the change.
    expect(await target(keptLink.shortUrl)).toBe('https://acme.example/welcome');

    await putProgram(w, { landingUrl: 'https://acme.example/start' });

    expect((await link(w, kept!.defaultLinkId!))!.url).toBe('https://acme.example/start');
    expect((await link(w, edited!.defaultLinkId!))!.url).toBe('https://acme.example/jon');
    expect((await link(w, plain.id))!.url).toBe('https://acme.example/welcome');
    expect(await target(keptLink.shortUrl)).toBe('https://acme.example/start');
    // A partner approved now gets the new landing URL.
    const [late] = await createPartners(w, [{ name: 'Kim' }]);
    expect((await link(w, late!.defaultLinkId!))!.url).toBe('https://acme.example/start');
  });
});

describe('deleting a default link', () => {
  test('while its partner is approved: 400 default_link naming the item, nothing deleted; once banned it goes', async () => {
    const w = await t.workspace();
    const program = await putProgram(w);
    const [p] = await createPartners(w, [{ name: 'Lea' }]);
    const other = ok<Link[]>(await send(t, w, 'POST', '/api/links', [{ url: 'https://acme.example/other', collectionId: program.collectionId }]), 201)[0]!;

    const res = await send(t, w, 'DELETE', '/api/links', [other.id, p!.defaultLinkId]);
    expect(res.statusCode, res.body).toBe(400);
    const body = res.json<{ error: { en: string; ar: string; code: string }; field?: string }>();
    expect(body.error.code).toBe('default_link');
    expect(body.field).toBe('[1]');
    expect(body.error.en).toContain('[1]');
    expect(body.error.ar).toMatch(/[\u0600-\u06ff]/);
    expect(await link(w, other.id)).toBeDefined();
    expect(await link(w, p!.defaultLinkId!)).toBeDefined();

    await upsertPartners(w, [{ id: p!.id, status: 'banned' }]);
    expect(ok<{ deletedIds: string[] }>(await send(t, w, 'DELETE', '/api/links', [p!.defaultLinkId]), 200).deletedIds).toEqual([p!.defaultLinkId]);
    // Approved again: the link was made once; none is made anew.
    const [again] = await upsertPartners(w, [{ id: p!.id, status: 'approved' }]);
    expect(again!.defaultLinkId).toBe(p!.defaultLinkId);
    expect(await linksOf(w, p!.id)).toEqual([]);
  });
});

describe('with a link host', () => {
  async function withHost() {
    const w = await t.workspace();
    const host = freshHost();
    const claimed = ok<{ id: string }>(await send(t, w, 'POST', '/api/domains', { host }), 201);
    expect((await t.admin('POST', `/domains/${claimed.id}/verify`)).statusCode).toBe(200);
    const program = await putProgram(w, { linkHost: host });
    return { w, host, program };
  }

  test("the default link's alias on it is the referral key, and it redirects to the landing URL", async () => {
    const { w, host } = await withHost();
    const key = fresh('ada');
    const [p] = await createPartners(w, [{ name: 'Ada', referralKey: key }]);
    const made = (await link(w, p!.defaultLinkId!))!;
    expect(made.aliases).toEqual([`https://${host}/${key}`]);
    expect(await target(`https://${host}/${key}`)).toBe('https://acme.example/welcome');
  });

  test('a referral key already taken on the host: the partner is approved with the link, without the alias', async () => {
    const { w, host, program } = await withHost();
    const key = fresh('taken');
    ok(
      await send(t, w, 'POST', '/api/links', [{ url: 'https://acme.example/x', collectionId: program.collectionId, aliases: [`https://${host}/${key}`] }]),
      201,
    );
    const [p] = await createPartners(w, [{ name: 'Max', referralKey: key }]);
    expect(p!.status).toBe('approved');
    expect(p!.defaultLinkId).not.toBeNull();
    expect((await link(w, p!.defaultLinkId!))!.aliases).toEqual([]);
  });
});
