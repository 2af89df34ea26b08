/**
 * operations.md §16 "Contract": the request schemas of the served document say what the server
 * accepts. Every case is generated from the document (GET /api/openapi.json), so a field added
 * to a request schema is checked here without a new test:
 * - null: where the document allows it the server accepts it, elsewhere it refuses it (400
 *   naming the field, reason not_null);
 * - https-only fields carry the pattern and the server refuses http:// there (https_required);
 * - country maps (a link's geo) refuse a key that is not an uppercase code, naming it;
 * - bulk bodies allow at most 10,000 items, and the server says too_many_items with its limit;
 * - no request schema refuses unknown properties (api.md General rule 4), and the server ignores them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COUNTRY_CODE_PATTERN, HTTPS_URL_PATTERN, MAX_BULK_ITEMS } from '../../src/http/schemas.js';
import { startTestApp, type TestApp, type WorkspaceFixture, bearer } from '../helpers/app.js';
import { createOperations, NOT_CREATES, type CreateOperation } from './request-contract.fixtures.js';

interface Schema {
  $ref?: string;
  type?: string | string[];
  pattern?: string;
  description?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
  propertyNames?: Schema;
  anyOf?: Schema[];
  maxItems?: number;
  minItems?: number;
}
interface Doc {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema?: Schema }> } }>>;
  components: { schemas: Record<string, Schema> };
}

let t: TestApp;
let ws: WorkspaceFixture;
let doc: Doc;
let operations: CreateOperation[];

beforeAll(async () => {
  t = await startTestApp();
  ws = await t.workspace({ rateLimitPerMinute: 1_000_000 });
  doc = (await t.inject({ method: 'GET', url: '/api/openapi.json' })).json<Doc>();
  operations = await createOperations(t, ws);
}, 60_000);

afterAll(async () => {
  await t?.close();
});

const deref = (s: Schema): Schema => (s.$ref ? doc.components.schemas[s.$ref.split('/').pop()!]! : s);
const typesOf = (s: Schema): string[] => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);
const allowsNull = (s: Schema): boolean => typesOf(s).includes('null') || (s.anyOf ?? []).some((x) => allowsNull(deref(x)));

/** The JSON body schema of `method path`, if it takes one. */
function bodyOf(key: string): Schema | undefined {
  const [method, path] = key.split(' ') as [string, string];
  const schema = doc.paths[path]?.[method]?.requestBody?.content['application/json']?.schema;
  return schema && deref(schema);
}

/** Every JSON body of the document, as `method path` → schema. */
function allBodies(): [string, Schema][] {
  const out: [string, Schema][] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const schema = op.requestBody?.content['application/json']?.schema;
      if (schema) out.push([`${method} ${path}`, deref(schema)]);
    }
  }
  return out;
}

type Path = (string | number)[];
interface Field {
  path: Path;
  schema: Schema;
}

/** The properties of a body (an item of a bulk body at `[0]`), and of the objects inside them. */
function fieldsOf(body: Schema): Field[] {
  const out: Field[] = [];
  const walk = (s: Schema, at: Path) => {
    for (const [name, raw] of Object.entries(s.properties ?? {})) {
      const schema = deref(raw);
      out.push({ path: [...at, name], schema });
      if (schema.properties) walk(schema, [...at, name]);
    }
  };
  walk(body.type === 'array' ? deref(body.items!) : body, body.type === 'array' ? [0] : []);
  return out;
}

/** `[0].geo.US` / `customerAvatar`: the way a 400's `field` names a place in the body. */
const fieldName = (path: Path) => path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');

/** The valid body with `value` put at `path` (objects on the way made as needed). */
function withValue(body: unknown, path: Path, value: unknown): unknown {
  const copy = structuredClone(body) as Record<string | number, unknown>;
  let at: Record<string | number, unknown> = copy;
  for (const step of path.slice(0, -1)) {
    if (typeof at[step] !== 'object' || at[step] === null) at[step] = {};
    at = at[step] as Record<string | number, unknown>;
  }
  at[path.at(-1)!] = value;
  return copy;
}

