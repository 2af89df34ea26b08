/**
 * Over a real socket: an alias on an active host, once cached, is answered before the framework
 * (no x-request-id) with the same 302 and click as through Fastify; other hosts as before.
 */
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { within } from '../../helpers/wait.js';
import { activeHostWithLink } from './helpers.js';

let t: TestApp;
let port: number;
beforeAll(async () => {
  t = await startTestApp();
  await t.runtime.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.runtime.app.server.address() as AddressInfo).port;
});
afterAll(() => t?.close());

/** fetch may not set Host: a plain request does. */
const hit = (host: string, path: string, method = 'GET') =>
  new Promise<{ status: number; location?: string; requestId?: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers: { host } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, location: res.headers.location, requestId: res.headers['x-request-id'] as string | undefined }));
    });
    req.on('error', reject);
    req.end();
  });

describe('claimed hosts on the fast path', () => {
  it('a cached alias forwards before the framework, with a click of the link', async () => {
    const { host, link } = await activeHostWithLink(t);
    // HEADs record nothing: repeat until one is answered before the framework (cached).
    expect(await within(5000, async () => (await hit(host, '/spring', 'HEAD')).requestId === undefined, 25)).toBe(true);
    const res = await hit(host, '/spring/?a=1');
    expect(res.status).toBe(302);
    expect(res.requestId).toBeUndefined();
    const clickId = new URL(res.location!).searchParams.get('ltid')!;
    expect(new URL(res.location!).searchParams.get('a')).toBe('1');
    expect(
      await within(
        5000,
        async () => (await rows<{ l: string }>(t.database.db, sql`SELECT link_id AS l FROM clicks WHERE id = ${clickId}::uuid`))[0]?.l === link.id,
      ),
    ).toBe(true);
    // An unknown path of the host goes through the framework to the 404 page.
    const unknown = await hit(host, '/unknown');
    expect(unknown.status).toBe(404);
  });
});
