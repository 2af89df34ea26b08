/**
 * Generators of hostile HTTP input for test/fuzz/hostile.test.ts: strings, JSON values and
 * bodies (schema-driven from the route table, so a new field is fuzzed without touching this
 * file), query strings, credentials in every form, and the other headers a client controls.
 *
 * Everything generated is free of the "leak markers" (stack-trace and SQL fragments), so a
 * marker in a response was written by the server, not echoed from the request.
 */
import fc from 'fast-check';

/**
 * Fragments of a stack trace (a frame line, `file.ts:12`) or of SQL and driver errors: never
 * in a response. Patterns rather than plain substrings where an echoed field path could
 * otherwise look like one (`geo.x.ts: keys must ...` is a message, `x.ts:12:3` a frame).
 */
export const LEAK_MARKERS: readonly RegExp[] = [
  /^ {4}at /m,
  /\n\s+at \S/,
  /\.(?:ts|js|mjs|cjs):\d+/,
  /node_modules/,
  /SELECT /,
  /INSERT /,
  /UPDATE /,
  / FROM /,
  /syntax error/,
  /relation "/,
  /Failed query/,
  /DrizzleQueryError/,
  /invalid input syntax/,
  /duplicate key/,
  /violates /,
  /RangeError/,
  /TypeError/,
];

export const containsMarker = (s: string): boolean => LEAK_MARKERS.some((m) => m.test(s));

/** What the generators may use besides random data: real values of the workspaces under test. */
export interface Pools {
  /** Real UUIDs (ids of records of A, B and C; click ids; event ids). */
  ids: readonly string[];
  /** Real client-chosen strings (external ids, names, tenant ids, event names). */
  strings: readonly string[];
  /** Real values by field name (collectionId: the collections' ids, ...), for requests that get far. */
  byField?: Readonly<Record<string, readonly string[]>>;
}

// ---------------------------------------------------------------------------------------------
// Strings and JSON values
// ---------------------------------------------------------------------------------------------

const NASTY_STRINGS = [
  '',
  ' ',
  "' OR '1'='1",
  "'; DROP TABLE links; --",
  '"); --',
  '\\',
  '\\u0000',
  '\0',
  'a\0b',
  '\uD800',
  'x\uDFFFy',
  '\uDBFF\uDBFF',
  '\uFEFF',
  '\u202Eevil',
  '\u00A0\u2028\u2029',
  '𝕳𝖔𝖘𝖙𝖎𝖑𝖊',
  '👨‍👩‍👧‍👦',
  'مرحبا بالعالم',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  '{{7*7}}',
  '${7*7}',
  '../../../etc/passwd',
  '%00',
  '%',
  '%zz',
  '\r\n',
  '\t',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-0',
  '1e309',
  '0x1F',
  'true',
  '[]',
  '{}',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'lt_',
  'Bearer',
  'javascript:alert(1)',
  'data:text/html,<b>x</b>',
  'https://',
  'http://10.0.0.1/',
  'https://127.0.0.1/',
  'https://user:pass@[::1]:99999/',
  '2024-02-30T25:61:61Z',
  '0000-00-00',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59-23:59',
  '+275760-09-13T00:00:00Z',
  '00000000-0000-0000-0000-000000000000',
  'urn:uuid:00000000-0000-0000-0000-000000000000',
  'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
  '*',
  '?',
  '#',
  '&',
  '=',
  ';',
  '+',
  ',',
  'usd',
  'USD',
  'xxx',
];

/** Characters that break naive code: NUL, lone surrogates, quotes, escapes, separators. */
const NASTY_CHARS = ['\0', '\uD800', '\uDC00', '"', "'", '\\', '%', '&', '=', '/', ' ', '\n', 'é', '😀', '\u0301', 'a', 'Z', '0', '-', '_'];

const hugeString = fc
  .tuple(fc.constantFrom(1_000, 10_000, 100_000), fc.constantFrom('a', 'é', '😀', '\0', 'x ', '\uD800', '%'))
  .map(([n, unit]) => unit.repeat(Math.ceil(n / unit.length)));

const randomString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.string({ unit: fc.constantFrom(...NASTY_CHARS), maxLength: 30 }),
  fc.string({ maxLength: 30 }),
);