interface Answer {
  status: number;
  body: { error?: { code: string; en: string }; field?: string; reason?: string; limit?: number };
  text: string;
}
async function answer(op: CreateOperation, path: Path, value: unknown): Promise<Answer> {
  const res = await op.send(withValue(await op.valid(), path, value));
  return { status: res.statusCode, body: res.json(), text: `${op.key} ${fieldName(path)}=${JSON.stringify(value)}: ${res.statusCode} ${res.body}` };
}

function expectRefused(a: Answer, field: string, reason: string): void {
  expect(a.status, a.text).toBe(400);
  expect(a.body.error?.code, a.text).toBe('invalid_field');
  expect(a.body.field, a.text).toBe(field);
  expect(a.body.reason, a.text).toBe(reason);
}

const accepted = (a: Answer) => expect([200, 201, 202], a.text).toContain(a.status);

describe('the create operations of the document', () => {
  it('every POST with a JSON body is driven here or named as no create', () => {
    const posts = allBodies()
      .map(([key]) => key)
      .filter((key) => key.startsWith('post '));
    const known = new Set([...operations.map((o) => o.key), ...Object.keys(NOT_CREATES)]);
    expect(posts.filter((key) => !known.has(key))).toEqual([]);
    for (const op of operations) expect(bodyOf(op.key), op.key).toBeDefined();
  });

  it('each valid body is accepted (the fixtures are right)', async () => {
    for (const op of operations) {
      const res = await op.send(await op.valid());
      expect([200, 201, 202], `${op.key}: ${res.statusCode} ${res.body}`).toContain(res.statusCode);
    }
  });
});

describe('null', () => {
  it('a field the document allows null is accepted as null; any other is refused as null, naming it', { timeout: 120_000 }, async () => {
    let nullable = 0;
    for (const op of operations) {
      for (const { path, schema } of fieldsOf(bodyOf(op.key)!)) {
        const got = await answer(op, path, null);
        if (allowsNull(schema)) {
          accepted(got);
          nullable++;
        } else expectRefused(got, fieldName(path), 'not_null');
      }
    }
    expect(nullable).toBeGreaterThan(5);
  });

  it('a link create takes null for geo only (api.md PUT rule 2), so its schema allows no other', () => {
    const nullable = fieldsOf(bodyOf('post /api/links')!)
      .filter((f) => allowsNull(f.schema))
      .map((f) => fieldName(f.path));
    expect(nullable).toEqual(['[0].geo', '[0].qrDesign.logoId']);
  });
});

/** Fields of a body held to the https pattern: string properties, and the values of maps (at key US). */
function httpsFields(body: Schema): Field[] {
  const out: Field[] = [];
  for (const f of fieldsOf(body)) {
    if (f.schema.pattern === HTTPS_URL_PATTERN) out.push(f);
    const values = f.schema.additionalProperties;
    if (typeof values === 'object' && deref(values).pattern === HTTPS_URL_PATTERN) out.push({ path: [...f.path, 'US'], schema: deref(values) });
  }
  return out;
}

