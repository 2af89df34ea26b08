/**
 * A webhook signing secret is shown in two answers only (registration and roll) and never
 * logged, at the most verbose level, not even sealed.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createRuntime, LOG_REDACT, type Runtime } from '../../../src/runtime.js';
import { ADMIN_TOKEN, bearer, testRuntimeOptions, testConfig } from '../../helpers/app.js';
import { endpointRow, NO_DELIVERY, PUBLIC_URL } from './helpers.js';

let lines = '';
let rt: Runtime;

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines += chunk.toString();
      done();
    },
  });
  rt = await createRuntime(testConfig({ ...NO_DELIVERY, LOG_LEVEL: 'trace' }), {
    logger: pino({ level: 'trace', redact: LOG_REDACT }, sink),
    ...testRuntimeOptions(),
  });
  await rt.app.ready();
});
afterAll(() => rt?.close());

it('logs no webhook secret, current, rolled or sealed', async () => {
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const ws = (await rt.app.inject({ method: 'POST', url: '/admin/workspaces', headers: admin, payload: { name: 'log', plan: 'pro' } })).json<{ id: string }>();
  const { key } = (
    await rt.app.inject({
      method: 'POST',
      url: `/admin/workspaces/${ws.id}/keys`,
      headers: admin,
      payload: { name: 'k', scopes: ['webhooksWrite', 'linksRead'] },
    })
  ).json<{ key: string }>();
  const created = await rt.app.inject({ method: 'POST', url: '/api/webhooks', headers: bearer(key), payload: { url: PUBLIC_URL, events: ['link.created'] } });
  expect(created.statusCode, created.body).toBe(201);
  const { id, secret } = created.json<{ id: string; secret: string }>();
  const rolled = (await rt.app.inject({ method: 'POST', url: `/api/webhooks/${id}/secret`, headers: bearer(key) })).json<{ secret: string }>();
  await rt.app.inject({ method: 'POST', url: `/api/webhooks/${id}/test`, headers: bearer(key) });
  await rt.app.inject({ method: 'PATCH', url: `/api/webhooks/${id}`, headers: bearer(key), payload: { url: 'https://localhost/x' } });
  const row = await endpointRow({ database: rt.database } as never, id);

  expect(lines).toContain(`/api/webhooks/${id}/secret`);
  for (const value of [
    secret,
    secret.slice('whsec_'.length),
    rolled.secret,
    rolled.secret.slice('whsec_'.length),
    row.secretSealed,
    row.previousSecretSealed!,
  ]) {
    expect(lines).not.toContain(value);
  }
});