export function hostileString(pools?: Pools): fc.Arbitrary<string> {
  const parts: fc.WeightedArbitrary<string>[] = [
    { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
    { weight: 4, arbitrary: randomString },
    { weight: 1, arbitrary: hugeString },
  ];
  if (pools && pools.ids.length) parts.push({ weight: 2, arbitrary: fc.constantFrom(...pools.ids) });
  if (pools && pools.strings.length) parts.push({ weight: 2, arbitrary: fc.constantFrom(...pools.strings) });
  return fc.oneof(...parts).filter((s) => !containsMarker(s));
}

const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.integer(),
  fc.constantFrom(0, -1, 1, 2 ** 31, -(2 ** 31), 2 ** 53, 2 ** 53 + 2, -(2 ** 53), 1e308, -1e308, 5e-324, 0.5, -0, 4999.5),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

const hostileKey = (pools?: Pools) =>
  fc.oneof(
    fc.constantFrom(
      'id',
      'name',
      'url',
      'workspaceId',
      'workspace_id',
      'deletedAt',
      'createdAt',
      'key',
      'scope',
      '',
      ' ',
      '__proto__',
      'constructor',
      '$ref',
      'a.b',
      '[0]',
    ),
    fc.string({ maxLength: 12 }),
    hostileString(pools),
  );

/** Any JSON-able value, leaning to the nasty side, at most `depth` levels. */
export function hostileJson(pools?: Pools, depth = 3): fc.Arbitrary<unknown> {
  const { tree } = fc.letrec<{ tree: unknown; leaf: unknown }>((tie) => ({
    leaf: fc.oneof(hostileString(pools), hostileNumber, fc.boolean(), fc.constant(null)),
    tree: fc.oneof(
      { depthSize: 'small', maxDepth: depth },
      { weight: 3, arbitrary: tie('leaf') },
      { weight: 1, arbitrary: fc.array(tie('tree'), { maxLength: 4 }) },
      { weight: 1, arbitrary: fc.dictionary(hostileKey(pools), tie('tree'), { maxKeys: 4 }) },
    ),
  }));
  return fc.oneof({ weight: 3, arbitrary: tree }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: depth }) });
}

/** A value nested `depth` levels deep, as arrays or objects. */
export function nested(depth: number, kind: 'array' | 'object', leaf: unknown = 1): unknown {
  let v: unknown = leaf;
  for (let i = 0; i < depth; i++) v = kind === 'array' ? [v] : { a: v };
  return v;
}

/** The same as raw JSON text (no recursion, so any depth). */
export function nestedText(depth: number, kind: 'array' | 'object', leaf = '1'): string {
  return kind === 'array' ? `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`;
}

/** Moderately deep values (the dedicated depth test goes much further). */
export const deepValue = fc.tuple(fc.integer({ min: 20, max: 400 }), fc.constantFrom('array' as const, 'object' as const)).map(([d, kind]) => nested(d, kind));

/** JSON text that is not (quite) JSON, or JSON that servers trip over. */
export const malformedJsonText = fc.constantFrom(
  '',
  ' ',
  '{',
  '[',
  ']',
  '{"a":}',
  '[1,]',
  'nul',
  '"',
  '\uFEFF[]',
  '[{"name":"x"}]garbage',
  '{"__proto__":{"isAdmin":true}}',
  '[{"__proto__":{"polluted":true},"name":"x"}]',
  '[{"constructor":{"prototype":{"polluted":true}},"name":"x"}]',
  '[{"name":"x","name":"y"}]',
  '[1e999]',
  '[-]',
  '[0x10]',
  "['single']",
  '[NaN]',
  '[undefined]',
  '/*comment*/[]',
  '[]\u0000',
  '"\\ud800"',
  '[1]'.repeat(100),
  '\u0000',
);

// ---------------------------------------------------------------------------------------------
// Schema-driven values: every documented field gets plausible values and hostile ones
// ---------------------------------------------------------------------------------------------

