/**
 * Partners in a program through HTTP (operations.md §18 "Scopes", "Partners in a program"):
 * status, groupId, referralKey (and its default), couponCodes, tenantId on POST and PUT
 * /api/partners; their checks (field and reason named, the request atomic), the scopes they need,
 * the owner a money act needs by session, the status moves, delete archiving; and the standing
 * the commission code reads (partnerStanding, partnerHoldingCoupon).
 */
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sql } from 'drizzle-orm';
import type { Ctx } from '../../../src/core/context.js';
import { rows } from '../../../src/db/connect.js';
import type { Scope } from '../../../src/core/scopes.js';
import { partnerStanding, partnerHoldingCoupon } from '../../../src/modules/partners/service.js';
import { bearer, startTestApp, type TestApp, type WorkspaceFixture } from '../../helpers/app.js';
import { asSession, signedInMember } from '../people/helpers.js';

interface Partner {
  id: string;
  name: string;
  status: string;
  groupId: string | null;
  referralKey: string | null;
  couponCodes: string[];
  tenantId: string | null;
  [field: string]: unknown;
}

interface ErrorAnswer {
  error: { en: string; ar: string; code: string };
  field?: string;
  reason?: string;
  missingScopes?: string[];
}

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const send = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', key: string, body?: unknown, query = '') =>
  t.inject({
    method,
    url: `/api/partners${query}`,
    headers: { ...bearer(key), 'content-type': 'application/json' },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

/** POSTs with the workspace's all-scope key; asserts 201. */
async function create(w: WorkspaceFixture, items: object[]): Promise<Partner[]> {
  const res = await send('POST', w.key, items);
  expect(res.statusCode, res.body).toBe(201);
  return res.json<Partner[]>();
}

async function upsert(w: WorkspaceFixture, items: object[]): Promise<Partner[]> {
  const res = await send('PUT', w.key, items);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<Partner[]>();
}

async function all(w: WorkspaceFixture): Promise<Partner[]> {
  const res = await send('GET', w.key, undefined, '?sort=asc&take=5000');
  expect(res.statusCode, res.body).toBe(200);
  return res.json<Partner[]>();
}

function expectError(res: LightMyRequestResponse, status: number, code: string): ErrorAnswer {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json<ErrorAnswer>();
  expect(body.error.code, res.body).toBe(code);
  expect(body.error.ar).toMatch(/[\u0600-\u06ff]/);
  return body;
}

/** A 400 naming `field` for `reason`. */
function expectInvalid(res: LightMyRequestResponse, field: string, reason: string): ErrorAnswer {
  const body = expectError(res, 400, 'invalid_field');
  expect({ field: body.field, reason: body.reason }, res.body).toEqual({ field, reason });
  return body;
}

const ctxOf = (w: WorkspaceFixture) => ({ db: t.database.db, workspace: { id: w.id }, now: new Date() }) as unknown as Ctx;

const putProgram = async (w: WorkspaceFixture) => {
  const body = { name: 'Friends', slug: `p-${randomUUID().slice(0, 8)}`, landingUrl: 'https://acme.example/', currency: 'usd' };
  const res = await t.inject({ method: 'PUT', url: '/api/program', headers: bearer(w.key), payload: body });
  expect(res.statusCode, res.body).toBe(200);
};

describe('a new partner', () => {
  test('is approved, its referral key made from its name, no codes, group or tenant; the read-only fields empty', async () => {
    const w = await t.workspace();
    const [p] = await create(w, [{ name: 'Ada Lovelace' }]);
    expect(p).toEqual({
      id: p!.id,
      name: 'Ada Lovelace',
      email: null,
      image: null,
      status: 'approved',
      groupId: null,
      referralKey: 'ada-lovelace',
      couponCodes: [],
      tenantId: null,
      userId: null,
      defaultLinkId: null,
      payoutMethod: null,
      payoutDestination: null,
      payoutDetailsChangedAt: null,
      createdAt: p!.createdAt,
      updatedAt: p!.updatedAt,
    });
    expect(await all(w)).toEqual([p]);
  });

  test('referral keys: runs of other characters become one -, trimmed, cut to 47; collisions -2, -3… in the request and with stored keys', async () => {
    const w = await t.workspace();
    const long = 'x'.repeat(60);
    const first = await create(w, [
      { name: 'Acme' },
      { name: 'ACME!' },
      { name: '  --Hello, World!--  ' },
      { name: 'Café Ünïcode' },
      { name: 'snake_case-and-dash' },
      { name: long },
      { name: `${long}!` },
      { name: `${'y'.repeat(46)} z` },
      { name: 'acme' },
    ]);
    expect(first.map((p) => p.referralKey)).toEqual([
      'acme',
      'acme-2',
      'hello-world',
      'caf-n-code',
      'snake_case-and-dash',
      'x'.repeat(47),
      `${'x'.repeat(47)}-2`,
      // Cut to 47 leaves a trailing `-`, trimmed again.
      'y'.repeat(46),
      'acme-3',
    ]);
    const later = await create(w, [{ name: 'Acme' }, { name: 'Hello World' }, { name: 'Acme 2' }]);
    expect(later.map((p) => p.referralKey)).toEqual(['acme-4', 'hello-world-2', 'acme-2-2']);
  });

  test('a key given by a later entry of the request is not taken by an earlier default; a deleted partner keeps its key', async () => {
    const w = await t.workspace();
    const [gone] = await create(w, [{ name: 'Gone' }]);
    expect((await send('DELETE', w.key, [gone!.id])).statusCode).toBe(200);
    const made = await create(w, [{ name: 'Beta' }, { name: 'Someone', referralKey: 'beta' }, { name: 'Gone' }]);
    expect(made.map((p) => p.referralKey)).toEqual(['beta-2', 'beta', 'gone-2']);
  });

  test('a name giving fewer than 3 characters (short, Arabic only, symbols) takes the first 8 characters of the id, -2… on collision', async () => {
    const w = await t.workspace();
    const made = await create(w, [{ name: 'Al' }, { name: 'شريك الأعمال' }, { name: '—!—' }, { name: 'A.B' }, { name: 'ع 7' }]);
    expect(made[3]!.referralKey).toBe('a-b');
    expect(made[0]!.referralKey).toBe(made[0]!.id.slice(0, 8));
    // Ids are UUIDv7: made together, they mostly share their first 8 characters (the time).
    const byId = [made[0]!, made[1]!, made[2]!, made[4]!];
    for (const p of byId) expect(p.referralKey).toMatch(new RegExp(`^${p.id.slice(0, 8)}(-[2-9])?$`));
    expect(new Set(byId.map((p) => p.referralKey)).size).toBe(4);
    if (byId.every((p) => p.id.slice(0, 8) === made[0]!.id.slice(0, 8))) {
      const prefix = made[0]!.id.slice(0, 8);
      expect(byId.map((p) => p.referralKey)).toEqual([prefix, `${prefix}-2`, `${prefix}-3`, `${prefix}-4`]);
    }
  });

  test('may start invited or pending; the program fields given are kept, codes in their order', async () => {
    const w = await t.workspace();
    const made = await create(w, [
      { name: 'Invited', status: 'invited', referralKey: 'inv_1', couponCodes: ['SPRING', 'promo_1AbC', 'x'], tenantId: 'user-42' },
      { name: 'Pending', status: 'pending' },
      { name: 'Approved', status: 'approved' },
    ]);
    expect(made.map((p) => [p.status, p.referralKey, p.couponCodes, p.tenantId])).toEqual([
      ['invited', 'inv_1', ['SPRING', 'promo_1AbC', 'x'], 'user-42'],
      ['pending', 'pending', [], null],
      ['approved', 'approved', [], null],
    ]);
    expect(await all(w)).toEqual(made);
  });
});

describe('10,000 in one request', () => {
  test('100 names 100 times each, a coupon code each: every key and code distinct, in a fixed number of statements', { timeout: 60_000 }, async () => {
    const w = await t.workspace({ plan: 'enterprise' });
    await create(w, [{ name: 'Acme 0' }]);
    const input = Array.from({ length: 10_000 }, (_, i) => ({ name: `Acme ${i % 100}`, couponCodes: [`C${i}`] }));
    const made = await create(w, input);
    expect(made).toHaveLength(10_000);
    expect(made.slice(0, 2).map((p) => p.referralKey)).toEqual(['acme-0-2', 'acme-1']);
    expect(made.slice(100, 102).map((p) => p.referralKey)).toEqual(['acme-0-3', 'acme-1-2']);
    expect(made[9_999]!.referralKey).toBe('acme-99-100');
    expect(new Set(made.map((p) => p.referralKey)).size).toBe(10_000);
    expect(made.map((p) => p.couponCodes)).toEqual(input.map((i) => i.couponCodes));
  });
});

describe('groups', () => {
  test('without a program no group exists; with one a null group reads as the default group, which may be named or cleared', async () => {
    const w = await t.workspace();
    expectInvalid(await send('POST', w.key, [{ name: 'a', groupId: randomUUID() }]), '[0].groupId', 'not_found');
    const [before] = await create(w, [{ name: 'Before' }]);
    expect(before!.groupId).toBeNull();
    await putProgram(w);
    const [listed] = await all(w);
    const defaultGroup = listed!.groupId!;
    expect(defaultGroup).toMatch(/^[0-9a-f-]{36}$/);
    const [named] = await create(w, [{ name: 'Named', groupId: defaultGroup.toUpperCase() }]);
    expect(named!.groupId).toBe(defaultGroup);
    const [cleared] = await upsert(w, [{ id: named!.id, groupId: null }]);
    expect(cleared!.groupId).toBe(defaultGroup);
    expectInvalid(await send('PUT', w.key, [{ name: 'ok' }, { id: named!.id, groupId: randomUUID() }]), '[1].groupId', 'not_found');
    const other = await t.workspace();
    await putProgram(other);
    const [theirs] = await create(other, [{ name: 'Theirs' }]);
    expectInvalid(await send('POST', w.key, [{ name: 'x', groupId: theirs!.groupId }]), '[0].groupId', 'not_found');
  });
});

describe('bad input: 400 naming the entry and field, with the reason; nothing written', () => {
  const cases: [string, object, string, string][] = [
    ['an unknown status', { status: 'sleeping' }, '[1].status', 'enum'],
    ['a banned start', { status: 'banned' }, '[1].status', 'status_on_create'],
    ['a rejected start', { status: 'rejected' }, '[1].status', 'status_on_create'],
    ['an archived start', { status: 'archived' }, '[1].status', 'status_on_create'],
    ['a null status', { status: null }, '[1].status', 'not_null'],
    ['a 2-character key', { referralKey: 'ab' }, '[1].referralKey', 'pattern'],
    ['a 51-character key', { referralKey: 'k'.repeat(51) }, '[1].referralKey', 'pattern'],
    ['an upper-case key', { referralKey: 'Acme' }, '[1].referralKey', 'pattern'],
    ['a key with a space', { referralKey: 'a b c' }, '[1].referralKey', 'pattern'],
    ['a numeric key', { referralKey: 123 }, '[1].referralKey', 'type'],
    ['21 coupon codes', { couponCodes: Array.from({ length: 21 }, (_, i) => `C${i}`) }, '[1].couponCodes', 'max_items'],
    ['an empty code', { couponCodes: ['OK', ''] }, '[1].couponCodes[1]', 'pattern'],
    ['a code with a space', { couponCodes: ['SAVE 10'] }, '[1].couponCodes[0]', 'pattern'],
    ['a 51-character code', { couponCodes: ['c'.repeat(51)] }, '[1].couponCodes[0]', 'pattern'],
    ['codes as a string', { couponCodes: 'SAVE10' }, '[1].couponCodes', 'type'],
    ['an empty tenant id', { tenantId: '' }, '[1].tenantId', 'min_length'],
    ['a 191-character tenant id', { tenantId: 't'.repeat(191) }, '[1].tenantId', 'max_length'],
    ['a group that is no UUID', { groupId: 'default' }, '[1].groupId', 'format'],
    ['an unknown group', { groupId: randomUUID() }, '[1].groupId', 'not_found'],
  ];

  test.each(cases)('%s, on POST and as a PUT insert', async (_why, change, field, reason) => {
    const w = await t.workspace();
    await create(w, [{ name: 'Kept' }]);
    const before = await all(w);
    expectInvalid(await send('POST', w.key, [{ name: 'ok' }, { name: 'bad', ...change }]), field, reason);
    expectInvalid(await send('PUT', w.key, [{ name: 'ok' }, { name: 'bad', ...change }]), field, reason);
    expect(await all(w)).toEqual(before);
  });

  test('the longest values pass: a 50-character key, 20 codes of 50, a 190-character tenant id', async () => {
    const w = await t.workspace();
    const codes = Array.from({ length: 20 }, (_, i) => `${i}`.padStart(50, 'Z'));
    const [p] = await create(w, [{ name: 'Max', referralKey: 'k'.repeat(50), couponCodes: codes, tenantId: 't'.repeat(190) }]);
    expect([p!.referralKey, p!.couponCodes, p!.tenantId]).toEqual(['k'.repeat(50), codes, 't'.repeat(190)]);
  });
});

describe('values unique in the workspace', () => {
  test('twice in one request: the second is 400 duplicate_in_request (keys and codes ignoring case, tenant ids exactly)', async () => {
    const w = await t.workspace();
    const [a] = await create(w, [{ name: 'A' }]);
    expectInvalid(
      await send('POST', w.key, [
        { name: 'x', referralKey: 'same' },
        { name: 'y', referralKey: 'same' },
      ]),
      '[1].referralKey',
      'duplicate_in_request',
    );
    expectInvalid(
      await send('PUT', w.key, [
        { name: 'x', referralKey: 'same' },
        { id: a!.id, referralKey: 'same' },
      ]),
      '[1].referralKey',
      'duplicate_in_request',
    );
    expectInvalid(
      await send('POST', w.key, [
        { name: 'x', couponCodes: ['SAVE10'] },
        { name: 'y', couponCodes: ['other', 'save10'] },
      ]),
      '[1].couponCodes[1]',
      'duplicate_in_request',
    );
    expectInvalid(await send('POST', w.key, [{ name: 'x', couponCodes: ['A1', 'b2', 'a1'] }]), '[0].couponCodes[2]', 'duplicate_in_request');
    expectInvalid(
      await send('POST', w.key, [
        { name: 'x', tenantId: 'u-1' },
        { name: 'y', tenantId: 'u-1' },
      ]),
      '[1].tenantId',
      'duplicate_in_request',
    );
    expect(await all(w)).toEqual([a]);
    const made = await create(w, [
      { name: 'x', tenantId: 'U-1' },
      { name: 'y', tenantId: 'u-1' },
    ]);
    expect(made.map((p) => p.tenantId)).toEqual(['U-1', 'u-1']);
  });

  test('held by a stored partner (a deleted one too): 400 taken_in_workspace', async () => {
    const w = await t.workspace();
    const [a, gone] = await create(w, [
      { name: 'A', referralKey: 'alpha', couponCodes: ['SAVE10'], tenantId: 't-a' },
      { name: 'Gone', referralKey: 'gone', couponCodes: ['OLD'], tenantId: 't-gone' },
    ]);
    expect((await send('DELETE', w.key, [gone!.id])).statusCode).toBe(200);
    const before = await all(w);
    const cases: [object, string][] = [
      [{ referralKey: 'ALPHA'.toLowerCase() }, '[1].referralKey'],
      [{ referralKey: 'gone' }, '[1].referralKey'],
      [{ couponCodes: ['new', 'save10'] }, '[1].couponCodes[1]'],
      [{ couponCodes: ['old'] }, '[1].couponCodes[0]'],
      [{ tenantId: 't-a' }, '[1].tenantId'],
      [{ tenantId: 't-gone' }, '[1].tenantId'],
    ];
    for (const [change, field] of cases) {
      expectInvalid(await send('POST', w.key, [{ name: 'ok' }, { name: 'b', ...change }]), field, 'taken_in_workspace');
      const [b] = await create(w, [{ name: 'B' }]);
      expectInvalid(await send('PUT', w.key, [{ name: 'ok' }, { id: b!.id, ...change }]), field, 'taken_in_workspace');
      expect((await send('DELETE', w.key, [b!.id])).statusCode).toBe(200);
    }
    expect(await all(w)).toEqual(before);
    // A partner keeps its own values.
    const [same] = await upsert(w, [{ id: a!.id, referralKey: 'alpha', couponCodes: ['save10'], tenantId: 't-a' }]);
    expect([same!.referralKey, same!.couponCodes, same!.tenantId]).toEqual(['alpha', ['save10'], 't-a']);
  });

  test('two partners swap keys, codes and tenant ids in one request; codes are replaced as a list, kept when left out, cleared by []', async () => {
    const w = await t.workspace();
    const [a, b] = await create(w, [
      { name: 'A', referralKey: 'alpha', couponCodes: ['A1', 'A2'], tenantId: 't-a' },
      { name: 'B', referralKey: 'beta', couponCodes: ['B1'], tenantId: 't-b' },
    ]);
    const swapped = await upsert(w, [
      { id: a!.id, referralKey: 'beta', couponCodes: ['b1'], tenantId: 't-b' },
      { id: b!.id, referralKey: 'alpha', couponCodes: ['a2', 'Z9', 'a1'], tenantId: 't-a' },
    ]);
    expect(swapped.map((p) => [p.referralKey, p.couponCodes, p.tenantId])).toEqual([
      ['beta', ['b1'], 't-b'],
      ['alpha', ['a2', 'Z9', 'a1'], 't-a'],
    ]);
    const [renamed, cleared] = await upsert(w, [
      { id: a!.id, name: 'A renamed' },
      { id: b!.id, couponCodes: [], tenantId: null },
    ]);
    expect([renamed!.referralKey, renamed!.couponCodes, renamed!.tenantId]).toEqual(['beta', ['b1'], 't-b']);
    expect([cleared!.couponCodes, cleared!.tenantId]).toEqual([[], null]);
    expect(await all(w)).toEqual([renamed, cleared]);
    // A freed code is free again.
    const [c] = await create(w, [{ name: 'C', couponCodes: ['A1'] }]);
    expect(c!.couponCodes).toEqual(['A1']);
  });
});

describe('scopes and owners', () => {
  test.each([
    ['status', { status: 'approved' }],
    ['groupId', { groupId: null }],
    ['couponCodes', { couponCodes: [] }],
    ['referralKey', { referralKey: 'abc' }],
    ['tenantId', { tenantId: null }],
  ])('setting %s with partnersWrite only is 403 missing_scopes listing programsWrite; nothing written', async (_field, change) => {
    const w = await t.workspace();
    const { key } = await w.newKey(['partnersRead', 'partnersWrite'] as Scope[]);
    const [a] = await create(w, [{ name: 'A' }]);
    for (const res of [await send('POST', key, [{ name: 'x' }, { name: 'y', ...change }]), await send('PUT', key, [{ id: a!.id, ...change }])]) {
      const body = expectError(res, 403, 'missing_scopes');
      expect(body.missingScopes).toEqual(['programsWrite']);
    }
    expect(await all(w)).toEqual([a]);
    const made = await send('POST', key, [{ name: 'Plain' }]);
    expect(made.statusCode, made.body).toBe(201);
    expect(made.json<Partner[]>()[0]!.status).toBe('approved');
    const { key: both } = await w.newKey(['partnersWrite', 'programsWrite'] as Scope[]);
    expect((await send('PUT', both, [{ id: a!.id, ...change }])).statusCode).toBe(200);
  });

  test('approving or banning by a member’s session is 403 owner_required; other moves are not money acts; an owner and an API key may', async () => {
    const w = await t.workspace();
    const member = await signedInMember(t, w.id, 'member');
    const owner = await signedInMember(t, w.id, 'owner');
    const as = (who: { cookie: string }, method: 'POST' | 'PUT', body: object[]) =>
      asSession(t, who.cookie, method, '/api/partners', body, { workspaceId: w.id });
    const [pending, other] = await create(w, [
      { name: 'P', status: 'pending' },
      { name: 'Q', status: 'pending' },
    ]);
    for (const res of [
      await as(member, 'POST', [{ name: 'x', status: 'approved' }]),
      await as(member, 'PUT', [{ id: pending!.id, status: 'approved' }]),
      await as(member, 'PUT', [
        { id: other!.id, status: 'rejected' },
        { name: 'y', status: 'approved' },
      ]),
    ]) {
      expect(expectError(res, 403, 'owner_required').missingScopes).toBeUndefined();
    }
    const invited = await as(member, 'POST', [{ name: 'Invited', status: 'invited' }]);
    expect(invited.statusCode, invited.body).toBe(201);
    const plain = await as(member, 'POST', [{ name: 'Plain' }]);
    expect(plain.statusCode, plain.body).toBe(201);
    const rejected = await as(member, 'PUT', [{ id: other!.id, status: 'rejected' }]);
    expect(rejected.json<Partner[]>()[0]!.status).toBe('rejected');
    const approved = await as(owner, 'PUT', [{ id: pending!.id, status: 'approved' }]);
    expect(approved.statusCode, approved.body).toBe(200);
    expect(approved.json<Partner[]>()[0]!.status).toBe('approved');
    expectError(await as(member, 'PUT', [{ id: pending!.id, status: 'banned' }]), 403, 'owner_required');
    const archived = await as(member, 'PUT', [{ id: pending!.id, status: 'archived' }]);
    expect(archived.json<Partner[]>()[0]!.status).toBe('archived');
    const [banned] = await upsert(w, [{ id: plain.json<Partner[]>()[0]!.id, status: 'banned' }]);
    expect(banned!.status).toBe('banned');
  });
});

describe('status moves', () => {
  const STATUSES = ['invited', 'pending', 'approved', 'rejected', 'banned', 'archived'] as const;
  const ALLOWED = new Set([
    'invited>approved',
    'pending>approved',
    'pending>rejected',
    'approved>banned',
    'approved>archived',
    'banned>approved',
    'archived>approved',
  ]);
  /** How to reach each status from a new partner. */
  const PATH: Record<string, string[]> = {
    invited: ['invited'],
    pending: ['pending'],
    approved: ['approved'],
    rejected: ['pending', 'rejected'],
    banned: ['approved', 'banned'],
    archived: ['approved', 'archived'],
  };

  test('every move: the allowed ones and the same status answer 200, the others 400 status_move naming both', async () => {
    const w = await t.workspace();
    const pairs = STATUSES.flatMap((from) => STATUSES.map((to) => [from, to] as const));
    const made = await create(
      w,
      pairs.map(([from, to]) => ({ name: `${from} to ${to}`, status: PATH[from]![0] })),
    );
    const second = pairs.flatMap(([from], i) => (PATH[from]![1] ? [{ id: made[i]!.id, status: PATH[from]![1] }] : []));
    await upsert(w, second);
    const stored = await all(w);
    expect(stored.map((p) => p.status)).toEqual(pairs.map(([from]) => from));
    for (const [i, [from, to]] of pairs.entries()) {
      const res = await send('PUT', w.key, [{ id: made[i]!.id, status: to }]);
      if (from === to || ALLOWED.has(`${from}>${to}`)) {
        expect(res.statusCode, `${from} → ${to}: ${res.body}`).toBe(200);
        expect(res.json<Partner[]>()[0]!.status).toBe(to);
      } else {
        const body = expectInvalid(res, '[0].status', 'status_move');
        expect(body.error.en).toContain(`cannot move from ${from} to ${to}`);
      }
    }
  });

  test('one refused move fails the whole request', async () => {
    const w = await t.workspace();
    const [a, b] = await create(w, [
      { name: 'A', status: 'pending' },
      { name: 'B', status: 'invited' },
    ]);
    expectInvalid(
      await send('PUT', w.key, [
        { id: a!.id, status: 'approved' },
        { id: b!.id, status: 'rejected' },
      ]),
      '[1].status',
      'status_move',
    );
    expect((await all(w)).map((p) => p.status)).toEqual(['pending', 'invited']);
  });
});

describe('delete and the standing the commissions read', () => {
  test('DELETE archives the partner; partnerStanding tells a live partner’s status, group column (null: default), user and e-mail; the coupon holder is a live partner, found ignoring case', async () => {
    const w = await t.workspace();
    await putProgram(w);
    const [a, b] = await create(w, [
      { name: 'A', email: 'a@partners.example', couponCodes: ['Spring10'] },
      { name: 'B', status: 'pending' },
    ]);
    const groupId = a!.groupId!;
    await upsert(w, [{ id: b!.id, groupId }]);
    expect((await send('DELETE', w.key, [a!.id])).statusCode).toBe(200);
    const [gone] = await rows<{ status: string }>(t.database.db, sql`SELECT status FROM partners WHERE id = ${a!.id}::uuid AND deleted_at IS NOT NULL`);
    expect(gone).toEqual({ status: 'archived' });
    const [c] = await create(w, [{ name: 'C', email: 'c@partners.example', couponCodes: ['Autumn5'] }]);
    const standing = await partnerStanding({ ctx: ctxOf(w), input: [a!.id, b!.id, c!.id, randomUUID()] });
    expect(Object.fromEntries(standing)).toEqual({
      [b!.id]: { status: 'pending', groupId, userId: null, email: null },
      [c!.id]: { status: 'approved', groupId: null, userId: null, email: 'c@partners.example' },
    });
    // A live partner's code, with the default link approval made; an archived partner's code is nobody's.
    expect(await partnerHoldingCoupon({ ctx: ctxOf(w), input: 'AUTUMN5' })).toEqual({ partnerId: c!.id, defaultLinkId: expect.any(String) });
    expect(await partnerHoldingCoupon({ ctx: ctxOf(w), input: 'SPRING10' })).toBeUndefined();
    expect(await partnerHoldingCoupon({ ctx: ctxOf(w), input: 'autumn' })).toBeUndefined();
    const other = await t.workspace();
    expect(await partnerHoldingCoupon({ ctx: ctxOf(other), input: 'autumn5' })).toBeUndefined();
    expect((await partnerStanding({ ctx: ctxOf(other), input: [b!.id] })).size).toBe(0);
  });
});
