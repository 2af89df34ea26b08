/**
 * One table-driven suite for the bulk resources that share the list/create/upsert/delete
 * pattern (collections, tags, partners). Each resource's test file describes its fields in a
 * ResourceCase and calls bulkResourceSuite(); resource-specific checks go beside it.
 */
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '../../src/core/scopes.js';
import { bearer, startTestApp, type TestApp, type WorkspaceFixture } from '../helpers/app.js';

export type Item = Record<string, unknown>;

export interface Row {
  id: string;
  name: string;
  createdAt: string;
  updatedAt: string;
  [field: string]: unknown;
}

export interface ErrorResponse {
  error: { en: string; ar: string; code: string };
  missingScopes?: string[];
  limit?: number;
}

/** An invalid create item and the field the 400 must name. */
export interface BadItem {
  why: string;
  item: Item;
  field: string;
}

export interface ResourceCase {
  /** e.g. 'tags' */
  label: string;
  path: string;
  readScope: Scope;
  writeScope: Scope;
  /** Record fields besides id, createdAt and updatedAt. */
  fields: readonly string[];
  /** Record fields the server fills (defaults, read-only ones): present, their values checked elsewhere. */
  serverFields?: readonly string[];
  /** Optional (nullable) fields with two different valid values each. */
  optional: Record<string, readonly [unknown, unknown]>;
  /** Maximum length of `name`, when the contract fixes one. */
  nameMax?: number;
  /** Collections and partners delete softly, tags permanently. */
  softDelete: boolean;
  /** A valid create item; distinct n give distinct names. */
  item(n: number): Item;
  /** Invalid create items (each also checked as a PUT insert, and as an update when the field is present). */
  bad: readonly BadItem[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

/** A client of one resource, acting with one key, the way an API user would. */
export class ResourceClient {
  constructor(
    readonly t: TestApp,
    readonly path: string,
    readonly key: string,
  ) {}

  send(method: 'GET' | 'POST' | 'PUT' | 'DELETE', body?: unknown, query = ''): Promise<LightMyRequestResponse> {
    const url = query ? `${this.path}?${query}` : this.path;
    if (body === undefined) return this.t.inject({ method, url, headers: bearer(this.key) });
    // Serialised here so that any JSON value (null, a string, a number) is sent as given.
    const headers = { ...bearer(this.key), 'content-type': 'application/json' };
    return this.t.inject({ method, url, headers, payload: JSON.stringify(body) });
  }

  list(query = ''): Promise<LightMyRequestResponse> {
    return this.send('GET', undefined, query);
  }
  post(body: unknown): Promise<LightMyRequestResponse> {
    return this.send('POST', body);
  }
  put(body: unknown): Promise<LightMyRequestResponse> {
    return this.send('PUT', body);
  }
  del(body: unknown): Promise<LightMyRequestResponse> {
    return this.send('DELETE', body);
  }

  /** Every record, oldest first, read page by page. */
  async all(): Promise<Row[]> {
    return pageAll(this, 'asc', 5000);
  }

  async byId(id: string): Promise<Row[]> {
    const res = await this.list(`id=${id}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<Row[]>();
  }

  /** POSTs items and returns the created records (asserting 201). */
  async create(items: Item[]): Promise<Row[]> {
    const res = await this.post(items);
    expect(res.statusCode, res.body).toBe(201);
    return res.json<Row[]>();
  }
}

/** Pages through the list with skip/take until a short page, asserting each page. */
export async function pageAll(api: ResourceClient, sort: 'asc' | 'desc', take: number): Promise<Row[]> {
  const out: Row[] = [];
  for (let skip = 0; ; skip += take) {
    const res = await api.list(`sort=${sort}&take=${take}&skip=${skip}`);
    expect(res.statusCode, res.body).toBe(200);
    const page = res.json<Row[]>();
    expect(page.length).toBeLessThanOrEqual(take);
    out.push(...page);
    if (page.length < take) return out;
  }
}

/** A 400 with the given code whose message names `field` (as `[1].name`, `[0]`, …). */
export function expect400(res: LightMyRequestResponse, field?: string, code = 'invalid_field'): ErrorResponse {
  expect(res.statusCode, res.body).toBe(400);
  const body = res.json<ErrorResponse>();
  expect(body.error.code).toBe(code);
  expect(typeof body.error.en).toBe('string');
  expect(typeof body.error.ar).toBe('string');
  if (field !== undefined) {
    expect(body.error.en).toContain(` ${field}:`);
    expect(body.error.ar).toContain(field);
  }
  return body;
}

export const ids = (rows: readonly { id: string }[]) => rows.map((r) => r.id);
export const randomKey = () =>
  `lt_${Buffer.from(randomUUID() + randomUUID())
    .toString('base64url')
    .slice(0, 43)}`;

export interface Suite {
  app(): TestApp;
  /** A fresh workspace (enterprise unless told) and a client of the resource with its all-scope key. */
  fresh(opts?: Parameters<TestApp['workspace']>[0]): Promise<{ ws: WorkspaceFixture; api: ResourceClient }>;
}

/**
 * Starts one app for the file and registers the checks every bulk resource must pass:
 * status codes, record shape, atomicity, PUT semantics, deletes, paging, workspace
 * isolation, plan limits and the 10,000-item maximum.
 */
export function bulkResourceSuite(c: ResourceCase): Suite {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  const suite: Suite = {
    app: () => t,
    async fresh(opts) {
      const ws = await t.workspace(opts);
      return { ws, api: new ResourceClient(t, c.path, ws.key) };
    },
  };
  const { fresh } = suite;
  const optionalFields = Object.keys(c.optional);
  /** A create item with every optional field set to its first value. */
  const full = (n: number): Item => ({ ...c.item(n), ...Object.fromEntries(optionalFields.map((f) => [f, c.optional[f]![0]])) });

  function expectRecord(row: Row, input: Item): void {
    expect(Object.keys(row).sort()).toEqual(['id', 'createdAt', 'updatedAt', ...c.fields, ...(c.serverFields ?? [])].sort());
    expect(row.id).toMatch(UUID);
    expect(row.createdAt).toMatch(ISO);
    expect(row.updatedAt).toMatch(ISO);
    for (const f of c.fields) expect(row[f], f).toEqual(input[f] ?? null);
  }

  describe(`${c.label}: GET`, () => {
    it('answers 200 with an array, newest first by default, 50 at most by default', async () => {
      const { api } = await fresh();
      let res = await api.list();
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual([]);
      const created = await api.create(Array.from({ length: 51 }, (_, i) => c.item(i)));
      res = await api.list();
      expect(res.statusCode).toBe(200);
      const rows = res.json<Row[]>();
      expect(rows).toHaveLength(50);
      // One request: same createdAt, so insertion order decides; desc puts the last item first.
      expect(ids(rows)).toEqual(ids(created).reverse().slice(0, 50));
    });

    it('filters by id; an unknown id gives an empty array', async () => {
      const { api } = await fresh();
      const [a, b] = await api.create([full(1), c.item(2)]);
      expect(await api.byId(a!.id)).toEqual([a]);
      expect(await api.byId(b!.id)).toEqual([b]);
      expect(await api.byId(a!.id.toUpperCase())).toEqual([a]);
      expect(await api.byId(randomUUID())).toEqual([]);
    });

    it.each([
      ['id=not-a-uuid', 'id'],
      ['id=', 'id'],
      ['take=0', 'take'],
      ['take=5001', 'take'],
      ['take=abc', 'take'],
      ['take=1.5', 'take'],
      ['skip=-1', 'skip'],
      ['skip=x', 'skip'],
      ['sort=up', 'sort'],
      ['sort=ASC%20', 'sort'],
    ])('rejects ?%s with 400 invalid_query', async (query, field) => {
      const { api } = await fresh();
      await api.create([c.item(1)]);
      const res = await api.list(query);
      expect(res.statusCode, res.body).toBe(400);
      const body = res.json<ErrorResponse>();
      expect(body.error.code).toBe('invalid_query');
      expect(body.error.en).toContain(field);
    });

    it('accepts take=5000 and take=1, skip past the end gives []', async () => {
      const { api } = await fresh();
      const created = await api.create([c.item(1), c.item(2), c.item(3)]);
      let res = await api.list('take=5000&sort=asc');
      expect(res.statusCode).toBe(200);
      expect(ids(res.json())).toEqual(ids(created));
      res = await api.list('take=1&sort=asc&skip=1');
      expect(ids(res.json())).toEqual([created[1]!.id]);
      res = await api.list('skip=3');
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual([]);
    });

    it('never answers 500 to a huge skip or take (a 200 is then empty)', async () => {
      const { api } = await fresh();
      await api.create([c.item(1)]);
      for (const q of ['skip=99999999999999999999', 'skip=9223372036854775808', 'take=99999999999999999999']) {
        const res = await api.list(q);
        expect([200, 400], `${q}: ${res.body}`).toContain(res.statusCode);
        if (res.statusCode === 200) expect(res.json()).toEqual([]);
      }
    });

    it('never answers 500 to an id filter in another UUID spelling (urn:uuid:)', async () => {
      const { api } = await fresh();
      const [a] = await api.create([c.item(1)]);
      const res = await api.list(`id=urn:uuid:${a!.id}`);
      expect([200, 400], res.body).toContain(res.statusCode);
    });
  });

  describe(`${c.label}: authentication and scopes`, () => {
    it('answers 401 without a credential or with an unknown key, and writes nothing', async () => {
      const { api } = await fresh();
      const [a] = await api.create([c.item(1)]);
      const before = await api.all();
      const bodies = { GET: undefined, POST: [c.item(2)], PUT: [{ id: a!.id, name: 'x' }], DELETE: [a!.id] } as const;
      for (const [method, body] of Object.entries(bodies) as [keyof typeof bodies, unknown][]) {
        const none = await t.inject({ method, url: c.path, ...(body === undefined ? {} : { payload: body as object }) });
        expect(none.statusCode, `${method} ${none.body}`).toBe(401);
        expect(none.json<ErrorResponse>().error.code).toBe('credential_missing');
        const wrong = new ResourceClient(t, c.path, randomKey());
        const res = await wrong.send(method, body);
        expect(res.statusCode, `${method} ${res.body}`).toBe(401);
        expect(res.json<ErrorResponse>().error.code).toBe('credential_invalid');
      }
      expect(await api.all()).toEqual(before);
    });

    it(`answers 403 naming ${c.writeScope} to a read-only key, and writes nothing`, async () => {
      const { ws, api } = await fresh();
      const [a] = await api.create([c.item(1)]);
      const before = await api.all();
      const reader = new ResourceClient(t, c.path, (await ws.newKey([c.readScope])).key);
      expect((await reader.list()).statusCode).toBe(200);
      for (const res of [await reader.post([c.item(2)]), await reader.put([{ id: a!.id, name: 'changed' }]), await reader.del([a!.id])]) {
        expect(res.statusCode, res.body).toBe(403);
        const body = res.json<ErrorResponse>();
        expect(body.error.code).toBe('missing_scopes');
        expect(body.missingScopes).toEqual([c.writeScope]);
      }
      expect(await api.all()).toEqual(before);
    });

    it(`answers 403 naming ${c.readScope} to a write-only key, which can still write`, async () => {
      const { ws, api } = await fresh();
      const writer = new ResourceClient(t, c.path, (await ws.newKey([c.writeScope])).key);
      const res = await writer.list();
      expect(res.statusCode).toBe(403);
      expect(res.json<ErrorResponse>().missingScopes).toEqual([c.readScope]);
      const created = await writer.create([c.item(1)]);
      expect(ids(await api.all())).toEqual(ids(created));
    });

    it('answers 403 to a key holding only the scopes of other resources', async () => {
      const { ws, api } = await fresh();
      const other = new ResourceClient(t, c.path, (await ws.newKey(['linksRead', 'linksWrite', 'customersWrite'])).key);
      expect((await other.list()).statusCode).toBe(403);
      expect((await other.post([c.item(1)])).statusCode).toBe(403);
      expect(await api.all()).toEqual([]);
    });
  });

  describe(`${c.label}: POST`, () => {
    it('answers 201 with the records in input order', async () => {
      const { api } = await fresh();
      const input = [full(1), c.item(2), full(3)];
      const res = await api.post(input);
      expect(res.statusCode).toBe(201);
      const rows = res.json<Row[]>();
      expect(rows).toHaveLength(3);
      rows.forEach((row, i) => expectRecord(row, input[i]!));
      expect(new Set(ids(rows)).size).toBe(3);
      expect(await api.all()).toEqual(rows);
    });

    it('ignores unknown properties, including id and timestamps', async () => {
      const { api } = await fresh();
      const given = randomUUID();
      const input = { ...c.item(1), id: given, createdAt: '2001-01-01T00:00:00Z', bogus: { deep: [1] }, workspaceId: randomUUID() };
      const [row] = await api.create([input]);
      expectRecord(row!, c.item(1));
      expect(row!.id).not.toBe(given);
      expect(row!.createdAt.startsWith('2001')).toBe(false);
      expect(await api.byId(given)).toEqual([]);
    });

    if (c.nameMax !== undefined) {
      const max = c.nameMax;
      it(`accepts a name of ${max} characters and rejects ${max + 1}`, async () => {
        const { api } = await fresh();
        const [row] = await api.create([{ ...c.item(1), name: 'n'.repeat(max) }]);
        expect(row!.name).toBe('n'.repeat(max));
        expect400(await api.post([c.item(2), { ...c.item(3), name: 'm'.repeat(max + 1) }]), '[1].name');
        expect(ids(await api.all())).toEqual([row!.id]);
      });
    }

    it.each(c.bad.map((b) => [b.why, b] as const))('rejects an item with %s: 400 naming it, nothing written', async (_why, b) => {
      const { api } = await fresh();
      const [kept] = await api.create([c.item(100)]);
      expect400(await api.post([c.item(1), b.item, c.item(2)]), `[1].${b.field}`);
      expect(ids(await api.all())).toEqual([kept!.id]);
    });

    it.each([
      ['an empty array', []],
      ['an object', c.item(1)],
      ['a string', 'x'],
      ['a number', 5],
      ['null', null],
      ['an array of strings', ['a']],
      ['an array with null', [null]],
    ])('rejects %s as body with 400', async (_what, body) => {
      const { api } = await fresh();
      const res = await api.post(body);
      expect(res.statusCode, res.body).toBe(400);
      expect(await api.all()).toEqual([]);
    });

    it('rejects malformed JSON and other content types with 400', async () => {
      const { ws, api } = await fresh();
      const bad = await t.inject({
        method: 'POST',
        url: c.path,
        headers: { ...bearer(ws.key), 'content-type': 'application/json' },
        payload: '[{"name": "x"',
      });
      expect400(bad, undefined, 'malformed_json');
      const text = await t.inject({
        method: 'POST',
        url: c.path,
        headers: { ...bearer(ws.key), 'content-type': 'text/plain' },
        payload: JSON.stringify([c.item(1)]),
      });
      expect400(text, undefined, 'unsupported_content_type');
      expect(await api.all()).toEqual([]);
    });

    it('rejects a name with a NUL character with 400 naming it (never 500), nothing written', async () => {
      const { api } = await fresh();
      expect400(await api.post([c.item(1), { ...c.item(2), name: 'a\u0000b' }]), '[1].name');
      expect(await api.all()).toEqual([]);
    });

    it('never answers 500 to a name holding a lone surrogate', async () => {
      const { api } = await fresh();
      const res = await api.post([c.item(1), { ...c.item(2), name: 'a\ud800b' }]);
      expect([201, 400], res.body).toContain(res.statusCode);
      if (res.statusCode === 400) expect(await api.all()).toEqual([]);
    });
  });

  describe(`${c.label}: PUT`, () => {
    it('updates only the given fields: omitted fields stay, createdAt stays', async () => {
      const { api } = await fresh();
      const [a, b] = await api.create([full(1), full(2)]);
      const res = await api.put([{ id: a!.id, name: 'renamed-a' }]);
      expect(res.statusCode, res.body).toBe(200);
      const [row] = res.json<Row[]>();
      expect(row).toEqual({ ...a, name: 'renamed-a', updatedAt: row!.updatedAt });
      expect(Date.parse(row!.updatedAt)).toBeGreaterThanOrEqual(Date.parse(a!.updatedAt));
      expect(await api.all()).toEqual([row, b]);
    });

    it.each(optionalFields)('null clears %s; a value sets it; other fields stay', async (field) => {
      const { api } = await fresh();
      const [a] = await api.create([full(1)]);
      let res = await api.put([{ id: a!.id, [field]: null }]);
      expect(res.statusCode, res.body).toBe(200);
      let [row] = res.json<Row[]>();
      expect(row).toEqual({ ...a, [field]: null, updatedAt: row!.updatedAt });
      expect(await api.byId(a!.id)).toEqual([row]);
      res = await api.put([{ id: a!.id, [field]: c.optional[field]![1] }]);
      expect(res.statusCode, res.body).toBe(200);
      [row] = res.json<Row[]>();
      expect(row).toEqual({ ...a, [field]: c.optional[field]![1], updatedAt: row!.updatedAt });
      expect(await api.byId(a!.id)).toEqual([row]);
    });

    it('mixes inserts and updates, answering 200 in input order', async () => {
      const { api } = await fresh();
      const [a, b] = await api.create([c.item(1), full(2)]);
      const [f0] = optionalFields;
      const input: Item[] = [
        full(10),
        { id: b!.id, name: 'b-renamed' },
        c.item(11),
        { id: a!.id, ...(f0 ? { [f0]: c.optional[f0]![1] } : { name: 'a-renamed' }) },
      ];
      const res = await api.put(input);
      expect(res.statusCode, res.body).toBe(200);
      const rows = res.json<Row[]>();
      expect(rows).toHaveLength(4);
      expectRecord(rows[0]!, full(10));
      expect(rows[1]).toEqual({ ...b, name: 'b-renamed', updatedAt: rows[1]!.updatedAt });
      expectRecord(rows[2]!, c.item(11));
      expect(rows[3]).toEqual({ ...a, ...input[3], updatedAt: rows[3]!.updatedAt });
      expect(ids([a!, b!])).not.toContain(rows[0]!.id);
      expect(ids([a!, b!])).not.toContain(rows[2]!.id);
      // Oldest first: the two originals, then the inserts in input order.
      expect(await api.all()).toEqual([rows[3], rows[1], rows[0], rows[2]]);
    });

    it('fails the whole request with 400 [i].id on an unknown id, nothing written', async () => {
      const { api } = await fresh();
      const [a] = await api.create([c.item(1)]);
      const before = await api.all();
      expect400(await api.put([c.item(2), { id: a!.id, name: 'changed' }, { id: randomUUID(), name: 'x' }]), '[2].id');
      expect(await api.all()).toEqual(before);
    });

    it('rejects an entry with only an id (or only id and unknown properties) with 400', async () => {
      const { api } = await fresh();
      const [a] = await api.create([full(1)]);
      const before = await api.all();
      expect400(await api.put([{ id: a!.id }]), '[0]');
      expect400(await api.put([c.item(2), { id: a!.id, bogus: 1 }]), '[1]');
      expect(await api.all()).toEqual(before);
    });

    it('rejects the same id twice (in any letter case) with 400 naming the second', async () => {
      const { api } = await fresh();
      const [a] = await api.create([c.item(1)]);
      const before = await api.all();
      expect400(
        await api.put([
          { id: a!.id, name: 'x1' },
          { id: a!.id, name: 'x2' },
        ]),
        '[1].id',
      );
      expect400(await api.put([c.item(3), { id: a!.id, name: 'x1' }, { id: a!.id.toUpperCase(), name: 'x2' }]), '[2].id');
      expect(await api.all()).toEqual(before);
    });

    it('rejects an id that is not a UUID, a null name, and an insert without name', async () => {
      const { api } = await fresh();
      const [a] = await api.create([full(1)]);
      const before = await api.all();
      expect400(await api.put([{ id: 'not-a-uuid', name: 'x' }]), '[0].id');
      expect400(await api.put([{ id: 42, name: 'x' }]), '[0].id');
      expect400(await api.put([{ id: null, name: 'x' }]), '[0].id');
      expect400(await api.put([{ id: a!.id, name: null }]), '[0].name');
      const { name: _n, ...nameless } = full(2);
      expect400(await api.put([c.item(3), nameless]), '[1].name');
      expect(await api.all()).toEqual(before);
    });

    it.each(c.bad.map((b) => [b.why, b] as const))('rejects an insert or update with %s, nothing written', async (_why, b) => {
      const { api } = await fresh();
      const [a] = await api.create([full(1)]);
      const before = await api.all();
      expect400(await api.put([{ id: a!.id, name: 'changed' }, b.item]), `[1].${b.field}`);
      if (b.field in b.item) {
        expect400(await api.put([c.item(2), { id: a!.id, [b.field]: b.item[b.field] }]), `[1].${b.field}`);
      }
      expect(await api.all()).toEqual(before);
    });

    it('rejects an empty array and a body that is not an array', async () => {
      const { api } = await fresh();
      expect(await api.put([]).then((r) => r.statusCode)).toBe(400);
      expect(await api.put({ id: randomUUID(), name: 'x' }).then((r) => r.statusCode)).toBe(400);
      expect(await api.all()).toEqual([]);
    });
  });

  describe(`${c.label}: DELETE`, () => {
    it(`answers 200 {deletedIds}; the records are gone (${c.softDelete ? 'soft' : 'permanent'} delete)`, async () => {
      const { api } = await fresh();
      const [a, b, d] = await api.create([c.item(1), c.item(2), c.item(3)]);
      const res = await api.del([d!.id, a!.id]);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json<{ deletedIds: string[] }>();
      expect(Object.keys(body)).toEqual(['deletedIds']);
      expect([...body.deletedIds].sort()).toEqual([a!.id, d!.id].sort());
      expect(await api.all()).toEqual([b]);
      expect(await api.byId(a!.id)).toEqual([]);
    });

    it('answers 400 to deleting again and to updating a deleted record', async () => {
      const { api } = await fresh();
      const [a, b] = await api.create([c.item(1), c.item(2)]);
      expect((await api.del([a!.id])).statusCode).toBe(200);
      expect400(await api.del([a!.id]), '[0]');
      expect400(await api.del([b!.id, a!.id]), '[1]');
      expect400(await api.put([{ id: a!.id, name: 'back' }]), '[0].id');
      expect(await api.all()).toEqual([b]);
    });

    it('fails the whole request on an unknown or repeated id, nothing deleted', async () => {
      const { api } = await fresh();
      const created = await api.create([c.item(1), c.item(2), c.item(3)]);
      const [a, b] = created;
      expect400(await api.del([a!.id, randomUUID(), b!.id]), '[1]');
      expect400(await api.del([a!.id, b!.id, a!.id]), '[2]');
      expect400(await api.del([a!.id, b!.id.toUpperCase(), b!.id]), '[2]');
      expect(await api.all()).toEqual(created);
    });

    it.each([
      ['a non-UUID string', (id: string) => [id, 'nope']],
      ['a number', (id: string) => [id, 7]],
      ['null', (id: string) => [id, null]],
      ['an object of ids', (id: string) => ({ ids: [id] })],
      ['a bare id string', (id: string) => id],
      ['an empty array', () => []],
      ['objects with id', (id: string) => [{ id }]],
    ])('rejects %s with 400, nothing deleted', async (_what, body) => {
      const { api } = await fresh();
      const created = await api.create([c.item(1)]);
      const res = await api.del(body(created[0]!.id));
      expect(res.statusCode, res.body).toBe(400);
      expect(await api.all()).toEqual(created);
    });

    it('never answers 500 to ids in another UUID spelling (urn:uuid:), in DELETE or PUT', async () => {
      const { api } = await fresh();
      const created = await api.create([c.item(1)]);
      const id = created[0]!.id;
      const put = await api.put([{ id: `urn:uuid:${id}`, name: 'urn' }]);
      expect([200, 400], put.body).toContain(put.statusCode);
      const del = await api.del([`urn:uuid:${id}`]);
      expect([200, 400], del.body).toContain(del.statusCode);
    });
  });

  describe(`${c.label}: ordering and paging`, () => {
    it('skip/take visits every record exactly once in both orders, updates do not move records', async () => {
      const { api } = await fresh();
      const created: Row[] = [];
      for (let batch = 0; batch < 3; batch++) created.push(...(await api.create(Array.from({ length: 7 }, (_, i) => c.item(batch * 10 + i)))));
      const put = await api.put([c.item(90), c.item(91)]);
      expect(put.statusCode, put.body).toBe(200);
      created.push(...put.json<Row[]>());
      const expected = ids(created);
      for (const take of [1, 4, 23]) {
        const asc = ids(await pageAll(api, 'asc', take));
        expect(asc).toEqual(expected);
        const desc = ids(await pageAll(api, 'desc', take));
        expect(desc).toEqual([...expected].reverse());
      }
      const upd = await api.put([
        { id: created[0]!.id, name: 'first-renamed' },
        { id: created[10]!.id, name: 'middle-renamed' },
      ]);
      expect(upd.statusCode, upd.body).toBe(200);
      expect(ids(await pageAll(api, 'asc', 4))).toEqual(expected);
      expect(ids(await pageAll(api, 'desc', 4))).toEqual([...expected].reverse());
    });
  });

  describe(`${c.label}: workspace isolation`, () => {
    it("another workspace's ids behave exactly as ids that do not exist", async () => {
      const { api: apiA } = await fresh();
      const { api: apiB } = await fresh();
      const [a] = await apiA.create([full(1)]);
      const [own] = await apiB.create([c.item(2)]);
      const beforeA = await apiA.all();
      const beforeB = await apiB.all();
      expect(await apiB.byId(a!.id)).toEqual([]);
      expect(ids(beforeB)).toEqual([own!.id]);

      const missing = randomUUID();
      const putForeign = expect400(await apiB.put([{ id: a!.id, name: 'hijack' }]), '[0].id');
      const putMissing = expect400(await apiB.put([{ id: missing, name: 'hijack' }]), '[0].id');
      expect(putForeign.error).toEqual(putMissing.error);
      const delForeign = expect400(await apiB.del([a!.id]), '[0]');
      const delMissing = expect400(await apiB.del([missing]), '[0]');
      expect(delForeign.error).toEqual(delMissing.error);
      expect400(await apiB.del([own!.id, a!.id]), '[1]');

      expect(await apiA.all()).toEqual(beforeA);
      expect(await apiB.all()).toEqual(beforeB);
    });
  });

  describe(`${c.label}: plan limits`, () => {
    const many = (n: number, from = 0) => Array.from({ length: n }, (_, i) => c.item(from + i));

    it('free plan: 100 items pass, 101 give 400 too_many_items (with limit 100) on POST, PUT and DELETE, nothing written', async () => {
      const { api } = await fresh({ plan: 'free' });
      expect(expect400(await api.post(many(101)), undefined, 'too_many_items').limit).toBe(100);
      expect(expect400(await api.put(many(101)), undefined, 'too_many_items').limit).toBe(100);
      expect(expect400(await api.del(Array.from({ length: 101 }, () => randomUUID())), undefined, 'too_many_items').limit).toBe(100);
      expect(await api.all()).toEqual([]);
      const created = await api.create(many(100));
      expect(created).toHaveLength(100);
      expect400(await api.del([...ids(created), randomUUID()]), undefined, 'too_many_items');
      expect(await api.all()).toEqual(created);
    });

    it('pro plan: 1000 items pass, 1001 give 400 too_many_items', async () => {
      const { api } = await fresh({ plan: 'pro' });
      expect(expect400(await api.post(many(1001)), undefined, 'too_many_items').limit).toBe(1000);
      expect(await api.all()).toEqual([]);
      expect(await api.create(many(1000))).toHaveLength(1000);
    });

    it("a workspace's own maxBulkItems replaces the plan's", async () => {
      const { api } = await fresh({ maxBulkItems: 3 });
      expect(expect400(await api.post(many(4)), undefined, 'too_many_items').limit).toBe(3);
      expect(await api.all()).toEqual([]);
      expect(await api.create(many(3))).toHaveLength(3);
    });

    it('enterprise plan: 10,001 items give 400 too_many_items, nothing written', async () => {
      const { api } = await fresh({ plan: 'enterprise' });
      expect(expect400(await api.post(many(10_001)), undefined, 'too_many_items').limit).toBe(10_000);
      expect(expect400(await api.del(Array.from({ length: 10_001 }, () => randomUUID())), undefined, 'too_many_items').limit).toBe(10_000);
      expect(await api.all()).toEqual([]);
    });

    it(
      'enterprise plan: creates 10,000 in one request, pages them exactly once both ways, deletes them in one request',
      async () => {
        const { api } = await fresh({ plan: 'enterprise' });
        const input = many(10_000);
        const created = await api.create(input);
        expect(created).toHaveLength(10_000);
        created.forEach((row, i) => expect(row.name).toBe(input[i]!.name));
        const expected = ids(created);
        expect(new Set(expected).size).toBe(10_000);
        expect(ids(await pageAll(api, 'asc', 5000))).toEqual(expected);
        expect(ids(await pageAll(api, 'desc', 5000))).toEqual([...expected].reverse());
        expect(ids(await pageAll(api, 'asc', 3000))).toEqual(expected);

        const res = await api.del(expected);
        expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
        const deleted = res.json<{ deletedIds: string[] }>().deletedIds;
        expect(new Set(deleted)).toEqual(new Set(expected));
        expect(deleted).toHaveLength(10_000);
        expect(await api.all()).toEqual([]);
        expect400(await api.del([expected[0]!, expected[9_999]!]), '[0]');
      },
      // Asserts behaviour only (about 1-3 s); the limit leaves room for a slow machine.
      120_000,
    );
  });

  return suite;
}