/** A JSON schema as the route table holds it (TypeBox output). */
export interface Schema {
  type?: string | string[];
  format?: string;
  description?: string;
  enum?: unknown[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  anyOf?: Schema[];
  $ref?: string;
}

/** Destinations on loopback/private addresses only: a cloaking check refuses them without a lookup or a fetch. */
export const URLS = [
  'https://10.1.2.3/landing',
  'https://127.0.0.1/a?b=c#d',
  'https://[::1]/x',
  'https://192.168.0.10/ü/😀?q=%00',
  'https://10.0.0.1/' + 'a'.repeat(5000),
  'http://10.0.0.1/plain-http',
  'ftp://10.0.0.1/file',
  'javascript:alert(1)',
  'https:///nohost',
  '//10.0.0.1/x',
  'https://10.0.0.1:0/',
  'https://user:pw@10.0.0.1/',
  'https://10.0.0.1/%ZZ',
  'HTTPS://10.0.0.2/UPPER',
];

const EMAILS = ['ada@example.com', 'a@b.co', 'a@', '@b', 'a@b@c', 'x'.repeat(200) + '@example.com', 'ünï@exämple.com', 'a b@c.d'];

const DATE_TIMES = [
  '2030-01-01T00:00:00Z',
  '2000-01-01T00:00:00.000+05:30',
  '2024-02-29',
  '2024-02-30T00:00:00Z',
  '0000-01-01T00:00:00Z',
  '0001-01-01T00:00:00+14:00',
  '9999-12-31T23:59:59Z',
  '9999-12-31T23:59:59-23:59',
  '+275760-09-13T00:00:00Z',
  '-000001-01-01T00:00:00Z',
  '2030-01-01T00:00:00',
  '2030-13-01T00:00:00Z',
  '1970-01-01T00:00:00Z',
  'now',
  '1e10',
];

function typesOf(s: Schema): string[] {
  if (Array.isArray(s.type)) return s.type;
  return s.type ? [s.type] : [];
}

function stringsFor(s: Schema, pools: Pools): fc.Arbitrary<unknown> {
  const options: fc.Arbitrary<unknown>[] = [];
  if (s.enum) {
    const values = s.enum.map(String);
    options.push(fc.constantFrom(...values), fc.constantFrom(...values.map((v) => v.toUpperCase()), ...values.map((v) => ` ${v}`)));
  } else if (s.format === 'uuid') {
    options.push(
      fc.constantFrom(...pools.ids),
      fc.constantFrom(...pools.ids.map((id) => id.toUpperCase())),
      fc.uuid(),
      fc.constantFrom(
        '00000000-0000-0000-0000-000000000000',
        'urn:uuid:00000000-0000-0000-0000-000000000000',
        'not-a-uuid',
        '{00000000-0000-0000-0000-000000000000}',
      ),
    );
  } else if (isUrlSchema(s)) {
    options.push(fc.constantFrom(...URLS));
  } else if (s.format === 'email') {
    options.push(fc.constantFrom(...EMAILS));
  } else if (s.format === 'date-time' || s.format === 'date') {
    options.push(fc.constantFrom(...DATE_TIMES));
  } else if (s.pattern) {
    options.push(fc.stringMatching(new RegExp(s.pattern)), fc.constantFrom('#3366ff', '3366ff', '#12345', '#GGGGGG', 'FF00FF', '#ffffff\n'));
  } else {
    options.push(fc.constantFrom(...pools.strings), fc.stringMatching(/^[A-Za-z0-9 ._-]{1,20}$/));
  }
  if (s.maxLength !== undefined && s.maxLength <= 10_000) {
    options.push(fc.constantFrom('x'.repeat(s.maxLength), 'y'.repeat(s.maxLength + 1), '😀'.repeat(s.maxLength)));
  }
  if (s.minLength !== undefined) options.push(fc.constant('z'.repeat(Math.max(0, s.minLength - 1))));
  return fc.oneof(...options);
}

function numbersFor(s: Schema, integer: boolean): fc.Arbitrary<unknown> {
  const min = s.minimum ?? -1_000_000;
  const max = Math.min(s.maximum ?? 1_000_000, Number.MAX_SAFE_INTEGER);
  const edges = [min, max, min - 1, max + 1, 0, -1, 0.5, max + 0.5];
  return fc.oneof(integer ? fc.integer({ min, max: Math.min(max, min + 1_000_000) }) : fc.double({ min, max, noNaN: true }), fc.constantFrom(...edges));
}

/** Plausible values for a schema (right type, near the bounds, real ids) or, now and then, anything. */
export function valueFor(schema: Schema | undefined, pools: Pools, depth = 0): fc.Arbitrary<unknown> {
  const hostile = hostileJson(pools, 2);
  if (!schema || schema.$ref) return hostile;
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s) => valueFor(s, pools, depth)));
  const options: fc.Arbitrary<unknown>[] = [];
  for (const type of typesOf(schema)) {
    if (type === 'null') options.push(fc.constant(null));
    else if (type === 'string') options.push(stringsFor(schema, pools));
    else if (type === 'integer') options.push(numbersFor(schema, true));
    else if (type === 'number') options.push(numbersFor(schema, false));
    else if (type === 'boolean') options.push(fc.boolean());
    else if (type === 'array') {
      const items = depth > 3 ? hostile : valueFor(schema.items, pools, depth + 1);
      const arrays = [fc.array(items, { maxLength: 5 })];
      if (schema.maxItems !== undefined && schema.maxItems <= 1000)
        arrays.push(fc.array(items, { minLength: schema.maxItems + 1, maxLength: schema.maxItems + 1 }));
      options.push(fc.oneof({ weight: 6, arbitrary: arrays[0]! }, { weight: 1, arbitrary: fc.oneof(...arrays) }));
    } else if (type === 'object') {
      if (schema.properties && depth <= 3) options.push(recordFor(schema, pools, depth + 1));
      else options.push(fc.oneof(fc.dictionary(hostileKey(pools), hostile, { maxKeys: 5 }), deepValue));
    }
  }
  if (options.length === 0) return hostile;
  return fc.oneof({ weight: 6, arbitrary: fc.oneof(...options) }, { weight: 1, arbitrary: hostile }, { weight: 1, arbitrary: hostileString(pools) });
}

