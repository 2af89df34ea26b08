import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable } from '../../src/http/server.js';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { openPglite, openPostgres, type Database } from '../../src/db/connect.js';
import { bearer, startTestApp, type TestApp } from '../helpers/app.js';

/** api.md "Errors": the error body, and the statuses of malformed input, unknown routes and failures. */
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t?.close();
});

const ARABIC = /[\u0600-\u06FF]/;

interface ErrorBody {
  error: { en: string; ar: string; code: string };
  missingScopes?: string[];
  retryAfter?: number;
}

/** The standard error body with this status and code; en and ar both filled, ar in Arabic. */
function expectError(res: LightMyRequestResponse, status: number, code?: string): ErrorBody {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = res.json<ErrorBody>();
  expect(typeof body.error.en).toBe('string');
  expect(body.error.en.trim().length).toBeGreaterThan(0);
  expect(typeof body.error.ar).toBe('string');
  expect(body.error.ar).toMatch(ARABIC);
  if (code !== undefined) expect(body.error.code).toBe(code);
  return body;
}

function expectRateLimitHeaders(res: LightMyRequestResponse): void {
  for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect(res.headers[h], h).toMatch(/^\d+$/);
}

async function tagsOf(key: string): Promise<unknown[]> {
  const res = await t.inject({ method: 'GET', url: '/api/tags', headers: bearer(key) });
  expect(res.statusCode).toBe(200);
  return res.json<unknown[]>();
}

const WRITE_METHODS = ['POST', 'PUT', 'DELETE'] as const;

describe('malformed bodies (400)', () => {
  it('rejects malformed JSON with malformed_json, with rate-limit headers, writing nothing', async () => {
    const w = await t.workspace();
    for (const method of WRITE_METHODS) {
      for (const payload of ['{not json', '[{"name": "a"}', '[{"name": "a",}]', 'nul']) {
        const res = await t.inject({
          method,
          url: '/api/tags',
          headers: { ...bearer(w.key), 'content-type': 'application/json' },
          payload,
        });
        expectError(res, 400, 'malformed_json');
        expectRateLimitHeaders(res);
      }
    }
    expect(await tagsOf(w.key)).toEqual([]);
  });

  it('rejects a body of another content type with 400, writing nothing', async () => {
    const w = await t.workspace();
    const cases: [string, string][] = [
      ['text/plain', '[{"name":"plain"}]'],
      ['application/xml', '<tags><tag name="x"/></tags>'],
      ['application/x-www-form-urlencoded', 'name=form'],
      ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nmp\r\n--x--'],
    ];
    for (const method of WRITE_METHODS) {
      for (const [type, payload] of cases) {
        const res = await t.inject({ method, url: '/api/tags', headers: { ...bearer(w.key), 'content-type': type }, payload });
        expectError(res, 400, 'unsupported_content_type');
      }
    }
    expect(await tagsOf(w.key)).toEqual([]);
  });

  it('rejects an empty body where an array is required', async () => {
    const w = await t.workspace();
    for (const method of WRITE_METHODS) {
      const res = await t.inject({ method, url: '/api/tags', headers: { ...bearer(w.key), 'content-type': 'application/json' } });
      expectError(res, 400);
    }
    expect(await tagsOf(w.key)).toEqual([]);
  });

  it('rejects a JSON body that is not an array where an array is required', async () => {
    const w = await t.workspace();
    const bodies: unknown[] = [{ name: 'object' }, 'a string', 42, true, null];
    for (const method of WRITE_METHODS) {
      for (const body of bodies) {
        const res = await t.inject({
          method,
          url: '/api/tags',
          headers: { ...bearer(w.key), 'content-type': 'application/json' },
          payload: JSON.stringify(body),
        });
        expectError(res, 400);
        expectRateLimitHeaders(res);
      }
    }
    expect(await tagsOf(w.key)).toEqual([]);
  });

  it('rejects an empty array (1 item at least)', async () => {
    const w = await t.workspace();
    for (const method of WRITE_METHODS) {
      const res = await t.inject({ method, url: '/api/tags', headers: bearer(w.key), payload: [] });
      expectError(res, 400, 'invalid_field');
    }
  });

  it('names the failing item and field of a bulk body, and writes none of the items', async () => {
    const w = await t.workspace();
    const res = await t.inject({
      method: 'POST',
      url: '/api/tags',
      headers: bearer(w.key),
      payload: [{ name: 'one' }, { name: 'two' }, { name: 5 }],
    });
    const body = expectError(res, 400, 'invalid_field');
    expect(body.error.en).toContain('[2].name');
    expect(body.error.ar).toContain('[2].name');
    expect(await tagsOf(w.key)).toEqual([]);
  });

  it('rejects invalid UUIDs in a delete body', async () => {
    const w = await t.workspace();
    const res = await t.inject({ method: 'DELETE', url: '/api/tags', headers: bearer(w.key), payload: ['not-a-uuid'] });
    expectError(res, 400);
  });

  it('does not coerce body types ("5" is not a number, 5 is not a string)', async () => {
    const w = await t.workspace();
    const res = await t.inject({ method: 'POST', url: '/api/tags', headers: bearer(w.key), payload: [{ name: 12345 }] });
    expectError(res, 400, 'invalid_field');
    expect(await tagsOf(w.key)).toEqual([]);
  });
});

