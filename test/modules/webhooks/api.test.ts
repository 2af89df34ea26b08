/**
 * The webhook endpoints API (operations.md §11) through HTTP: register, list, read, change,
 * delete, roll the secret, send a test, recover and retry, with the rows they leave behind.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sealer } from '../../../src/core/sealed.js';
import { rows } from '../../../src/db/connect.js';
import { SECRET, startTestApp, type TestApp, type WorkspaceFixture } from '../../helpers/app.js';
import { expectError, mutableClock, ownedWorkspace, asSession, signedInMember } from '../people/helpers.js';
import { call, deliveryRow, endpointRow, NO_DELIVERY, PUBLIC_URL, register, seedDelivery, type WebhookAnswer } from './helpers.js';

const clock = mutableClock(new Date('2026-11-24T12:00:00Z'));

/**
 * Due now by the database's clock, which delivery reads — not by the app's (days behind here;
 * an instance whose clock ran ahead would otherwise park a retried delivery in its future).
 */
function expectDueNow(nextAttemptAt: string | null, before: number): void {
  const at = Date.parse(nextAttemptAt ?? '');
  expect(at).toBeGreaterThanOrEqual(before - 1000);
  expect(at).toBeLessThanOrEqual(Date.now() + 1000);
}
const sealer = new Sealer(SECRET);
const SECRET_RE = /^whsec_[A-Za-z0-9+/]{43}=$/;
let t: TestApp;
let ws: WorkspaceFixture;

beforeAll(async () => {
  t = await startTestApp({ clock: clock.now, env: NO_DELIVERY });
  ws = await t.workspace();
});
afterAll(() => t?.close());

describe('registering an endpoint', () => {
  it('answers 201 with the endpoint and its secret, sealed in the database, shown only then', async () => {
    const keyId = (await t.admin('GET', `/workspaces/${ws.id}/keys`)).json<{ id: string }[]>()[0]!.id;
    const res = await call(t, ws.key, 'POST', '/api/webhooks', { url: PUBLIC_URL, events: ['link.created', 'link.clicked'], description: 'CRM sync' });
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json<WebhookAnswer>();
    expect(created).toEqual({
      id: expect.any(String),
      url: PUBLIC_URL,
      events: ['link.created', 'link.clicked'],
      description: 'CRM sync',
      disabled: false,
      disabledReason: null,
      failingSince: null,
      createdBy: { type: 'key', id: keyId },
      secret: expect.stringMatching(SECRET_RE),
      createdAt: '2026-11-24T12:00:00.000Z',
      updatedAt: '2026-11-24T12:00:00.000Z',
    });
    expect(Buffer.from(created.secret!.slice('whsec_'.length), 'base64')).toHaveLength(32);
    const row = await endpointRow(t, created.id);
    expect(row.secretSealed).not.toContain(created.secret!.slice(6));
    expect(sealer.open('webhook-secret', row.secretSealed)).toBe(created.secret);
    expect(row.oauthGrantId).toBeNull();

    const read = await call(t, ws.key, 'GET', `/api/webhooks/${created.id}`);
    expect(read.statusCode).toBe(200);
    const { secret: _secret, ...shown } = created;
    expect(read.json()).toEqual(shown);
    const listed = await call(t, ws.key, 'GET', '/api/webhooks');
    expect(listed.body).not.toContain(created.secret!);
    expect(listed.json<WebhookAnswer[]>().find((w) => w.id === created.id)).toEqual(shown);
  });

  it('lists newest first with the common list parameters', async () => {
    const w = await t.workspace();
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      clock.advance(1000);
      made.push((await register(t, w.key, { description: `n${i}` })).id);
    }
    const list = (q = '') => call(t, w.key, 'GET', `/api/webhooks${q}`).then((r) => r.json<WebhookAnswer[]>().map((x) => x.id));
    expect(await list()).toEqual([...made].reverse());
    expect(await list('?sort=asc')).toEqual(made);
    expect(await list('?take=1&skip=1')).toEqual([made[1]]);
    expect(await list(`?id=${made[0]}`)).toEqual([made[0]]);
    expectError(await call(t, w.key, 'GET', '/api/webhooks?take=0'), 400, 'invalid_query', 'take');
  });

  it('a session acts in the workspace it names: the owner may, a viewer may not', async () => {
    const { workspace, owner } = await ownedWorkspace(t);
    const res = await asSession(t, owner.cookie, 'POST', '/api/webhooks', { url: PUBLIC_URL, events: ['sale.created'] }, { workspaceId: workspace.id });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json<WebhookAnswer>().createdBy).toEqual({ type: 'user', id: owner.user.id });
    expect((await asSession(t, owner.cookie, 'GET', '/api/webhooks', undefined, { workspaceId: workspace.id })).statusCode).toBe(200);
    expectError(await asSession(t, owner.cookie, 'GET', '/api/webhooks'), 400, 'workspace_required');
    const viewer = await signedInMember(t, workspace.id, 'viewer');
    const denied = await asSession(t, viewer.cookie, 'GET', '/api/webhooks', undefined, { workspaceId: workspace.id });
    expectError(denied, 403, 'missing_scopes');
    expect(denied.json<{ missingScopes: string[] }>().missingScopes).toEqual(['webhooksRead']);
  });
});

