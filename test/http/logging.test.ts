import { Writable } from 'node:stream';
import type { InjectOptions } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createRuntime, LOG_REDACT, type Runtime } from '../../src/runtime.js';
import { ADMIN_TOKEN, bearer, testConfig } from '../helpers/app.js';

let lines = '';
let rt: Runtime;

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines += chunk.toString();
      done();
    },
  });
  // Everything the service logs, at the most verbose level, goes into `lines`.
  const logger = pino({ level: 'trace', redact: LOG_REDACT }, sink);
  rt = await createRuntime(testConfig({ LOG_LEVEL: 'trace' }), { logger });
  await rt.app.ready();
});
afterAll(() => rt.close());

const inject = (o: InjectOptions) => rt.app.inject(o);

describe('logs', () => {
  test('carry a request id and the workspace id, and never a key, the operator token or a link password', async () => {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const ws = (await inject({ method: 'POST', url: '/admin/workspaces', headers: admin, payload: { name: 'log', plan: 'pro' } })).json();
    const { key } = (
      await inject({ method: 'POST', url: `/admin/workspaces/${ws.id}/keys`, headers: admin, payload: { name: 'k', scopes: ['linksWrite', 'collectionsWrite', 'tagsRead'] } })
    ).json();
    const [collection] = (await inject({ method: 'POST', url: '/api/collections', headers: bearer(key), payload: [{ name: 'c' }] })).json();
    const password = 'correct-horse-battery-staple';
    const [link] = (
      await inject({ method: 'POST', url: '/api/links', headers: bearer(key), payload: [{ url: 'https://example.com/', collectionId: collection.id, password }] })
    ).json();
    await inject({ method: 'GET', url: '/api/tags', headers: { 'x-api-key': key } });
    await inject({ method: 'GET', url: '/api/tags', headers: { authorization: key, 'x-api-key': `${key}x` } });
    await inject({ method: 'GET', url: '/api/links', headers: bearer(key) }); // 403: lacks linksRead
    const path = new URL(link.shortUrl).pathname;
    await inject({ method: 'POST', url: path, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `password=${password}` });
    await inject({ method: 'POST', url: path, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'password=wrong-guess-123' });

    expect(lines.length).toBeGreaterThan(0);
    expect(lines).not.toContain(key);
    expect(lines).not.toContain(key.slice(3)); // not even without its prefix
    expect(lines).not.toContain(ADMIN_TOKEN);
    expect(lines).not.toContain(password);
    expect(lines).not.toContain('wrong-guess-123');
    const completed = lines
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((l) => l.msg === 'request completed' && l.url === '/api/tags');
    expect(completed.length).toBeGreaterThan(0);
    for (const l of completed) expect(l.reqId).toBeTruthy();
    expect(completed.some((l) => l.workspaceId === ws.id)).toBe(true);
  });
});