describe('bad common list parameters (400 invalid_query)', () => {
  /** The list endpoints api.md gives the common list parameters, among those registered. */
  const listEndpoints = () => {
    const lists = new Set(['/api/links', '/api/collections', '/api/tags', '/api/partners']);
    return [
      ...new Set(
        routeTable(t.runtime.app)
          .filter((r) => (Array.isArray(r.method) ? r.method.includes('GET') : r.method === 'GET') && lists.has(r.url ?? ''))
          .map((r) => r.url!),
      ),
    ];
  };

  const BAD = ['take=0', 'take=5001', 'take=abc', 'take=1.5', 'take=-3', 'skip=-1', 'skip=abc', 'sort=up', 'sort=ASCENDING', 'id=not-a-uuid', 'id=123'];

  it.each(BAD)('rejects %s on every list endpoint', async (query) => {
    const w = await t.workspace();
    const urls = listEndpoints();
    expect(urls).toContain('/api/tags');
    for (const url of urls) {
      const res = await t.inject({ method: 'GET', url: `${url}?${query}`, headers: bearer(w.key) });
      const body = expectError(res, 400, 'invalid_query');
      expect(body.error.en, `${url}?${query}`).toContain(query.split('=')[0]!);
      expectRateLimitHeaders(res);
    }
  });

  it('accepts the bounds: take=1, take=5000, skip=0, sort=asc|desc, a UUID id', async () => {
    const w = await t.workspace();
    for (const query of ['take=1', 'take=5000', 'skip=0', 'skip=100000', 'sort=asc', 'sort=desc', 'id=0b6c3c4e-2f2a-4c55-9a0e-5c7d2b1e9f10']) {
      const res = await t.inject({ method: 'GET', url: `/api/tags?${query}`, headers: bearer(w.key) });
      expect(res.statusCode, `${query}: ${res.body}`).toBe(200);
    }
  });
});

describe('unknown routes (404)', () => {
  // Visitor paths (`/nope`) get the HTML page instead: test/modules/redirect/visitor-side.test.ts.
  it.each([
    ['GET', '/api/nope'],
    ['POST', '/api/nope'],
    ['GET', '/api/tags/extra/segments'],
    ['PATCH', '/api/tags'],
    ['GET', '/api'],
  ] as const)('%s %s answers 404 route_not_found with en and ar', async (method, url) => {
    const res = await t.inject({ method, url });
    const body = expectError(res, 404, 'route_not_found');
    expect(body.missingScopes).toBeUndefined();
  });

  it('answers 404 for an unknown route even with a valid key', async () => {
    const w = await t.workspace();
    expectError(await t.inject({ method: 'GET', url: '/api/no-such-resource', headers: bearer(w.key) }), 404, 'route_not_found');
  });
});