/** A URL field: `format: 'uri'`, or one checked by the API's URL rule (described, as ajv's uri refuses IDN). */
function isUrlSchema(s: Schema): boolean {
  return s.format === 'uri' || /\bhttps URL\b/.test(s.description ?? '');
}

/** Valid https destinations (private addresses: no cloaking check ever leaves the machine). */
const GOOD_URLS = URLS.slice(0, 3);

/**
 * Values a careful client would send: the right type within the bounds, real ids for the field
 * (when the pools know the field), so that requests get past validation into the services.
 */
export function goodFor(schema: Schema | undefined, pools: Pools, field = '', depth = 0): fc.Arbitrary<unknown> {
  if (!schema || schema.$ref) return fc.constant(null);
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s) => goodFor(s, pools, field, depth)));
  const known = pools.byField?.[field];
  const types = typesOf(schema).filter((x) => x !== 'null');
  const type = types[0];
  if (type === 'string') {
    if (known && known.length) return fc.constantFrom(...known);
    if (schema.enum) return fc.constantFrom(...schema.enum.map(String));
    if (schema.format === 'uuid') return fc.constantFrom(...pools.ids);
    if (isUrlSchema(schema)) return fc.constantFrom(...GOOD_URLS);
    if (schema.format === 'email') return fc.constantFrom('ada@example.com', 'x.y+z@sub.example.org');
    if (schema.format === 'date-time') {
      // RFC 3339 date-times, the edges of the calendar included (what the schema lets through).
      return fc.constantFrom(
        '2031-05-01T10:00:00Z',
        '2000-01-01T00:00:00+02:00',
        '2029-12-31T23:59:59.999-08:00',
        '0000-01-01T00:00:00Z',
        '9999-12-31T23:59:59-23:59',
        '0001-01-01T00:00:00+14:00',
      );
    }
    if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern));
    const min = schema.minLength ?? 0;
    const max = Math.min(schema.maxLength ?? 40, 40);
    return fc
      .oneof(fc.string({ unit: 'grapheme', minLength: Math.max(min, 1), maxLength: Math.max(max, min, 1) }), fc.stringMatching(/^[a-z]{3,12}$/))
      .filter((v) => v.length >= min && (schema.maxLength === undefined || v.length <= schema.maxLength) && !containsMarker(v));
  }
  if (type === 'integer' || type === 'number') {
    const min = schema.minimum ?? 0;
    const max = Math.min(schema.maximum ?? 10_000, min + 10_000);
    return fc.integer({ min, max });
  }
  if (type === 'boolean') return fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) });
  if (type === 'array') {
    const min = schema.minItems ?? 0;
    const max = Math.max(Math.min(schema.maxItems ?? 3, 3), min);
    if (known && known.length) return fc.uniqueArray(fc.constantFrom(...known), { minLength: Math.min(min, known.length), maxLength: max });
    return fc.array(goodFor(schema.items, pools, field, depth + 1), { minLength: min, maxLength: max });
  }
  if (type === 'object') {
    if (schema.properties && depth <= 3) return goodRecord(schema, pools, depth + 1);
    const map = schema as { patternProperties?: Record<string, Schema>; additionalProperties?: Schema | boolean };
    const patterned = Object.values(map.patternProperties ?? {})[0] ?? (typeof map.additionalProperties === 'object' ? map.additionalProperties : undefined);
    // A map such as country -> destination: upper-case codes to good URLs.
    if (patterned)
      return fc.dictionary(fc.constantFrom('US', 'FR', 'JP', 'BR'), patterned.type === 'string' ? fc.constantFrom(...GOOD_URLS) : goodFor(patterned, pools), {
        maxKeys: 2,
      });
    return fc.dictionary(
      fc.stringMatching(/^[a-z]{1,8}$/),
      fc.oneof(
        fc.string({ maxLength: 10 }).filter((v) => !containsMarker(v)),
        fc.integer(),
        fc.boolean(),
      ),
      { maxKeys: 3 },
    );
  }
  return fc.constant(null);
}

