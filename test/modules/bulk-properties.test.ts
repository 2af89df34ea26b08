/**
 * Property tests: arbitrary JSON thrown at the bulk endpoints of collections, tags and
 * partners. Whatever comes in, the answer is a 2xx or a 400 (never a 500), a 400 leaves the
 * workspace's data exactly as it was, and a 2xx did what it says.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { ResourceClient, type Item, type Row } from './bulk-resource.helpers.js';
import { propertyRuns } from '../helpers/property-runs.js';

const NUM_RUNS = propertyRuns(100);

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

const anyJson = fc.jsonValue({ maxDepth: 2 });

/** Strings that stress storage and limits: control characters, NUL, lone surrogates, long ones. */
const nastyString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.string({ unit: 'binary-ascii', maxLength: 6 }),
  fc.constantFrom('', ' ', '\u0000', 'a\u0000b', 'a\ud800', '\udfff', '\u202e', '💥'.repeat(30), "'; DROP TABLE tags; --"),
  fc.nat({ max: 200 }).map((n) => 'x'.repeat(n)),
);

/** A field value: usually plausible, often of the wrong type or out of bounds. */
const field = (valid: fc.Arbitrary<unknown>) =>
  fc.oneof(
    { weight: 4, arbitrary: valid },
    { weight: 1, arbitrary: anyJson },
    { weight: 1, arbitrary: nastyString },
    { weight: 1, arbitrary: fc.constant(null) },
  );

const validName = fc.string({ minLength: 1, maxLength: 10 });

interface ResourceSpec {
  path: string;
  /** Plausible values for each writable field. */
  fields: Record<string, fc.Arbitrary<unknown>>;
}

const resources: ResourceSpec[] = [
  { path: '/api/collections', fields: { name: validName, description: fc.string({ maxLength: 20 }) } },
  { path: '/api/tags', fields: { name: validName, color: fc.constantFrom('#000000', '#a1B2c3', '#FFFFFF', 'red', '#12345') } },
  {
    path: '/api/partners',
    fields: {
      name: validName,
      email: fc.constantFrom('a@b.co', 'first.last@example.com', 'not-an-email', 'a@'),
      image: fc.oneof(
        fc.constantFrom('https://cdn.example.com/a.png', 'http://cdn.example.com/a.png', 'https://', 'ftp://x.y/z', 'javascript:alert(1)'),
        fc.webUrl(),
      ),
    },
  },
];

/** An item whose known fields are random (each may be missing), plus junk properties. */
function itemOf(spec: ResourceSpec): fc.Arbitrary<Item> {
  const known = Object.fromEntries(Object.entries(spec.fields).map(([k, v]) => [k, field(v)]));
  return fc.oneof(
    { weight: 4, arbitrary: fc.record({ ...known, junk: anyJson }, { requiredKeys: [] }) as fc.Arbitrary<Item> },
    { weight: 1, arbitrary: fc.object({ maxDepth: 1 }) as fc.Arbitrary<Item> },
    { weight: 1, arbitrary: fc.dictionary(fc.constantFrom(...Object.keys(spec.fields), 'id', 'createdAt', 'x'), anyJson) },
  );
}

const snapshot = (api: ResourceClient): Promise<Row[]> => api.all();

function expectStatus(status: number, success: number, body: string): void {
  expect([success, 400], body.slice(0, 500)).toContain(status);
  if (status === 400) expect(JSON.parse(body).error.code).toEqual(expect.any(String));
}

let counter = 0;
/** Valid items with names no other run uses (tag names are unique per workspace). */
const seedItems = (n: number): Item[] => Array.from({ length: n }, () => ({ name: `seed-${++counter}` }));

