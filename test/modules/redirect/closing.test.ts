/**
 * Shutdown while keep-alive visitors keep following a cached short link: the fast path hands
 * every request to Fastify once closing has begun (503, `Connection: close`), so the server
 * finishes closing instead of serving the same connections forever, and every 302 a visitor
 * received is a click.
 */
import { Agent, get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { expect, test } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { bearer, startTestApp } from '../../helpers/app.js';
import { answered, sleep, within } from '../../helpers/wait.js';

test('close() completes under keep-alive load on the fast path, with every received redirect recorded', async () => {
  const t = await startTestApp();
  await t.runtime.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(t.runtime.app.server.address() as AddressInfo).port}`;
  const ws = await t.workspace();
  const collectionId = (await t.inject({ method: 'POST', url: '/api/collections', headers: bearer(ws.key), payload: [{ name: 'c' }] })).json()[0].id;
  const created = await t.inject({ method: 'POST', url: '/api/links', headers: bearer(ws.key), payload: [{ url: 'https://dest.example/', collectionId }] });
  const link = created.json()[0] as { id: string; shortUrl: string };
  const path = new URL(link.shortUrl).pathname;

  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const visit = () =>
    new Promise<{ status: number; location: string | undefined }>((resolve, reject) => {
      const req = get(base + path, { agent }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, location: res.headers.location }));
      });
      req.on('error', reject);
    });
  const received: string[] = [];
  const statuses = new Set<number>();
  let stop = false;
  const visitor = async () => {
    while (!stop) {
      try {
        const res = await visit();
        statuses.add(res.status);
        if (res.status === 302) received.push(new URL(res.location!).searchParams.get('ltid')!);
      } catch {
        await sleep(5); // refused once the server has closed
      }
    }
  };
  const visitors = Array.from({ length: 8 }, visitor);
  // Under way: as many redirects received as there are visitors on keep-alive connections.
  expect(await within(10_000, async () => received.length >= 8, 5)).toBe(true);

  // Before the fix, close() waited for connections that never went idle.
  await answered('runtime.close() under keep-alive load', 20_000, t.runtime.app.close());
  stop = true;
  await Promise.all(visitors);
  agent.destroy();
  expect([...statuses].filter((s) => s !== 302 && s !== 503)).toEqual([]);

  // Clicks are written within about a second; then the rest of the runtime closes.
  const missing = async () => {
    const stored = new Set((await rows<{ id: string }>(t.database.db, sql`select id from clicks where link_id = ${link.id}`)).map((r) => r.id));
    return received.filter((id) => !stored.has(id));
  };
  expect(await within(10_000, async () => (await missing()).length === 0)).toBe(true);
  await t.runtime.close();
});