/** A record with its required fields and some optional ones, all good. */
export function goodRecord(schema: Schema, pools: Pools, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const props = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const entries = Object.entries(props).map(([k, s]) => {
    const value = goodFor(s, pools, k, depth);
    return required.has(k)
      ? value.map((v) => [[k, v]] as [string, unknown][])
      : fc.option(value, { freq: 3 }).map((v) => (v === null ? [] : [[k, v]]) as [string, unknown][]);
  });
  return fc.tuple(...entries).map((parts) => Object.fromEntries(parts.flat()));
}

/** A good record with one field (or one unknown field) made hostile: the request fails late, or not at all. */
function oneBadApple(schema: Schema, pools: Pools): fc.Arbitrary<Record<string, unknown>> {
  const names = Object.keys(schema.properties ?? {});
  const field = names.length ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...names) }, { weight: 1, arbitrary: hostileKey(pools) }) : hostileKey(pools);
  return fc.tuple(goodRecord(schema, pools), field, fc.oneof(hostileJson(pools, 2), deepValue)).map(([record, name, value]) => ({ ...record, [name]: value }));
}

/** An object of a schema's fields (some, all or none of them) plus unknown ones. */
export function recordFor(schema: Schema, pools: Pools, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const props = schema.properties ?? {};
  const fields = Object.fromEntries(Object.entries(props).map(([k, s]) => [k, valueFor(s, pools, depth)]));
  const required = (schema.required ?? []).filter((k) => k in fields);
  const some = fc.record(fields, { requiredKeys: [] });
  const complete = fc.record(fields, { requiredKeys: required });
  const extra = fc.dictionary(hostileKey(pools), hostileJson(pools, 1), { maxKeys: 2 });
  const mixed = fc
    .tuple(fc.oneof(some, complete), fc.oneof({ weight: 3, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: extra }))
    .map(([known, unknown]) => ({ ...(unknown as Record<string, unknown>), ...(known as Record<string, unknown>) }));
  return fc.oneof(
    { weight: 2, arbitrary: mixed },
    { weight: 2, arbitrary: goodRecord(schema, pools, depth) },
    { weight: 2, arbitrary: oneBadApple(schema, pools) },
  );
}

/** A good body for a schema: one object, or a short array of good items (bulk). */
function goodBody(schema: Schema, pools: Pools): fc.Arbitrary<unknown> {
  if (schema.type === 'array' && schema.items) {
    const item = schema.items.properties
      ? fc.oneof({ weight: 3, arbitrary: goodRecord(schema.items, pools) }, { weight: 1, arbitrary: oneBadApple(schema.items, pools) })
      : goodFor(schema.items, pools);
    // Distinct ids and names: a repeated one is a (documented) 400 the other generators reach anyway.
    const identity = (v: unknown) =>
      v && typeof v === 'object' ? JSON.stringify([(v as Record<string, unknown>).id, (v as Record<string, unknown>).name]) : JSON.stringify(v);
    return fc.uniqueArray(item, { minLength: 1, maxLength: 4, selector: identity });
  }
  if (schema.properties) return fc.oneof({ weight: 3, arbitrary: goodRecord(schema, pools) }, { weight: 1, arbitrary: oneBadApple(schema, pools) });
  return goodFor(schema, pools);
}