describe.each(resources)('$path under arbitrary input', (spec) => {
  const item = itemOf(spec);

  it('POST answers 201 or 400; a 400 writes nothing, a 201 writes exactly the items', async () => {
    const ws = await t.workspace();
    const api = new ResourceClient(t, spec.path, ws.key);
    const body = fc.oneof(
      { weight: 1, arbitrary: anyJson },
      { weight: 1, arbitrary: fc.array(fc.object({ maxDepth: 1 }), { maxLength: 4 }) },
      { weight: 5, arbitrary: fc.array(item, { minLength: 1, maxLength: 5 }) },
    );
    await fc.assert(
      fc.asyncProperty(body, async (input) => {
        const before = await snapshot(api);
        const res = await api.post(input);
        expectStatus(res.statusCode, 201, res.body);
        const after = await snapshot(api);
        if (res.statusCode === 400) return void expect(after).toEqual(before);
        const created = res.json<Row[]>();
        expect(Array.isArray(input)).toBe(true);
        expect(created).toHaveLength((input as unknown[]).length);
        expect(after).toEqual([...before, ...created]);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('PUT answers 200 or 400; a 400 changes nothing, a 200 answers each entry in input order', async () => {
    const ws = await t.workspace();
    const other = await t.workspace();
    const api = new ResourceClient(t, spec.path, ws.key);
    const seeded = (await api.create(seedItems(4))).map((r) => r.id);
    const [foreign] = await new ResourceClient(t, spec.path, other.key).create(seedItems(1));
    const id = fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...seeded) },
      { weight: 1, arbitrary: fc.constantFrom(...seeded).map((s) => s.toUpperCase()) },
      { weight: 1, arbitrary: fc.uuid() },
      { weight: 1, arbitrary: fc.constant(foreign!.id) },
      { weight: 1, arbitrary: anyJson },
      { weight: 1, arbitrary: nastyString },
    );
    const entry = fc.oneof({ weight: 2, arbitrary: item }, { weight: 3, arbitrary: fc.tuple(item, id).map(([i, v]) => ({ ...i, id: v })) });
    const body = fc.oneof({ weight: 1, arbitrary: anyJson }, { weight: 5, arbitrary: fc.array(entry, { minLength: 1, maxLength: 5 }) });
    await fc.assert(
      fc.asyncProperty(body, async (input) => {
        const before = await snapshot(api);
        const res = await api.put(input);
        expectStatus(res.statusCode, 200, res.body);
        const after = await snapshot(api);
        if (res.statusCode === 400) return void expect(after).toEqual(before);
        const entries = input as Item[];
        const rows = res.json<Row[]>();
        expect(rows).toHaveLength(entries.length);
        entries.forEach((e, i) => {
          if (typeof e.id === 'string') expect(rows[i]!.id).toBe(e.id.toLowerCase());
          else expect(before.map((r) => r.id)).not.toContain(rows[i]!.id);
        });
        const inserted = entries.filter((e) => e.id === undefined).length;
        expect(after).toHaveLength(before.length + inserted);
        for (const row of rows) expect(after).toContainEqual(row);
        expect(after.map((r) => r.id)).not.toContain(foreign!.id);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('DELETE answers 200 or 400; a 400 deletes nothing, a 200 deletes exactly the ids', async () => {
    const ws = await t.workspace();
    const other = await t.workspace();
    const api = new ResourceClient(t, spec.path, ws.key);
    const [foreign] = await new ResourceClient(t, spec.path, other.key).create(seedItems(1));
    // Entries refer to records made fresh in each run ({ ref }), or are raw values.
    type Entry = { ref: number; upper: boolean } | { raw: unknown };
    const entry: fc.Arbitrary<Entry> = fc.oneof(
      { weight: 6, arbitrary: fc.record({ ref: fc.nat({ max: 2 }), upper: fc.boolean() }) },
      { weight: 1, arbitrary: fc.uuid().map((raw) => ({ raw })) },
      { weight: 1, arbitrary: fc.constant({ raw: foreign!.id }) },
      { weight: 1, arbitrary: anyJson.map((raw) => ({ raw })) },
      { weight: 1, arbitrary: nastyString.map((raw) => ({ raw })) },
    );
    const plan = fc.oneof({ weight: 1, arbitrary: anyJson.map((raw) => ({ raw })) }, { weight: 5, arbitrary: fc.array(entry, { minLength: 1, maxLength: 4 }) });
    await fc.assert(
      fc.asyncProperty(plan, async (p) => {
        const fresh = (await api.create(seedItems(3))).map((r) => r.id);
        const input = Array.isArray(p) ? p.map((e) => ('raw' in e ? e.raw : e.upper ? fresh[e.ref]!.toUpperCase() : fresh[e.ref]!)) : p.raw;
        const before = await snapshot(api);
        const res = await api.del(input);
        expectStatus(res.statusCode, 200, res.body);
        const after = await snapshot(api);
        if (res.statusCode === 400) return void expect(after).toEqual(before);
        const wanted = (input as string[]).map((s) => s.toLowerCase());
        const { deletedIds } = res.json<{ deletedIds: string[] }>();
        expect([...deletedIds].sort()).toEqual([...wanted].sort());
        expect(after).toEqual(before.filter((r) => !wanted.includes(r.id)));
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('GET answers 200 or 400 to arbitrary query parameters', async () => {
    const ws = await t.workspace();
    const api = new ResourceClient(t, spec.path, ws.key);
    const [row] = await api.create(seedItems(1));
    const value = fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.integer().map(String),
      fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
      fc.double().map(String),
      fc.constantFrom('asc', 'desc', 'ASC', '', '5000', '5001', '0', '-0', '1e3', 'NaN', 'Infinity', row!.id, `urn:uuid:${row!.id}`),
      fc.uuid(),
    );
    const query = fc.dictionary(fc.constantFrom('id', 'take', 'skip', 'sort', 'junk'), value, { maxKeys: 4 });
    await fc.assert(
      fc.asyncProperty(query, async (q) => {
        const res = await api.list(new URLSearchParams(q).toString());
        expectStatus(res.statusCode, 200, res.body);
        if (res.statusCode === 200) {
          const rows = res.json<Row[]>();
          expect(Array.isArray(rows)).toBe(true);
          expect(rows.length).toBeLessThanOrEqual(1);
          if (rows.length === 1) expect(rows[0]!.id).toBe(row!.id);
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });
});

// A guard that the generators reach success paths too: the properties above would hold
// vacuously if every input were rejected.
describe('the generators', () => {
  it('produce accepted POST bodies for every resource', async () => {
    for (const spec of resources) {
      const ws = await t.workspace();
      const api = new ResourceClient(t, spec.path, ws.key);
      let accepted = 0;
      for (const input of fc.sample(fc.array(itemOf(spec), { minLength: 1, maxLength: 2 }), { numRuns: 60, seed: 42 })) {
        const res = await api.post(input);
        expect([201, 400]).toContain(res.statusCode);
        if (res.statusCode === 201) accepted++;
      }
      expect(accepted, spec.path).toBeGreaterThan(0);
    }
  });
});
