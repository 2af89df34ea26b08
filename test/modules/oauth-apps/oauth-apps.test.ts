/**
 * OAuth apps of the workspace settings and the apps connected to a workspace (operations.md §7,
 * §9): the redirect URI rule, secrets shown once and stored only as SHA-256, update, a new
 * secret, deletion revoking every consent, and the authorizations list — through the service
 * on the real database, then through HTTP with the session cookie (owner only, session only,
 * other workspaces 404). Consents (oauth_grants rows) are inserted directly: the OAuth
 * endpoints that create them are another module. PGlite, and PostgreSQL + Redis with
 * DATABASE_URL/REDIS_URL.
 */
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { newId } from '../../../src/db/ids.js';
import { oauthApps, oauthGrants } from '../../../src/db/schema.js';
import { AppError } from '../../../src/core/errors.js';
import { sha256 } from '../../../src/core/secret.js';
import {
  checkRedirectUri,
  clientSecretMatches,
  createApp,
  deleteApp,
  findClient,
  listApps,
  listAuthorizations,
  revokeAuthorization,
  rotateSecret,
  updateApp,
} from '../../../src/modules/oauth-apps/service.js';
import { bearer, startTestApp, type TestApp } from '../../helpers/app.js';
import { asSession, createHumanToken, createUser, expectError, mutableClock, ownedWorkspace, signedInMember, type TestUser } from '../people/helpers.js';

const clock = mutableClock(new Date('2030-03-01T10:00:00Z'));
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ clock: clock.now });
});
afterAll(() => t.close());

const db = () => t.database.db;
/** What a service call is given: the database and the time (the test clock's unless given). */
const ctx = (now = clock.now()) => ({ db: db(), now });
const CLIENT_ID = /^ltc_[A-Za-z0-9_-]{43}$/;
const CLIENT_SECRET = /^ltcs_[A-Za-z0-9_-]{43}$/;
const input = (extra: Partial<{ name: string; redirectUris: string[]; confidential: boolean; scopes: string[] }> = {}) => ({
  name: 'Zapier-like',
  redirectUris: ['https://app.example.com/oauth/callback'],
  confidential: true,
  scopes: ['linksRead', 'linksWrite'],
  ...extra,
});

/** The AppError a service call fails with, or a failure when it succeeds. */
async function failure(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected the call to fail');
}

async function expectInvalid(p: Promise<unknown>, field: string, reasonCode: string) {
  const e = await failure(p);
  expect(e.code).toBe('invalid_field');
  expect(e.params).toMatchObject({ field, reasonCode });
}

async function expectNotFound(p: Promise<unknown>, resource: string, id: string) {
  const e = await failure(p);
  expect(e.code).toBe('not_found');
  expect(e.params).toEqual({ resource, id });
}

const storedApp = async (id: string) => (await db().select().from(oauthApps).where(eq(oauthApps.id, id)))[0]!;
const storedGrant = async (id: string) => (await db().select().from(oauthGrants).where(eq(oauthGrants.id, id)))[0]!;

/** A consent row as the authorize endpoint will write it. */
async function insertGrant(appId: string, user: TestUser, workspaceId: string, scopes = ['linksRead'], createdAt = clock.now()): Promise<string> {
  const id = newId();
  await db().insert(oauthGrants).values({ id, appId, userId: user.id, workspaceId, scopes, createdAt });
  return id;
}