/** A request body as text: good, schema-shaped, any JSON, malformed, deep, or nothing at all. */
export function payloadFor(schema: Schema | undefined, pools: Pools): fc.Arbitrary<string | undefined> {
  const shaped = schema ? valueFor(schema, pools) : hostileJson(pools);
  const bigArray = fc
    .tuple(fc.integer({ min: 200, max: 2000 }), fc.constantFrom(...pools.ids))
    .map(([n, id]) => JSON.stringify(Array.from({ length: n }, (_, i) => (i % 2 ? id : { name: `n${i}`, id }))));
  const text = (v: unknown) => JSON.stringify(v) ?? 'null';
  return fc.oneof(
    { weight: schema ? 8 : 0, arbitrary: schema ? goodBody(schema, pools).map(text) : fc.constant(undefined) },
    { weight: 6, arbitrary: shaped.map(text) },
    { weight: 2, arbitrary: hostileJson(pools).map(text) },
    { weight: 1, arbitrary: malformedJsonText },
    { weight: 1, arbitrary: deepValue.map(text) },
    { weight: 1, arbitrary: bigArray },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

// ---------------------------------------------------------------------------------------------
// Query strings
// ---------------------------------------------------------------------------------------------

/** Percent-encodes like a client would; a lone surrogate (not encodable) goes as its raw UTF-8 bytes. */
export function encode(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return encodeURIComponent(s.replace(/[\uD800-\uDFFF]/g, '')) + '%ED%A0%80';
  }
}

const RAW_QUERY_FRAGMENTS = [
  '%',
  '%zz',
  '%E0%A4%A',
  '%00',
  '%ED%A0%80',
  '+',
  '&&',
  '==',
  ';',
  'a[]=1',
  'take[]=1',
  'id[0]=x',
  '__proto__[x]=1',
  '&=&',
  'sort',
  '=asc',
];

const asText = (v: unknown) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v)));

/**
 * A query string over a route's documented parameters: either good (the required ones and some
 * others, with good values) or hostile (random values, repeats, unknown names, raw fragments).
 */
export function queryFor(schema: Schema | undefined, pools: Pools): fc.Arbitrary<string> {
  const properties = schema?.properties ?? {};
  const required = new Set(schema?.required ?? []);
  const pair = (k: string, v: string) => `${encode(k)}=${encode(v)}`;
  const good = fc
    .tuple(
      ...Object.entries(properties).map(([name, s]) => {
        const value = goodFor(s, pools, name).map((v) => [pair(name, asText(v))]);
        return required.has(name) ? value : fc.option(value, { freq: 3 }).map((v) => v ?? []);
      }),
    )
    .map((parts) => parts.flat().join('&'));
  const documented = Object.entries(properties).map(([name, s]) =>
    fc
      .option(
        fc.array(fc.oneof({ weight: 3, arbitrary: valueFor(s, pools).map(asText) }, { weight: 1, arbitrary: hostileString(pools) }), {
          minLength: 1,
          maxLength: 2,
        }),
        {
          freq: 2,
        },
      )
      .map((values) => (values ?? []).map((v) => pair(name, v))),
  );
  const unknown = fc.array(
    fc.tuple(
      fc.oneof(fc.constantFrom('foo', 'limit', 'offset', 'page', 'workspaceId', 'apiKey', 'key', '__proto__', 'constructor', ''), hostileString(pools)),
      hostileString(pools),
    ),
    { maxLength: 3 },
  );
  const raw = fc.array(fc.constantFrom(...RAW_QUERY_FRAGMENTS), { maxLength: 2 });
  const hostile = fc
    .tuple(fc.tuple(...documented), unknown, fc.oneof({ weight: 4, arbitrary: fc.constant([] as string[]) }, { weight: 1, arbitrary: raw }))
    .map(([doc, unk, rawParts]) => [...doc.flat(), ...unk.map(([k, v]) => pair(k, v)), ...rawParts].join('&'));
  return fc.oneof({ weight: 1, arbitrary: good }, { weight: 1, arbitrary: hostile });
}

// ---------------------------------------------------------------------------------------------
// Headers
// ---------------------------------------------------------------------------------------------

/** Header values must be visible ASCII (and space): anything else is refused by HTTP clients. */
export const headerSafe = (s: string): string => s.replace(/[^\x20-\x7E]/g, '');

const printable = (max: number) => fc.string({ unit: 'grapheme-ascii', maxLength: max }).filter((s) => !containsMarker(s));

export interface Credentials {
  /** A's key with every scope. */
  a: string;
  /** A's key with some scopes only. */
  aLimited: string;
  /** A's revoked key and A's expired key. */
  aRevoked: string;
  aExpired: string;
  /** B's key: never presented as the only credential in a usable form. */
  b: string;
  admin: string;
}

const b64 = (s: string) => Buffer.from(s).toString('base64');
const randomKey = fc.stringMatching(/^[A-Za-z0-9_-]{43}$/).map((s) => `lt_${s}`);

/** The documented forms of a usable credential (api.md "Authentication"). */
const usableForms = (k: string) => fc.constantFrom(`Bearer ${k}`, `bearer ${k}`, `BEARER ${k}`, `Bearer   ${k}`, k, `${k} `, `Bearer ${k}  `);