describe('https-only URL fields', () => {
  it('every request field described as an https URL carries the pattern', () => {
    const missing: string[] = [];
    for (const [key, body] of allBodies()) {
      for (const f of fieldsOf(body)) {
        const described = /\bhttps URL\b/.test(f.schema.description ?? '');
        if (described && f.schema.pattern !== HTTPS_URL_PATTERN) missing.push(`${key} ${fieldName(f.path)}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('the server refuses http:// in each (https_required) and accepts what the pattern lets through', { timeout: 60_000 }, async () => {
    const seen: string[] = [];
    for (const op of operations) {
      for (const { path } of httpsFields(bodyOf(op.key)!)) {
        seen.push(`${op.key} ${fieldName(path)}`);
        expectRefused(await answer(op, path, 'http://example.com/x'), fieldName(path), 'https_required');
        // The scheme in any case, as the URL parser reads it: the pattern is no stricter than the server.
        accepted(await answer(op, path, 'HTTPS://Example.com/x'));
      }
    }
    expect(seen).toEqual(
      expect.arrayContaining([
        'post /api/links [0].url',
        'post /api/links [0].geo.US',
        'post /api/partners [0].image',
        'post /api/track/lead customerAvatar',
        'post /api/domains rootUrl',
      ]),
    );
  });
});

describe('country maps', () => {
  it('keys are uppercase two-letter codes in the document; the server refuses another key, naming it', async () => {
    const maps = operations.flatMap((op) =>
      fieldsOf(bodyOf(op.key)!)
        .filter((f) => f.schema.propertyNames)
        .map((f) => ({ op, ...f })),
    );
    expect(maps.map((m) => `${m.op.key} ${fieldName(m.path)}`)).toEqual(['post /api/links [0].geo']);
    for (const { op, path, schema } of maps) {
      expect(schema.propertyNames!.pattern).toBe(COUNTRY_CODE_PATTERN);
      const refused = await answer(op, path, { us: 'https://example.com/us' });
      expectRefused(refused, `${fieldName(path)}.us`, 'country_code');
      expect(refused.body.error!.en).toContain('"us"');
      accepted(await answer(op, path, { US: 'https://example.com/us' }));
    }
  });
});

describe('bulk bodies', () => {
  it(`every array body takes 1 to ${MAX_BULK_ITEMS} items in the document, and more is too_many_items with the limit`, { timeout: 60_000 }, async () => {
    const bulk = allBodies().filter(([, s]) => s.type === 'array');
    expect(bulk.length).toBeGreaterThanOrEqual(14);
    const tooMany = `[${'{},'.repeat(MAX_BULK_ITEMS)}{}]`;
    for (const [key, schema] of bulk) {
      expect({ key, minItems: schema.minItems, maxItems: schema.maxItems }).toEqual({ key, minItems: 1, maxItems: MAX_BULK_ITEMS });
      const [method, path] = key.split(' ') as [string, string];
      const res = await t.inject({
        method: method.toUpperCase() as 'POST',
        url: path,
        headers: { ...bearer(ws.key), 'content-type': 'application/json' },
        payload: tooMany,
      });
      expect(res.statusCode, `${key}: ${res.body}`).toBe(400);
      const body = res.json<Answer['body']>();
      expect(body.error?.code, key).toBe('too_many_items');
      expect(body.limit, key).toBe(MAX_BULK_ITEMS);
      expect(body.error!.en, key).toContain(`at most ${MAX_BULK_ITEMS} items per request (got ${MAX_BULK_ITEMS + 1})`);
    }
  });
});

describe('unknown properties', () => {
  it('no request schema refuses them', () => {
    const refusing: string[] = [];
    const walk = (key: string, s: Schema, at: string) => {
      s = deref(s);
      if (s.additionalProperties === false) refusing.push(`${key} ${at || 'body'}`);
      for (const [name, p] of Object.entries(s.properties ?? {})) walk(key, p, `${at}.${name}`);
      if (s.items) walk(key, s.items, `${at}[]`);
      if (typeof s.additionalProperties === 'object') walk(key, s.additionalProperties, `${at}{}`);
      for (const x of s.anyOf ?? []) walk(key, x, at);
    };
    for (const [key, body] of allBodies()) walk(key, body, '');
    expect(refusing).toEqual([]);
  });

  it('the server ignores them on every create', async () => {
    for (const op of operations) {
      const body = bodyOf(op.key)!;
      accepted(await answer(op, body.type === 'array' ? [0, 'notAField'] : ['notAField'], { any: 'thing' }));
    }
  });
});