describe('the error body', () => {
  it('has a non-empty en and an Arabic ar on every 4xx', async () => {
    const w = await t.workspace();
    const readOnly = (await w.newKey(['tagsRead'])).key;
    const json = { ...bearer(w.key), 'content-type': 'application/json' };
    const cases: [string, () => Promise<LightMyRequestResponse>, number][] = [
      ['missing credential', () => t.inject({ method: 'GET', url: '/api/tags' }), 401],
      ['malformed credential', () => t.inject({ method: 'GET', url: '/api/tags', headers: { authorization: 'Basic abc' } }), 401],
      ['missing scope', () => t.inject({ method: 'POST', url: '/api/tags', headers: bearer(readOnly), payload: [{ name: 'x' }] }), 403],
      ['malformed JSON', () => t.inject({ method: 'POST', url: '/api/tags', headers: json, payload: '{' }), 400],
      [
        'wrong content type',
        () => t.inject({ method: 'POST', url: '/api/tags', headers: { ...bearer(w.key), 'content-type': 'text/plain' }, payload: 'x' }),
        400,
      ],
      ['not an array', () => t.inject({ method: 'POST', url: '/api/tags', headers: json, payload: '{}' }), 400],
      ['empty array', () => t.inject({ method: 'PUT', url: '/api/tags', headers: bearer(w.key), payload: [] }), 400],
      ['bad field', () => t.inject({ method: 'POST', url: '/api/tags', headers: bearer(w.key), payload: [{ color: 'red', name: 'a' }] }), 400],
      ['missing field', () => t.inject({ method: 'POST', url: '/api/tags', headers: bearer(w.key), payload: [{}] }), 400],
      ['bad query', () => t.inject({ method: 'GET', url: '/api/tags?take=0', headers: bearer(w.key) }), 400],
      ['unknown route', () => t.inject({ method: 'GET', url: '/api/unknown' }), 404],
    ];
    for (const [label, run, status] of cases) {
      const res = await run();
      expect(res.statusCode, `${label}: ${res.body}`).toBe(status);
      const body = res.json<ErrorBody>();
      expect(body.error.en.trim(), label).not.toBe('');
      expect(body.error.ar, label).toMatch(ARABIC);
      expect(body.error.code, label).toMatch(/^[a-z_]+$/);
      expect(
        Object.keys(body).filter((k) => !['error', 'missingScopes', 'retryAfter', 'field', 'reason', 'limit'].includes(k)),
        label,
      ).toEqual([]);
      if (status === 403) expect(body.missingScopes, label).toEqual(['tagsWrite']);
      else expect(body.missingScopes, label).toBeUndefined();
      expect(body.retryAfter, label).toBeUndefined();
    }
    expect(await tagsOf(w.key)).toEqual([]);
  });

  it('names the failing field and rule as data, the same field the message names', async () => {
    const w = await t.workspace();
    const [collection] = (await t.inject({ method: 'POST', url: '/api/collections', headers: bearer(w.key), payload: [{ name: 'c' }] })).json<
      { id: string }[]
    >();
    const cases: [LightMyRequestResponse, string, string][] = [
      [
        await t.inject({ method: 'POST', url: '/api/tags', headers: bearer(w.key), payload: [{ name: 'a' }, { name: 'b', color: 'red' }] }),
        '[1].color',
        'pattern',
      ],
      [await t.inject({ method: 'POST', url: '/api/tags', headers: bearer(w.key), payload: [{ name: 'a' }, {}] }), '[1].name', 'required'],
      [
        await t.inject({
          method: 'POST',
          url: '/api/links',
          headers: bearer(w.key),
          payload: [
            { url: 'https://example.com/', collectionId: collection!.id },
            { url: 'http://example.com/', collectionId: collection!.id },
          ],
        }),
        '[1].url',
        'https_required',
      ],
      [await t.inject({ method: 'GET', url: '/api/tags?take=0', headers: bearer(w.key) }), 'take', 'minimum'],
    ];
    for (const [res, field, reason] of cases) {
      const body = expectError(res, 400) as ErrorBody & { field?: string; reason?: string };
      expect(body.field, res.body).toBe(field);
      expect(body.reason, res.body).toBe(reason);
      expect(body.error.en).toContain(field);
      expect(body.error.ar).toContain(field);
    }
    // Errors about no one field carry none.
    const malformed = expectError(
      await t.inject({ method: 'POST', url: '/api/tags', headers: { ...bearer(w.key), 'content-type': 'application/json' }, payload: '{' }),
      400,
    ) as ErrorBody & { field?: string };
    expect(malformed.field).toBeUndefined();
    expect(await tagsOf(w.key)).toEqual([]);
  });

  it('carries the rate-limit headers on authenticated 400 and 403 answers', async () => {
    const w = await t.workspace();
    const readOnly = (await w.newKey(['tagsRead'])).key;
    const bad = await t.inject({ method: 'GET', url: '/api/tags?sort=up', headers: bearer(w.key) });
    expectError(bad, 400, 'invalid_query');
    expectRateLimitHeaders(bad);
    const forbidden = await t.inject({ method: 'DELETE', url: '/api/tags', headers: bearer(readOnly), payload: [] });
    expectError(forbidden, 403, 'missing_scopes');
    expectRateLimitHeaders(forbidden);
  });
});