/** Forms that must never authenticate, whatever key they carry. */
const unusableForms = (k: string) =>
  fc.oneof(
    fc.constantFrom(
      `Basic ${b64(k)}`,
      `Basic ${b64(`api:${k}`)}`,
      `Token ${k}`,
      `Bearer ${k}x`,
      `Bearer ${k.slice(0, -1)}`,
      `Bearer ${k.toUpperCase()}`,
      `Bearer ${k}${k}`,
      `Bearer ${k}, Bearer ${k}`,
      `Bearer Bearer ${k}`,
      `Bearer "${k}"`,
      `Bearer ${k.slice(3)}`,
      `Bearer\u0020${k}\u0020extra`,
    ),
    fc.constantFrom('Bearer', 'Bearer ', '', 'lt_', 'Bearer lt_', 'null', 'undefined', 'Bearer ' + 'A'.repeat(8000)),
    randomKey.map((r) => `Bearer ${r}`),
    printable(60),
  );

export type Auth = { authorization?: string; 'x-api-key'?: string };

/**
 * Credentials in every form: none, A's (usable, limited, revoked, expired), two different ones
 * (conflict), and garbage built from any key, B's included.
 */
export function authHeaders(c: Credentials): fc.Arbitrary<Auth> {
  const anyKey = fc.constantFrom(c.a, c.aLimited, c.aRevoked, c.aExpired, c.b, c.admin);
  const single = (k: string) =>
    fc.oneof(
      usableForms(k).map((v): Auth => ({ authorization: v })),
      usableForms(k).map((v): Auth => ({ 'x-api-key': v.replace(/^bearer\s+/i, '') })),
      fc.tuple(usableForms(k), fc.constantFrom(k, ` ${k} `)).map(([v, x]): Auth => ({ authorization: v, 'x-api-key': x })),
    );
  const conflict = fc.tuple(fc.constantFrom(c.aLimited, c.b, c.aRevoked), randomKey, fc.boolean(), fc.boolean()).chain(([other, rnd, useRandom, swap]) =>
    fc.tuple(usableForms(c.a), usableForms(useRandom ? rnd : other)).map(([mine, theirs]): Auth => {
      const [x, y] = swap ? [theirs, mine] : [mine, theirs];
      return { authorization: x, 'x-api-key': y.replace(/^bearer\s+/i, '') };
    }),
  );
  const garbage = anyKey.chain((k) =>
    fc.oneof(
      unusableForms(k).map((v): Auth => ({ authorization: v })),
      unusableForms(k).map((v): Auth => ({ 'x-api-key': v })),
      fc.tuple(unusableForms(k), unusableForms(k)).map(([x, y]): Auth => ({ authorization: x, 'x-api-key': y })),
    ),
  );
  return fc
    .oneof(
      { weight: 1, arbitrary: fc.constant({} as Auth) },
      { weight: 12, arbitrary: single(c.a) },
      { weight: 2, arbitrary: single(c.aLimited) },
      { weight: 1, arbitrary: fc.constantFrom(c.aRevoked, c.aExpired).chain(single) },
      { weight: 1, arbitrary: conflict },
      { weight: 2, arbitrary: garbage },
    )
    .map((h) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k, headerSafe(v)])) as Auth);
}

/** The operator token in usable and unusable forms. */
export function adminAuthHeaders(c: Credentials): fc.Arbitrary<Auth> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(`Bearer ${c.admin}`, `bearer ${c.admin}`, `Bearer  ${c.admin} `).map((v): Auth => ({ authorization: v })) },
    {
      weight: 3,
      arbitrary: fc.oneof(
        fc.constant({} as Auth),
        fc
          .constantFrom(
            c.admin,
            `Basic ${b64(c.admin)}`,
            `Bearer ${c.admin}x`,
            `Bearer ${c.admin.slice(1)}`,
            `Bearer ${c.admin.toUpperCase()}`,
            `Bearer ${c.a}`,
            `Bearer ${c.b}`,
          )
          .map((v): Auth => ({ authorization: v })),
        fc.constant({ 'x-api-key': c.admin } as Auth),
        unusableForms(c.admin).map((v): Auth => ({ authorization: headerSafe(v) })),
      ),
    },
  );
}

