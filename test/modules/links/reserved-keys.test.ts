/**
 * operations.md §21: on the short-link host a key may not be a path the service serves. The
 * reserved list (src/modules/links/keys.ts) is checked against the app's own route table, so a
 * module that adds a top-level path cannot leave it open to a key.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { routeTable } from '../../../src/http/server.js';
import { isReservedKey, keyOfPath } from '../../../src/modules/links/keys.js';
import { CLAIMED_PREFIX } from '../../../src/modules/redirect/claimed-host-routes.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

it('every first path segment a route serves is reserved for keys (but the redirect’s own)', () => {
  const segments = new Set(routeTable(t.runtime.app).map((r) => r.url.split('/')[1] ?? ''));
  const served = [...segments].filter((s) => s !== '' && !s.startsWith(':') && s !== '*' && `/${s}` !== CLAIMED_PREFIX);
  expect(served.length).toBeGreaterThan(5);
  expect(served.filter((s) => !isReservedKey(s))).toEqual([]);
  expect(served.filter((s) => !isReservedKey(`${s.toUpperCase()}/x`))).toEqual([]);
});

it('keyOfPath: one trailing slash ignored; what cannot be a key is undefined', () => {
  expect(keyOfPath('spring/Sale')).toBe('spring/Sale');
  expect(keyOfPath('spring/')).toBe('spring');
  expect(keyOfPath('')).toBeUndefined();
  expect(keyOfPath('a%20b')).toBeUndefined();
  expect(keyOfPath('x'.repeat(191))).toBeUndefined();
});