describe('changing and deleting', () => {
  it('PATCH changes url, events and description; disabling records why, enabling forgets the failing state', async () => {
    const w = await register(t, ws.key, { events: ['link.created'] });
    clock.advance(1000);
    const patched = await call(t, ws.key, 'PATCH', `/api/webhooks/${w.id}`, {
      url: 'https://93.184.215.15/other',
      events: ['link.updated', 'link.deleted'],
      description: null,
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({ url: 'https://93.184.215.15/other', events: ['link.updated', 'link.deleted'], description: null, disabled: false });
    expect(patched.json<WebhookAnswer>().updatedAt).not.toBe(w.updatedAt);
    expect(patched.body).not.toContain('whsec_');

    const off = await call(t, ws.key, 'PATCH', `/api/webhooks/${w.id}`, { disabled: true });
    expect(off.json()).toMatchObject({ disabled: true, disabledReason: 'manual' });
    // The worker marked it failing, then disabled it for that.
    await t.database.db.execute(
      sql`UPDATE webhook_endpoints SET disabled_reason = 'failing', failing_since = now() - interval '5 days' WHERE id = ${w.id}::uuid`,
    );
    expect((await call(t, ws.key, 'GET', `/api/webhooks/${w.id}`)).json()).toMatchObject({
      disabled: true,
      disabledReason: 'failing',
      failingSince: expect.any(String),
    });
    const on = await call(t, ws.key, 'PATCH', `/api/webhooks/${w.id}`, { disabled: false });
    expect(on.json()).toMatchObject({ disabled: false, disabledReason: null, failingSince: null });
    expect(await endpointRow(t, w.id)).toMatchObject({ disabled: false, disabledReason: null, failingSince: null });
  });

  it('PATCH with nothing to change is a 400', async () => {
    const w = await register(t, ws.key);
    expectError(await call(t, ws.key, 'PATCH', `/api/webhooks/${w.id}`, {}), 400, 'invalid_field');
  });

  it('DELETE answers deletedIds and soft-deletes: gone from every route, the row kept', async () => {
    const w = await register(t, ws.key);
    const res = await call(t, ws.key, 'DELETE', `/api/webhooks/${w.id}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ deletedIds: [w.id] });
    expect((await endpointRow(t, w.id)).deletedAt).not.toBeNull();
    expectError(await call(t, ws.key, 'GET', `/api/webhooks/${w.id}`), 404, 'not_found');
    expectError(await call(t, ws.key, 'DELETE', `/api/webhooks/${w.id}`), 404, 'not_found');
    expect((await call(t, ws.key, 'GET', '/api/webhooks')).json<WebhookAnswer[]>().map((x) => x.id)).not.toContain(w.id);
  });
});

describe('the secret', () => {
  it('a roll shows a new secret once; the old one keeps signing for 24 hours (sealed beside it)', async () => {
    const w = await register(t, ws.key);
    const res = await call(t, ws.key, 'POST', `/api/webhooks/${w.id}/secret`);
    expect(res.statusCode, res.body).toBe(200);
    const rolled = res.json<{ secret: string; previousSecretExpiresAt: string }>();
    expect(rolled.secret).toMatch(SECRET_RE);
    expect(rolled.secret).not.toBe(w.secret);
    expect(rolled.previousSecretExpiresAt).toBe(new Date(clock.now().getTime() + 24 * 3600_000).toISOString());
    const row = await endpointRow(t, w.id);
    expect(sealer.open('webhook-secret', row.secretSealed)).toBe(rolled.secret);
    expect(sealer.open('webhook-secret', row.previousSecretSealed!)).toBe(w.secret);
    expect(row.previousSecretUntil).toBe(rolled.previousSecretExpiresAt);
    expect((await call(t, ws.key, 'GET', `/api/webhooks/${w.id}`)).body).not.toContain('whsec_');
  });
});

describe('test, deliveries, recover and retry', () => {
  it('test answers 202 and queues a webhook.test event for that endpoint only', async () => {
    const a = await register(t, ws.key, { events: ['link.created'] });
    const b = await register(t, ws.key, { events: ['link.created'] });
    const res = await call(t, ws.key, 'POST', `/api/webhooks/${a.id}/test`);
    expect(res.statusCode, res.body).toBe(202);
    const { eventId } = res.json<{ eventId: string }>();
    const queued = await rows<{ endpointId: string; status: string; type: string; body: string; due: boolean }>(
      t.database.db,
      sql`SELECT d.endpoint_id AS "endpointId", d.status, e.type, e.body, d.next_attempt_at <= now() AS due
          FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id WHERE d.event_id = ${eventId}::uuid`,
    );
    expect(queued).toEqual([{ endpointId: a.id, status: 'pending', type: 'webhook.test', body: expect.any(String), due: true }]);
    expect(JSON.parse(queued[0]!.body)).toEqual({ type: 'webhook.test', timestamp: clock.now().toISOString(), data: { webhookId: a.id } });
    const log = (await call(t, ws.key, 'GET', `/api/webhooks/${a.id}/deliveries`)).json<{ eventId: string; eventType: string; status: string }[]>();
    expect(log[0]).toMatchObject({ eventId, eventType: 'webhook.test', status: 'pending' });
    expect((await call(t, ws.key, 'GET', `/api/webhooks/${b.id}/deliveries`)).json()).toEqual([]);
  });

  it('a disabled endpoint gets no test (400)', async () => {
    const w = await register(t, ws.key);
    await call(t, ws.key, 'PATCH', `/api/webhooks/${w.id}`, { disabled: true });
    expectError(await call(t, ws.key, 'POST', `/api/webhooks/${w.id}/test`), 400, 'webhook_disabled');
  });

  it('the delivery log shows each delivery, newest first, with its latest attempt', async () => {
    const w = await register(t, ws.key);
    const now = clock.now().getTime();
    const older = await seedDelivery(t, { workspaceId: ws.id, endpointId: w.id, status: 'failed', createdAt: new Date(now - 3600_000), statusCode: 500 });
    const newer = await seedDelivery(t, {
      workspaceId: ws.id,
      endpointId: w.id,
      status: 'succeeded',
      createdAt: new Date(now - 60_000),
      attempts: 1,
      statusCode: 204,
    });
    const res = await call(t, ws.key, 'GET', `/api/webhooks/${w.id}/deliveries`);
    expect(res.statusCode, res.body).toBe(200);
    const log = res.json<Record<string, unknown>[]>();
    expect(log.map((d) => d.id)).toEqual([newer.deliveryId, older.deliveryId]);
    expect(log[1]).toEqual({
      id: older.deliveryId,
      eventId: older.eventId,
      eventType: 'link.created',
      status: 'failed',
      attempts: 8,
      statusCode: 500,
      error: null,
      durationMs: 120,
      response: 'nope',
      nextAttemptAt: null,
      lastAttemptAt: new Date(now - 3600_000).toISOString(),
      createdAt: new Date(now - 3600_000).toISOString(),
    });
    expect((await call(t, ws.key, 'GET', `/api/webhooks/${w.id}/deliveries?sort=asc&take=1`)).json<{ id: string }[]>().map((d) => d.id)).toEqual([
      older.deliveryId,
    ]);
  });

  it('recover puts every failed delivery since `since` back to pending, due now; nothing else', async () => {
    const w = await register(t, ws.key);
    const other = await register(t, ws.key);
    const now = clock.now().getTime();
    const hour = 3600_000;
    const inRange = await seedDelivery(t, { workspaceId: ws.id, endpointId: w.id, status: 'failed', createdAt: new Date(now - 2 * hour), error: 'timeout' });
    const inRange2 = await seedDelivery(t, { workspaceId: ws.id, endpointId: w.id, status: 'failed', createdAt: new Date(now - hour), statusCode: 500 });
    const tooOld = await seedDelivery(t, { workspaceId: ws.id, endpointId: w.id, status: 'failed', createdAt: new Date(now - 5 * hour) });
    const succeeded = await seedDelivery(t, { workspaceId: ws.id, endpointId: w.id, status: 'succeeded', createdAt: new Date(now - hour) });
    const elsewhere = await seedDelivery(t, { workspaceId: ws.id, endpointId: other.id, status: 'failed', createdAt: new Date(now - hour) });
    const before = Date.now();
    const res = await call(t, ws.key, 'POST', `/api/webhooks/${w.id}/recover`, { since: new Date(now - 3 * hour).toISOString() });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toEqual({ requeued: 2 });
    for (const d of [inRange, inRange2]) {
      const row = await deliveryRow(t, d.deliveryId);
      expect(row).toMatchObject({ status: 'pending', attempts: 8 });
      expectDueNow(row.nextAttemptAt, before);
    }
    expect((await deliveryRow(t, tooOld.deliveryId)).status).toBe('failed');
    expect((await deliveryRow(t, succeeded.deliveryId)).status).toBe('succeeded');
    expect((await deliveryRow(t, elsewhere.deliveryId)).status).toBe('failed');
  });

  it('recover refuses a `since` in the future or more than 30 days back', async () => {
    const w = await register(t, ws.key);
    const now = clock.now().getTime();
    const recover = (since: unknown) => call(t, ws.key, 'POST', `/api/webhooks/${w.id}/recover`, { since });
    expectError(await recover(new Date(now + 60_000).toISOString()), 400, 'invalid_field', 'since');
    expectError(await recover(new Date(now - 31 * 86_400_000).toISOString()), 400, 'invalid_field', 'since');
    expectError(await recover('yesterday'), 400, 'invalid_field', 'since');
    expectError(await recover(undefined), 400, 'invalid_field', 'since');
    expect((await recover(new Date(now - 29 * 86_400_000).toISOString())).statusCode).toBe(202);
  });

  it('retry puts one delivery back to pending, due now', async () => {
    const w = await register(t, ws.key);
    const d = await seedDelivery(t, {
      workspaceId: ws.id,
      endpointId: w.id,
      status: 'failed',
      createdAt: new Date(clock.now().getTime() - 60_000),
      statusCode: 503,
    });
    const before = Date.now();
    const res = await call(t, ws.key, 'POST', `/api/webhooks/${w.id}/deliveries/${d.deliveryId}/retry`);
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toMatchObject({ id: d.deliveryId, status: 'pending' });
    expectDueNow(res.json<{ nextAttemptAt: string }>().nextAttemptAt, before);
    expect(await deliveryRow(t, d.deliveryId)).toMatchObject({ status: 'pending', nextAttemptAt: res.json<{ nextAttemptAt: string }>().nextAttemptAt });
    // Another endpoint's delivery is not this endpoint's.
    const other = await register(t, ws.key);
    expectError(await call(t, ws.key, 'POST', `/api/webhooks/${other.id}/deliveries/${d.deliveryId}/retry`), 404, 'not_found');
    expectError(await call(t, ws.key, 'POST', `/api/webhooks/${w.id}/deliveries/${randomUUID()}/retry`), 404, 'not_found');
  });
});

describe('another workspace', () => {
  it("answers 404 on every route for another workspace's endpoint, and its list does not show it", async () => {
    const mine = await register(t, ws.key);
    const d = await seedDelivery(t, { workspaceId: ws.id, endpointId: mine.id, status: 'failed', createdAt: clock.now() });
    const them = await t.workspace();
    const since = { since: new Date(clock.now().getTime() - 60_000).toISOString() };
    const attempts: [Parameters<typeof call>[2], string, unknown?][] = [
      ['GET', `/api/webhooks/${mine.id}`],
      ['PATCH', `/api/webhooks/${mine.id}`, { description: 'x' }],
      ['DELETE', `/api/webhooks/${mine.id}`],
      ['POST', `/api/webhooks/${mine.id}/secret`],
      ['POST', `/api/webhooks/${mine.id}/test`],
      ['POST', `/api/webhooks/${mine.id}/recover`, since],
      ['GET', `/api/webhooks/${mine.id}/deliveries`],
      ['POST', `/api/webhooks/${mine.id}/deliveries/${d.deliveryId}/retry`],
    ];
    for (const [method, url, body] of attempts) expectError(await call(t, them.key, method, url, body), 404, 'not_found');
    expect((await call(t, them.key, 'GET', '/api/webhooks')).json()).toEqual([]);
    // Nothing changed.
    expect(await endpointRow(t, mine.id)).toMatchObject({ deletedAt: null, previousSecretSealed: null });
    expect((await deliveryRow(t, d.deliveryId)).status).toBe('failed');
  });
});