/** Which credential a request carries, read the way api.md describes it (one credential per request). */
export function presentedTokens(h: Auth): Set<string> {
  const found = new Set<string>();
  if (h.authorization !== undefined) {
    const m = /^Bearer\s+(.*)$/i.exec(h.authorization);
    found.add((m ? m[1]! : h.authorization).trim());
  }
  if (h['x-api-key'] !== undefined) found.add(h['x-api-key'].trim());
  return found;
}

export const adminTokenOf = (h: Auth): string | undefined => {
  const m = /^Bearer\s+(.+)$/i.exec(h.authorization ?? '');
  return m ? m[1]!.trim() : undefined;
};

const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
const ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36';

export const userAgent = fc.oneof(
  fc.constantFrom(
    BROWSER,
    IPHONE,
    ANDROID,
    'Googlebot/2.1 (+http://www.google.com/bot.html)',
    'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
    'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
    'Twitterbot/1.0',
    'WhatsApp/2.23.20.0',
    'curl/8.5.0',
    'python-requests/2.31.0',
    '',
    ' ',
    '() { :; }; echo vulnerable',
  ),
  fc.constantFrom(2_000, 8_000).map((n) => `${BROWSER} `.repeat(Math.ceil(n / BROWSER.length))),
  printable(80),
);

export const forwardedFor = fc.oneof(
  fc.ipV4(),
  fc.ipV6(),
  fc.array(fc.oneof(fc.ipV4(), fc.ipV6()), { minLength: 2, maxLength: 5 }).map((ips) => ips.join(', ')),
  fc.constantFrom(
    '999.999.1.1',
    'unknown',
    '',
    ',,,',
    '1.2.3.4, garbage',
    '::ffff:10.0.0.1',
    '[::1]:443',
    '1.2.3.4:80',
    'localhost',
    '0.0.0.0',
    '127.0.0.1',
    '::',
    '::1',
  ),
  fc.constantFrom(200, 2_000).map((n) => Array.from({ length: n }, (_, i) => `10.${(i >> 8) & 255}.${i & 255}.1`).join(',')),
  printable(60),
);

export const contentType = fc.oneof(
  { weight: 30, arbitrary: fc.constant('application/json') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'application/json; charset=latin1',
      'application/json;;',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      '',
      'application/vnd.api+json',
      '*/*',
      'application/jsonx',
      'application/json, text/plain',
      'text/html',
      'application/xml',
    ),
  },
  { weight: 1, arbitrary: printable(40) },
);

export interface OtherHeaders {
  [name: string]: string | undefined;
}

/** Everything else a client sends: proxies, agents, cookies, caching, request ids. */
export function otherHeaders(passCookies: readonly string[]): fc.Arbitrary<OtherHeaders> {
  const cookie = fc.oneof(
    printable(80),
    fc.stringMatching(/^[A-Za-z0-9_-]{43}$/).map((v) => `lt_pass=${v}`),
    passCookies.length
      ? fc.constantFrom(...passCookies.flatMap((t) => [`lt_pass=${t}`, `lt_pass=${t}x`, `lt_pass=; lt_pass=${t}`, `a=1; lt_pass=${t.slice(1)}`]))
      : fc.constant('lt_pass='),
    fc.constantFrom('lt_pass', 'lt_pass==', '=;=;', 'ltid=00000000-0000-0000-0000-000000000000', 'a=b; '.repeat(400)),
  );
  return fc
    .record(
      {
        'x-forwarded-for': forwardedFor,
        'user-agent': userAgent,
        cookie,
        'cf-ipcountry': fc.constantFrom('US', 'us', 'XX', 'T1', 'ZZZ', '', 'FR', '1'),
        referer: fc.oneof(fc.constantFrom('https://news.example/post?id=1', 'android-app://com.example', 'not a url', ''), printable(40)),
        'accept-language': fc.constantFrom('ar', 'en-US,en;q=0.9', '*', '', 'xx-YY;q=2'),
        accept: fc.constantFrom('application/json', 'text/html', '*/*', 'image/png', ''),
        'if-none-match': fc.oneof(fc.constantFrom('*', '""', 'W/"x"'), printable(30)),
        'x-request-id': fc.oneof(fc.stringMatching(/^[\w.-]{1,20}$/), printable(200)),
        'x-custom-header': printable(40),
      },
      { requiredKeys: [] },
    )
    .chain((h) =>
      // A content type nearly always (a body without one is a 400 before anything interesting).
      fc.option(contentType, { freq: 12 }).map((type) => (type === null ? h : { ...h, 'content-type': type })),
    )
    .map((h) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k, headerSafe(v as string)])));
}
