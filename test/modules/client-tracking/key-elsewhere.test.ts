/**
 * operations.md §19: a publishable key calls only the three browser-tracking operations;
 * anywhere else an `lt_pk_` value is a 401 — every operation of the OpenAPI document, the public
 * ones included, in either header, from an allowed page or not.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { trackedSite } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

const OWN = new Set(['post /api/track/click', 'post /api/track/lead/client', 'post /api/track/sale/client']);

test('every other operation of the document answers an lt_pk_ credential 401', async () => {
  const s = await trackedSite(t, { program: false });
  const doc = (await t.inject({ method: 'GET', url: '/api/openapi.json' })).json<{ paths: Record<string, Record<string, unknown>> }>();
  const ops = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.keys(methods)
      .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
      .map((m) => ({ method: m, path })),
  );
  expect(ops.length).toBeGreaterThan(100);
  const failures: string[] = [];
  let own = 0;
  for (const { method, path } of ops) {
    if (OWN.has(`${method} ${path}`)) {
      own++;
      continue;
    }
    const url = path.replace(/\{[^}]+\}/g, () => randomUUID());
    for (const headers of [{ authorization: `Bearer ${s.key}` }, { 'x-api-key': s.key }]) {
      const res = await t.inject({
        method: method.toUpperCase() as 'GET',
        url,
        headers: { ...headers, origin: 'https://shop.example', 'content-type': 'application/json', 'x-workspace-id': s.ws.id },
        payload: method === 'get' || method === 'delete' ? undefined : '{}',
      });
      if (res.statusCode !== 401) failures.push(`${method.toUpperCase()} ${path}: ${res.statusCode} ${res.body.slice(0, 120)}`);
    }
  }
  expect(own).toBe(3);
  expect(failures).toEqual([]);
});
