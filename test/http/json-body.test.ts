/**
 * The bounded JSON body parser (issue 11, defects 2 and 12): it accepts exactly the JSON that
 * JSON.parse accepts (within the limits), refuses hostile shapes before parsing them, and never
 * lets `__proto__` or `constructor` reach a prototype.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { AppError } from '../../src/core/errors.js';
import { limitsFor, parseJsonBody } from '../../src/http/json-body.js';
import { JsonScanner } from '../../src/http/json-scan.js';

async function outcome(text: string, maxItems = 10_000): Promise<{ ok: true; value: unknown } | { ok: false; code: string; message: string }> {
  try {
    return { ok: true, value: await parseJsonBody(text, maxItems) };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { ok: false, code: err.code, message: String(err.params.field ?? '') + ' ' + String(err.params.reasonCode ?? '') };
  }
}

const jsonParsed = (text: string): { ok: true; value: unknown } | { ok: false } => {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
};

const storableJson = fc
  .jsonValue({ maxDepth: 6 })
  .map((v) => JSON.stringify(v))
  .filter((t) => !t.includes('\\u0000') && !/\\ud[89a-f]/i.test(t));

describe('parseJsonBody accepts what JSON.parse accepts', () => {
  test('any JSON value (within the limits) parses to what JSON.parse gives', async () => {
    await fc.assert(
      fc.asyncProperty(storableJson, fc.constantFrom('', ' ', '\n\t '), async (text, pad) => {
        const got = await outcome(pad + text + pad);
        expect(got).toEqual({ ok: true, value: JSON.parse(text) });
      }),
      { numRuns: 400 },
    );
  });

  test('a mangled text is refused as malformed exactly when JSON.parse refuses it', async () => {
    const mangled = fc
      .tuple(storableJson, fc.nat(), fc.nat({ max: 4 }), fc.constantFrom(',', ']', '[', '{', '}', '"', ':', ' ', '1', 'x', ''))
      .map(([text, at, cut, insert]) => {
        const i = at % (text.length + 1);
        return text.slice(0, i) + insert + text.slice(i + cut);
      });
    await fc.assert(
      fc.asyncProperty(mangled, async (text) => {
        const reference = jsonParsed(text);
        const got = await outcome(text);
        if (reference.ok) {
          // Lone surrogates or NUL may appear by mangling escapes: then a storable-text 400.
          if (!got.ok) expect(got.code).toBe('invalid_field');
          else expect(got.value).toEqual(reference.value);
        } else {
          expect(got.ok ? 'accepted' : got.code, text).toMatch(text.trim() === '' ? /empty_body|malformed_json/ : /malformed_json/);
        }
      }),
      { numRuns: 1500 },
    );
  });

  test('a large array is parsed item by item and comes out equal', async () => {
    const items = Array.from({ length: 5000 }, (_, i) => ({ name: `tag ${i}`, color: '#112233', nested: { list: [i, `x${i}`, null, true] }, ' s': 'a,b]c' }));
    const text = JSON.stringify(items, null, 1);
    expect(text.length).toBeGreaterThan(256 * 1024);
    expect(await outcome(text)).toEqual({ ok: true, value: items });
    // The same, cut short or with a trailing comma: malformed.
    expect(await outcome(text.slice(0, -2))).toMatchObject({ ok: false, code: 'malformed_json' });
    expect(await outcome(text.replace(/\n]$/, ',]'))).toMatchObject({ ok: false, code: 'malformed_json' });
    expect(await outcome(text + ' []')).toMatchObject({ ok: false, code: 'malformed_json' });
  });
});

describe('hostile shapes are refused before they are parsed', () => {
  test.each([
    ['15 M zeros in the top-level array', () => `[${'0,'.repeat(15_000_000)}0]`, 'too_many_items'],
    ['one item holding a million zeros', () => `[{"name":"x","tagIds":[${'0,'.repeat(1_000_000)}0]}]`, 'invalid_field [0] too_many_values'],
    ['an object with 3 M keys', () => `{${Array.from({ length: 3_000_000 }, (_, i) => `"k${i}":0`).join(',')}}`, 'invalid_field body too_many_keys'],
    [
      '10,000 items of 50 distinct keys (hidden-class blow-up)',
      () => `[${Array.from({ length: 10_000 }, (_, i) => `{${Array.from({ length: 50 }, (_, j) => `"k${i}_${j}":0`).join(',')}}`).join(',')}]`,
      'ok-or-400',
    ],
    ['nesting 100,000 deep', () => '['.repeat(100_000) + ']'.repeat(100_000), 'invalid_field [0] nesting_too_deep'],
    ['a 20 MB string', () => `[{"name":"${'a'.repeat(20_000_000)}"}]`, 'invalid_field [0] string_too_long'],
  ])('%s', async (_name, make, expected) => {
    const text = make();
    const got = await outcome(text, 10_000);
    if (expected === 'ok-or-400') {
      // 500,000 distinct keys are within the limits here; what matters is that the parse
      // went item by item (the loop was free between groups) and gave the right value.
      expect(got.ok).toBe(true);
      return;
    }
    expect(got.ok).toBe(false);
    if (!got.ok) expect(`${got.code} ${got.message}`.trim()).toContain(expected);
  });

  test('the top-level item count is checked against the plan maximum, with the real count', async () => {
    const got = await outcome(`[${'{},'.repeat(150)}{}]`, 100);
    expect(got).toMatchObject({ ok: false, code: 'too_many_items' });
    const scanner = new JsonScanner(limitsFor(100));
    scanner.feed(Buffer.from(`[${'1,'.repeat(150)}1]`));
    expect(scanner.finish()).toEqual({ kind: 'too_many_items', limit: 100, count: 151 });
  });
});

describe('__proto__ and constructor are plain keys', () => {
  test('parsed as own properties; no prototype is touched', async () => {
    const text = '[{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"metadata":{"__proto__":{"a":1}}}]';
    const got = await outcome(text);
    expect(got.ok).toBe(true);
    const [item] = (got as { value: Record<string, unknown>[] }).value;
    expect(Object.getPrototypeOf(item)).toBe(Object.prototype);
    expect(Object.keys(item!)).toEqual(['__proto__', 'constructor', 'metadata']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.stringify(item)).toBe(text.slice(1, -1));
  });

  test('property: injected __proto__ / constructor keys anywhere never change a prototype', async () => {
    const before = Object.getOwnPropertyNames(Object.prototype).sort();
    const withProto = fc.jsonValue({ maxDepth: 4 }).map((v) =>
      JSON.stringify(v)
        .replace(/\{/g, () => `{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}},`)
        .replace(/,\}/g, '}'),
    );
    await fc.assert(
      fc.asyncProperty(withProto, async (text) => {
        const reference = jsonParsed(text);
        if (!reference.ok) return;
        const got = await outcome(text);
        if (got.ok) expect(got.value).toEqual(reference.value);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      { numRuns: 300 },
    );
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(before);
  });
});
