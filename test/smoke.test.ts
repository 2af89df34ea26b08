import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

test('healthz answers', async () => {
  const res = await t.inject({ method: 'GET', url: '/healthz' });
  expect(res.statusCode).toBe(200);
  const ws = await t.workspace();
  expect(ws.key).toMatch(/^lt_/);
});