/** A database of its own (fresh PGlite, or a new PostgreSQL database), for tests that break it. */
async function freshDatabase(): Promise<{ database: Database; drop: () => Promise<void> }> {
  if (!process.env.DATABASE_URL) return { database: await openPglite('memory://'), drop: async () => undefined };
  const name = `lt_err_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(process.env.DATABASE_URL);
  url.pathname = `/${name}`;
  const database = await openPostgres(url.href, 2);
  return {
    database,
    drop: async () => {
      await database.close().catch(() => undefined);
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

describe('unexpected failures (500)', () => {
  it('answers 500 internal_error with a generic message when a query fails unexpectedly', async () => {
    // An app on a database of its own, whose tables this test then takes away.
    const { database, drop } = await freshDatabase();
    const broken = await startTestApp({ database });
    try {
      const w = await broken.workspace();
      const ok = await broken.inject({ method: 'GET', url: '/api/tags', headers: bearer(w.key) });
      expect(ok.statusCode).toBe(200);

      await database.db.execute(sql`ALTER TABLE tags RENAME TO tags_gone`);
      await database.db.execute(sql`ALTER TABLE workspaces RENAME TO workspaces_gone`);

      const requests = [
        () => broken.inject({ method: 'GET', url: '/api/tags', headers: bearer(w.key) }),
        () => broken.inject({ method: 'POST', url: '/api/tags', headers: bearer(w.key), payload: [{ name: 'x' }] }),
        () => broken.admin('GET', '/workspaces'),
      ];
      for (const request of requests) {
        const res = await request();
        const body = expectError(res, 500, 'internal_error');
        expect(Object.keys(body)).toEqual(['error']);
        expect(Object.keys(body.error).sort()).toEqual(['ar', 'code', 'en']);
        // Nothing of the failure reaches the client: no stack, no SQL, no driver message.
        for (const text of [body.error.en, body.error.ar, res.body]) {
          expect(text).not.toMatch(/select|insert|from\s|relation|tags_gone|api_keys|workspaces|pglite|pool|Error:|\bat\s+\S+\s+\(|\.ts:\d+|node_modules/i);
        }
      }
    } finally {
      await broken.close().catch(() => undefined);
      await drop();
    }
  });

  it('reports not ready once its database is gone', async () => {
    const { database, drop } = await freshDatabase();
    const broken = await startTestApp({ database });
    try {
      expect((await broken.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
      await database.close();
      expect((await broken.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);
      expect((await broken.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await broken.close().catch(() => undefined);
      await drop();
    }
  });
});