describe('checkRedirectUri', () => {
  const accepted = [
    'https://app.example.com/oauth/callback',
    'https://app.example.com/cb?tenant=1',
    'HTTPS://App.Example.com/cb',
    'https://example.com:8443/cb',
    'http://localhost:8080/cb',
    'http://localhost/cb',
    'http://127.0.0.1:3000/callback',
    'http://[::1]:5173/cb',
    `https://example.com/${'a'.repeat(2048 - 'https://example.com/'.length)}`,
  ];
  test.each(accepted)('accepts %s, unchanged', (uri) => {
    expect(checkRedirectUri(uri, 'redirectUris[0]')).toBe(uri);
  });

  const refused: [string, string, string][] = [
    ['http on a public host', 'http://example.com/cb', 'redirect_uri'],
    ['http on a host that only starts like localhost', 'http://localhost.evil.example/cb', 'redirect_uri'],
    ['http on another private address', 'http://192.168.1.10/cb', 'redirect_uri'],
    ['a fragment', 'https://app.example.com/cb#done', 'redirect_uri'],
    ['an empty fragment', 'https://app.example.com/cb#', 'redirect_uri'],
    ['javascript:', 'javascript:alert(1)', 'redirect_uri'],
    ['a custom scheme', 'myapp://callback', 'redirect_uri'],
    ['a data: URL', 'data:text/html,hi', 'redirect_uri'],
    ['a relative URL', '/oauth/callback', 'redirect_uri'],
    ['a protocol-relative URL', '//app.example.com/cb', 'redirect_uri'],
    ['https without slashes', 'https:app.example.com/cb', 'redirect_uri'],
    ['no host', 'https:///cb', 'redirect_uri'],
    ['user info', 'https://user:pass@app.example.com/cb', 'redirect_uri'],
    ['an empty user info', 'https://@app.example.com/cb', 'redirect_uri'],
    ['a backslash', 'https://evil.example\\@app.example.com/cb', 'redirect_uri'],
    ['empty', '', 'redirect_uri'],
    ['a space', 'https://app.example.com/a b', 'url_characters'],
    ['a line break', 'https://app.example.com/cb\r\nX: y', 'url_characters'],
    ['non-ASCII', 'https://bücher.example/cb', 'url_characters'],
    ['over 2048 characters', `https://example.com/${'a'.repeat(2049 - 'https://example.com/'.length)}`, 'max_length'],
  ];
  test.each(refused)('refuses %s', (_label, uri, reasonCode) => {
    let thrown: unknown;
    try {
      checkRedirectUri(uri, 'redirectUris[2]');
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect((thrown as AppError).params).toMatchObject({ field: 'redirectUris[2]', reasonCode });
  });
});

describe('service', () => {
  test('a confidential app: ltc_ client id in clear, ltcs_ secret returned once and stored only as its SHA-256', async () => {
    const w = await t.workspace();
    const app = await createApp({ ctx: ctx(), input: { ...input({ scopes: ['linksRead', 'linksRead', 'tagsRead'] }), workspaceId: w.id } });
    expect(app).toMatchObject({
      workspaceId: w.id,
      name: 'Zapier-like',
      redirectUris: ['https://app.example.com/oauth/callback'],
      confidential: true,
      scopes: ['linksRead', 'tagsRead'],
    });
    expect(app.createdAt.toISOString()).toBe(clock.now().toISOString());
    expect(app.clientId).toMatch(CLIENT_ID);
    expect(app.clientSecret).toMatch(CLIENT_SECRET);
    const row = await storedApp(app.id);
    expect(row.clientId).toBe(app.clientId);
    expect(Buffer.from(row.secretHash!).equals(sha256(app.clientSecret!))).toBe(true);
    expect(JSON.stringify(row)).not.toContain(app.clientSecret!.slice(5));
    expect(JSON.stringify(await listApps({ ctx: ctx(), input: { workspaceId: w.id } }))).not.toContain(app.clientSecret!.slice(5));
  });

  test('a public app: no clientSecret key and no stored hash', async () => {
    const w = await t.workspace();
    const app = await createApp({ ctx: ctx(), input: { ...input({ confidential: false }), workspaceId: w.id } });
    expect(app.confidential).toBe(false);
    expect('clientSecret' in app).toBe(false);
    expect((await storedApp(app.id)).secretHash).toBeNull();
    const client = (await findClient({ ctx: ctx(), input: { clientId: app.clientId } }))!;
    expect(clientSecretMatches(client, '')).toBe(false);
    expect(clientSecretMatches(client, 'ltcs_' + 'A'.repeat(43))).toBe(false);
  });

  test('two apps never share a client id or a secret', async () => {
    const w = await t.workspace();
    const a = await createApp({ ctx: ctx(), input: { ...input(), workspaceId: w.id } });
    const b = await createApp({ ctx: ctx(), input: { ...input(), workspaceId: w.id } });
    expect(a.clientId).not.toBe(b.clientId);
    expect(a.clientSecret).not.toBe(b.clientSecret);
  });

  test('registration rules: URI count, duplicates, each URI, scopes and name', async () => {
    const w = await t.workspace();
    const create = (extra: Parameters<typeof input>[0]) => createApp({ ctx: ctx(), input: { ...input(extra), workspaceId: w.id } });
    const eleven = Array.from({ length: 11 }, (_, i) => `https://app.example.com/cb${i}`);
    await expectInvalid(create({ redirectUris: eleven }), 'redirectUris', 'max_items');
    await expectInvalid(create({ redirectUris: [] }), 'redirectUris', 'min_items');
    await expectInvalid(
      create({ redirectUris: ['https://a.example/cb', 'https://b.example/cb', 'https://a.example/cb'] }),
      'redirectUris[2]',
      'duplicate_in_request',
    );
    await expectInvalid(create({ redirectUris: ['https://a.example/cb', 'http://example.com/cb'] }), 'redirectUris[1]', 'redirect_uri');
    await expectInvalid(create({ scopes: [] }), 'scopes', 'min_items');
    await expectInvalid(create({ scopes: ['linksRead', 'admin'] }), 'scopes[1]', 'enum');
    await expectInvalid(create({ name: '' }), 'name', 'min_length');
    await expectInvalid(create({ name: 'n'.repeat(101) }), 'name', 'max_length');
    expect(await listApps({ ctx: ctx(), input: { workspaceId: w.id } })).toEqual([]);
    const ten = await create({ redirectUris: eleven.slice(0, 10), name: 'n'.repeat(100) });
    expect(ten.redirectUris).toEqual(eleven.slice(0, 10));
  });

  test('an unknown workspace: 404, nothing stored', async () => {
    const ghost = randomUUID();
    await expectNotFound(createApp({ ctx: ctx(), input: { ...input(), workspaceId: ghost } }), 'workspace', ghost);
  });

  test('list: this workspace only, oldest first, not deleted, never a secret or hash', async () => {
    const w = await t.workspace();
    const other = await t.workspace();
    const first = await createApp({ ctx: ctx(new Date('2030-01-01T00:00:00Z')), input: { ...input({ name: 'first' }), workspaceId: w.id } });
    const second = await createApp({
      ctx: ctx(new Date('2030-01-02T00:00:00Z')),
      input: { ...input({ name: 'second', confidential: false }), workspaceId: w.id },
    });
    const gone = await createApp({ ctx: ctx(new Date('2030-01-03T00:00:00Z')), input: { ...input({ name: 'gone' }), workspaceId: w.id } });
    await createApp({ ctx: ctx(), input: { ...input({ name: 'elsewhere' }), workspaceId: other.id } });
    await deleteApp({ ctx: ctx(), input: { workspaceId: w.id, id: gone.id } });
    const listed = await listApps({ ctx: ctx(), input: { workspaceId: w.id } });
    expect(listed.map((a) => a.name)).toEqual(['first', 'second']);
    for (const a of listed)
      expect(Object.keys(a).sort()).toEqual(['clientId', 'confidential', 'createdAt', 'id', 'name', 'redirectUris', 'scopes', 'workspaceId']);
    const { clientSecret: _shownOnce, ...firstListed } = first;
    expect(listed[0]).toEqual(firstListed);
    expect(listed[1]).toEqual(second);
  });

  test('update: name, redirect URIs and scopes, each alone; the same rules; nothing to update is a 400', async () => {
    const w = await t.workspace();
    const app = await createApp({ ctx: ctx(), input: { ...input(), workspaceId: w.id } });
    const renamed = await updateApp({ ctx: ctx(), input: { workspaceId: w.id, id: app.id, name: 'Renamed' } });
    expect(renamed).toMatchObject({ name: 'Renamed', redirectUris: app.redirectUris, scopes: app.scopes, clientId: app.clientId });
    const moved = await updateApp({
      ctx: ctx(),
      input: { workspaceId: w.id, id: app.id, redirectUris: ['http://127.0.0.1:9000/cb', 'https://new.example/cb'] },
    });
    expect(moved.redirectUris).toEqual(['http://127.0.0.1:9000/cb', 'https://new.example/cb']);
    const narrowed = await updateApp({ ctx: ctx(), input: { workspaceId: w.id, id: app.id, scopes: ['analyticsRead', 'analyticsRead'] } });
    expect(narrowed).toMatchObject({ name: 'Renamed', scopes: ['analyticsRead'] });
    expect((await listApps({ ctx: ctx(), input: { workspaceId: w.id } }))[0]).toEqual(narrowed);
    await expectInvalid(
      updateApp({ ctx: ctx(), input: { workspaceId: w.id, id: app.id, redirectUris: ['https://x.example/cb#f'] } }),
      'redirectUris[0]',
      'redirect_uri',
    );
    await expectInvalid(updateApp({ ctx: ctx(), input: { workspaceId: w.id, id: app.id } }), 'body', 'nothing_to_update');
    // The secret survives an update.
    expect(clientSecretMatches((await findClient({ ctx: ctx(), input: { clientId: app.clientId } }))!, app.clientSecret!)).toBe(true);
  });

  test('rotate: the old secret stops matching, the new one matches; a public app has none to rotate', async () => {
    const w = await t.workspace();
    const app = await createApp({ ctx: ctx(), input: { ...input(), workspaceId: w.id } });
    const before = (await findClient({ ctx: ctx(), input: { clientId: app.clientId } }))!;
    expect(clientSecretMatches(before, app.clientSecret!)).toBe(true);
    const { clientSecret } = await rotateSecret({ ctx: ctx(), input: { workspaceId: w.id, id: app.id } });
    expect(clientSecret).toMatch(CLIENT_SECRET);
    expect(clientSecret).not.toBe(app.clientSecret);
    const after = (await findClient({ ctx: ctx(), input: { clientId: app.clientId } }))!;
    expect(clientSecretMatches(after, app.clientSecret!)).toBe(false);
    expect(clientSecretMatches(after, clientSecret)).toBe(true);
    expect(clientSecretMatches(after, clientSecret.slice(0, -1))).toBe(false);
    expect(clientSecretMatches(after, sha256(clientSecret).toString('hex'))).toBe(false);
    const pub = await createApp({ ctx: ctx(), input: { ...input({ confidential: false }), workspaceId: w.id } });
    await expectInvalid(rotateSecret({ ctx: ctx(), input: { workspaceId: w.id, id: pub.id } }), 'confidential', 'public_app');
    expect((await storedApp(pub.id)).secretHash).toBeNull();
  });

  test("another workspace's app, an unknown id and a deleted app: 404 oauth app, and the app is untouched", async () => {
    const w = await t.workspace();
    const other = await t.workspace();
    const app = await createApp({ ctx: ctx(), input: { ...input(), workspaceId: w.id } });
    const ghost = randomUUID();
    for (const [workspaceId, id] of [
      [other.id, app.id],
      [w.id, ghost],
    ] as const) {
      await expectNotFound(updateApp({ ctx: ctx(), input: { workspaceId, id, name: 'x' } }), 'oauth app', id);
      await expectNotFound(rotateSecret({ ctx: ctx(), input: { workspaceId, id } }), 'oauth app', id);
      await expectNotFound(deleteApp({ ctx: ctx(), input: { workspaceId, id } }), 'oauth app', id);
    }
    const row = await storedApp(app.id);
    expect(row.name).toBe('Zapier-like');
    expect(row.deletedAt).toBeNull();
    expect(clientSecretMatches(row, app.clientSecret!)).toBe(true);
    await deleteApp({ ctx: ctx(), input: { workspaceId: w.id, id: app.id } });
    await expectNotFound(deleteApp({ ctx: ctx(), input: { workspaceId: w.id, id: app.id } }), 'oauth app', app.id);
    await expectNotFound(updateApp({ ctx: ctx(), input: { workspaceId: w.id, id: app.id, name: 'x' } }), 'oauth app', app.id);
    await expectNotFound(rotateSecret({ ctx: ctx(), input: { workspaceId: w.id, id: app.id } }), 'oauth app', app.id);
  });

  test('findClient: the live app with its secret hash; unknown and deleted clients are undefined', async () => {
    const w = await t.workspace();
    const app = await createApp({ ctx: ctx(), input: { ...input(), workspaceId: w.id } });
    const client = (await findClient({ ctx: ctx(), input: { clientId: app.clientId } }))!;
    expect(client).toMatchObject({
      id: app.id,
      workspaceId: w.id,
      clientId: app.clientId,
      confidential: true,
      redirectUris: app.redirectUris,
      scopes: app.scopes,
      deletedAt: null,
    });
    expect(Buffer.from(client.secretHash!).equals(sha256(app.clientSecret!))).toBe(true);
    expect(await findClient({ ctx: ctx(), input: { clientId: 'ltc_' + 'A'.repeat(43) } })).toBeUndefined();
    expect(await findClient({ ctx: ctx(), input: { clientId: app.clientId.toUpperCase() } })).toBeUndefined();
    await deleteApp({ ctx: ctx(), input: { workspaceId: w.id, id: app.id } });
    expect(await findClient({ ctx: ctx(), input: { clientId: app.clientId } })).toBeUndefined();
  });

  test('delete revokes every grant of the app, in every workspace, and no other grant', async () => {
    const w = await t.workspace();
    const elsewhere = await t.workspace();
    const user = await createUser(t);
    const app = await createApp({ ctx: ctx(), input: { ...input(), workspaceId: w.id } });
    const keep = await createApp({ ctx: ctx(), input: { ...input({ name: 'kept' }), workspaceId: w.id } });
    const here = await insertGrant(app.id, user, w.id);
    const there = await insertGrant(app.id, user, elsewhere.id);
    const earlier = new Date('2030-01-01T00:00:00Z');
    const alreadyRevoked = await insertGrant(app.id, user, w.id);
    await db().update(oauthGrants).set({ revokedAt: earlier }).where(eq(oauthGrants.id, alreadyRevoked));
    const unrelated = await insertGrant(keep.id, user, w.id);
    await deleteApp({ ctx: ctx(), input: { workspaceId: w.id, id: app.id } });
    expect((await storedApp(app.id)).deletedAt?.toISOString()).toBe(clock.now().toISOString());
    expect((await storedGrant(here)).revokedAt?.toISOString()).toBe(clock.now().toISOString());
    expect((await storedGrant(there)).revokedAt?.toISOString()).toBe(clock.now().toISOString());
    expect((await storedGrant(alreadyRevoked)).revokedAt?.toISOString()).toBe(earlier.toISOString());
    expect((await storedGrant(unrelated)).revokedAt).toBeNull();
  });

  test('authorizations: live grants in this workspace of apps not deleted, oldest first, with app and user; revoke', async () => {
    const w = await t.workspace();
    const registrar = await t.workspace();
    const ann = await createUser(t, { name: 'Ann' });
    const bob = await createUser(t, { name: 'Bob' });
    // An app registered by another workspace, connected to this one: listed here.
    const foreign = await createApp({ ctx: ctx(), input: { ...input({ name: 'Foreign' }), workspaceId: registrar.id } });
    const own = await createApp({ ctx: ctx(), input: { ...input({ name: 'Own' }), workspaceId: w.id } });
    const doomed = await createApp({ ctx: ctx(), input: { ...input({ name: 'Doomed' }), workspaceId: w.id } });
    const g2 = await insertGrant(own.id, bob, w.id, ['linksRead', 'tagsRead'], new Date('2030-02-02T00:00:00Z'));
    const g1 = await insertGrant(foreign.id, ann, w.id, ['linksRead'], new Date('2030-02-01T00:00:00Z'));
    const revoked = await insertGrant(own.id, ann, w.id, ['linksRead'], new Date('2030-02-03T00:00:00Z'));
    await revokeAuthorization({ ctx: ctx(), input: { workspaceId: w.id, id: revoked } });
    await insertGrant(doomed.id, ann, w.id);
    await deleteApp({ ctx: ctx(), input: { workspaceId: w.id, id: doomed.id } });
    const inRegistrar = await insertGrant(foreign.id, ann, registrar.id);

    const listed = await listAuthorizations({ ctx: ctx(), input: { workspaceId: w.id } });
    expect(listed).toEqual([
      {
        id: g1,
        app: { id: foreign.id, name: 'Foreign', clientId: foreign.clientId },
        user: { id: ann.id, email: ann.email, name: 'Ann' },
        scopes: ['linksRead'],
        createdAt: new Date('2030-02-01T00:00:00Z'),
      },
      {
        id: g2,
        app: { id: own.id, name: 'Own', clientId: own.clientId },
        user: { id: bob.id, email: bob.email, name: 'Bob' },
        scopes: ['linksRead', 'tagsRead'],
        createdAt: new Date('2030-02-02T00:00:00Z'),
      },
    ]);
    expect((await listAuthorizations({ ctx: ctx(), input: { workspaceId: registrar.id } })).map((g) => g.id)).toEqual([inRegistrar]);

    // Revoking: only a live grant of this workspace.
    await expectNotFound(revokeAuthorization({ ctx: ctx(), input: { workspaceId: registrar.id, id: g1 } }), 'authorization', g1);
    await expectNotFound(revokeAuthorization({ ctx: ctx(), input: { workspaceId: w.id, id: revoked } }), 'authorization', revoked);
    await expectNotFound(revokeAuthorization({ ctx: ctx(), input: { workspaceId: w.id, id: inRegistrar } }), 'authorization', inRegistrar);
    const ghost = randomUUID();
    await expectNotFound(revokeAuthorization({ ctx: ctx(), input: { workspaceId: w.id, id: ghost } }), 'authorization', ghost);
    expect((await storedGrant(g1)).revokedAt).toBeNull();
    await revokeAuthorization({ ctx: ctx(), input: { workspaceId: w.id, id: g1 } });
    expect((await storedGrant(g1)).revokedAt?.toISOString()).toBe(clock.now().toISOString());
    expect((await listAuthorizations({ ctx: ctx(), input: { workspaceId: w.id } })).map((g) => g.id)).toEqual([g2]);
    await expectNotFound(revokeAuthorization({ ctx: ctx(), input: { workspaceId: w.id, id: g1 } }), 'authorization', g1);
  });
});

describe('HTTP', () => {
  type AppBody = {
    id: string;
    workspaceId: string;
    name: string;
    clientId: string;
    clientSecret?: string;
    redirectUris: string[];
    confidential: boolean;
    scopes: string[];
    createdAt: string;
  };
  const appsUrl = (workspaceId: string) => `/api/workspaces/${workspaceId}/oauth-apps`;

  async function register(cookie: string, workspaceId: string, extra: Parameters<typeof input>[0] = {}): Promise<AppBody> {
    const res = await asSession(t, cookie, 'POST', appsUrl(workspaceId), input(extra));
    expect(res.statusCode, res.body).toBe(201);
    return res.json<AppBody>();
  }

  test('the owner registers a confidential and a public app: the secret only in the 201, only its hash stored; the list never shows one', async () => {
    const { workspace: w, owner } = await ownedWorkspace(t);
    const conf = await register(owner.cookie, w.id);
    expect(conf).toMatchObject({
      workspaceId: w.id,
      name: 'Zapier-like',
      confidential: true,
      redirectUris: ['https://app.example.com/oauth/callback'],
      scopes: ['linksRead', 'linksWrite'],
    });
    expect(conf.clientId).toMatch(CLIENT_ID);
    expect(conf.clientSecret).toMatch(CLIENT_SECRET);
    expect(conf.createdAt).toBe(clock.now().toISOString());
    expect(Buffer.from((await storedApp(conf.id)).secretHash!).equals(sha256(conf.clientSecret!))).toBe(true);
    const pub = await register(owner.cookie, w.id, { confidential: false, redirectUris: ['http://localhost:8080/cb'] });
    expect('clientSecret' in pub).toBe(false);
    expect((await storedApp(pub.id)).secretHash).toBeNull();

    const list = await asSession(t, owner.cookie, 'GET', appsUrl(w.id));
    expect(list.statusCode).toBe(200);
    const { clientSecret: _once, ...confListed } = conf;
    expect(list.json()).toEqual([confListed, pub]);
    expect(list.body).not.toContain(conf.clientSecret!.slice(5));
    expect(list.body).not.toContain(sha256(conf.clientSecret!).toString('hex'));
    expect(list.body).not.toContain(sha256(conf.clientSecret!).toString('base64'));
  });

  const redirectCases: [string, string[], number][] = [
    ['https', ['https://app.example.com/cb'], 201],
    ['http on localhost', ['http://localhost:8080/cb'], 201],
    ['http on a public host', ['http://example.com/cb'], 400],
    ['a fragment', ['https://app.example.com/cb#x'], 400],
    ['javascript:', ['javascript:alert(1)'], 400],
    ['a relative URL', ['/cb'], 400],
    ['eleven URIs', Array.from({ length: 11 }, (_, i) => `https://app.example.com/cb${i}`), 400],
    ['a duplicate', ['https://app.example.com/cb', 'https://app.example.com/cb'], 400],
  ];
  test.each(redirectCases)('redirect URIs, %s: %i', async (_label, redirectUris, status) => {
    const { workspace: w, owner } = await ownedWorkspace(t);
    const res = await asSession(t, owner.cookie, 'POST', appsUrl(w.id), input({ redirectUris }));
    if (status === 201) {
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json<AppBody>().redirectUris).toEqual(redirectUris);
    } else {
      expectError(res, 400, 'invalid_field', 'redirectUris');
      expect((await asSession(t, owner.cookie, 'GET', appsUrl(w.id))).json()).toEqual([]);
    }
  });

  test('PATCH changes the app; an empty body is a 400; POST …/secret replaces the secret; a public app has none (400 naming confidential)', async () => {
    const { workspace: w, owner } = await ownedWorkspace(t);
    const app = await register(owner.cookie, w.id);
    const patched = await asSession(t, owner.cookie, 'PATCH', `${appsUrl(w.id)}/${app.id}`, { name: 'New name', scopes: ['tagsRead'] });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({ id: app.id, name: 'New name', scopes: ['tagsRead'], redirectUris: app.redirectUris, clientId: app.clientId });
    expect(patched.json()).not.toHaveProperty('clientSecret');
    expectError(await asSession(t, owner.cookie, 'PATCH', `${appsUrl(w.id)}/${app.id}`, {}), 400, 'invalid_field');
    expectError(
      await asSession(t, owner.cookie, 'PATCH', `${appsUrl(w.id)}/${app.id}`, { redirectUris: ['http://example.com/cb'] }),
      400,
      'invalid_field',
      'redirectUris[0]',
    );

    const rotated = await asSession(t, owner.cookie, 'POST', `${appsUrl(w.id)}/${app.id}/secret`);
    expect(rotated.statusCode, rotated.body).toBe(200);
    const { clientSecret } = rotated.json<{ clientSecret: string }>();
    expect(clientSecret).toMatch(CLIENT_SECRET);
    const client = (await findClient({ ctx: ctx(), input: { clientId: app.clientId } }))!;
    expect(clientSecretMatches(client, app.clientSecret!)).toBe(false);
    expect(clientSecretMatches(client, clientSecret)).toBe(true);

    const pub = await register(owner.cookie, w.id, { confidential: false });
    expectError(await asSession(t, owner.cookie, 'POST', `${appsUrl(w.id)}/${pub.id}/secret`), 400, 'invalid_field', 'confidential');
  });

  test('DELETE: 200 deletedIds, the client is gone and its grants revoked', async () => {
    const { workspace: w, owner } = await ownedWorkspace(t);
    const app = await register(owner.cookie, w.id);
    const grant = await insertGrant(app.id, owner.user, w.id);
    const res = await asSession(t, owner.cookie, 'DELETE', `${appsUrl(w.id)}/${app.id}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ deletedIds: [app.id] });
    expect(await findClient({ ctx: ctx(), input: { clientId: app.clientId } })).toBeUndefined();
    expect((await storedGrant(grant)).revokedAt).not.toBeNull();
    expect((await asSession(t, owner.cookie, 'GET', appsUrl(w.id))).json()).toEqual([]);
    expectError(await asSession(t, owner.cookie, 'DELETE', `${appsUrl(w.id)}/${app.id}`), 404, 'not_found');
  });

  test('authorizations: GET lists the apps connected to the workspace; DELETE revokes one', async () => {
    const { workspace: w, owner } = await ownedWorkspace(t);
    const app = await register(owner.cookie, w.id);
    const grant = await insertGrant(app.id, owner.user, w.id, ['linksRead', 'linksWrite'], new Date('2030-02-01T00:00:00Z'));
    const list = await asSession(t, owner.cookie, 'GET', `/api/workspaces/${w.id}/authorizations`);
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json()).toEqual([
      {
        id: grant,
        app: { id: app.id, name: app.name, clientId: app.clientId },
        user: { id: owner.user.id, email: owner.user.email, name: owner.user.name },
        scopes: ['linksRead', 'linksWrite'],
        createdAt: '2030-02-01T00:00:00.000Z',
      },
    ]);
    const res = await asSession(t, owner.cookie, 'DELETE', `/api/workspaces/${w.id}/authorizations/${grant}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ deletedIds: [grant] });
    expect((await storedGrant(grant)).revokedAt).not.toBeNull();
    expect((await asSession(t, owner.cookie, 'GET', `/api/workspaces/${w.id}/authorizations`)).json()).toEqual([]);
    expectError(await asSession(t, owner.cookie, 'DELETE', `/api/workspaces/${w.id}/authorizations/${grant}`), 404, 'not_found');
  });

  /** Every route of the module against one workspace, one app and one grant. */
  const routes = (workspaceId: string, appId: string, grantId: string) =>
    [
      ['GET', appsUrl(workspaceId), undefined],
      ['POST', appsUrl(workspaceId), input()],
      ['PATCH', `${appsUrl(workspaceId)}/${appId}`, { name: 'hijacked' }],
      ['DELETE', `${appsUrl(workspaceId)}/${appId}`, undefined],
      ['POST', `${appsUrl(workspaceId)}/${appId}/secret`, undefined],
      ['GET', `/api/workspaces/${workspaceId}/authorizations`, undefined],
      ['DELETE', `/api/workspaces/${workspaceId}/authorizations/${grantId}`, undefined],
    ] as const;

  /** A workspace with an app and a live grant, and what to check that nothing changed. */
  async function setting() {
    const { workspace: w, owner } = await ownedWorkspace(t);
    const app = await register(owner.cookie, w.id);
    const grant = await insertGrant(app.id, owner.user, w.id);
    const unchanged = async () => {
      const row = await storedApp(app.id);
      expect(row).toMatchObject({ name: 'Zapier-like', deletedAt: null });
      expect(clientSecretMatches(row, app.clientSecret!)).toBe(true);
      expect((await storedGrant(grant)).revokedAt).toBeNull();
      expect((await listApps({ ctx: ctx(), input: { workspaceId: w.id } })).map((a) => a.id)).toEqual([app.id]);
    };
    return { w, owner, app, grant, unchanged };
  }

  test.each(['member', 'viewer'] as const)('%s: 403 owner_required without missingScopes on every route, and nothing changes', async (role) => {
    const { w, app, grant, unchanged } = await setting();
    const person = await signedInMember(t, w.id, role);
    for (const [method, url, payload] of routes(w.id, app.id, grant)) {
      const res = await asSession(t, person.cookie, method, url, payload);
      expectError(res, 403, 'owner_required');
      expect(res.json()).not.toHaveProperty('missingScopes');
    }
    await unchanged();
  });

  test('an API key or a human token: 401 session_required on every route, and nothing changes', async () => {
    const { w, owner, app, grant, unchanged } = await setting();
    const human = await createHumanToken(t, owner.cookie, w.id, ['linksRead']);
    for (const token of [w.key, human.token]) {
      for (const [method, url, payload] of routes(w.id, app.id, grant)) {
        expectError(await t.inject({ method, url, headers: bearer(token), payload: payload as object | undefined }), 401, 'session_required');
      }
    }
    await unchanged();
  });

  test("another workspace's app or grant: 404 through the owner's own workspace; a workspace they are not in: 404", async () => {
    const { w, app, grant, unchanged } = await setting();
    const { workspace: mine, owner: intruder } = await ownedWorkspace(t);
    for (const [method, url, payload] of routes(mine.id, app.id, grant)
      .slice(2)
      .filter(([, u]) => u.includes(app.id) || u.includes(grant))) {
      expectError(await asSession(t, intruder.cookie, method, url, payload), 404, 'not_found');
    }
    for (const [method, url, payload] of routes(w.id, app.id, grant)) {
      expectError(await asSession(t, intruder.cookie, method, url, payload), 404, 'not_found', 'workspace');
    }
    await unchanged();
  });
});
