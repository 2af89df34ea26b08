import { expect } from 'vitest';
import { bearer, type TestApp } from './app.js';

/** A fresh workspace of `t` (no practical rate limit) with one collection, and a JSON client for it. */
export async function workspaceWithCollection(t: TestApp) {
  const ws = await t.workspace({ rateLimitPerMinute: 1_000_000 });
  const send = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: unknown, key = ws.key) =>
    t.inject({
      method,
      url,
      headers: { ...bearer(key), 'content-type': 'application/json' },
      payload: body === undefined ? undefined : JSON.stringify(body),
    });
  const col = await send('POST', '/api/collections', [{ name: 'Campaigns' }]);
  expect(col.statusCode, col.body).toBe(201);
  const collectionId = col.json<{ id: string }[]>()[0]!.id;
  return { ws, send, collectionId };
}
