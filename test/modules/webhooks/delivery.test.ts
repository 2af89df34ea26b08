/**
 * Webhook delivery (operations.md §11) end to end: events written through the outbox reach a
 * real receiver started here, signed so the standardwebhooks library verifies them; retries,
 * Retry-After, 410 and the 5-day rule; the housekeeping. The worker runs in the app, on a
 * database of this file's own (so no other test's app claims these deliveries).
 */
import { sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it, vi } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { newId } from '../../../src/db/ids.js';
import { keepWebhookDeliveries } from '../../../src/modules/webhooks/delivery.js';
import { eventBody, recordEvents } from '../../../src/modules/webhooks/outbox.js';
import { clickOutboxCtes } from '../../../src/modules/webhooks/store-outbox.js';
import { Sealer } from '../../../src/core/sealed.js';
import { SECRET } from '../../helpers/app.js';
import { within } from '../../helpers/wait.js';
import { useDeliveryApp } from './delivery-app.js';
import { deliveriesOf, emit, endpointRow, newSecret, seedEndpoint } from './receiver.js';

const app = useDeliveryApp('100ms,100ms,100ms,5s');
const { db, receiver } = app;

async function until(what: string, check: () => Promise<boolean> | boolean, ms = 15_000): Promise<void> {
  expect(await within(ms, async () => check()), what).toBe(true);
}

describe('webhook delivery', () => {
  it('sends the event body exactly, with the Standard Webhooks headers, verified by the library', async () => {
    const r = await receiver({ tls: true });
    const { id, secret } = await seedEndpoint(db(), app.ws, r.url);
    r.secrets = [secret];
    const [eventId] = await emit(db(), app.ws);
    app.t.runtime.wakeWebhooks();
    await until('delivered', () => r.received.length === 1);
    const got = r.received[0]!;
    const [stored] = await rows<{ body: string }>(db(), sql`SELECT body FROM webhook_events WHERE id = ${eventId}::uuid`);
    expect(got.body).toBe(stored!.body);
    expect(got.verified).toEqual([secret]);
    expect(new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).toEqual(JSON.parse(stored!.body));
    expect(got.headers['webhook-id']).toBe(eventId);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['user-agent']).toMatch(/^Linktrail-Webhooks\//);
    expect(Math.abs(got.timestamp - Date.now() / 1000)).toBeLessThan(60);
    // Another secret does not verify it.
    expect(() => new Webhook(newSecret()).verify(got.body, got.headers as Record<string, string>)).toThrow();
    await until('recorded', async () => (await deliveriesOf(db(), id))[0]?.status === 'succeeded');
    const [row] = await deliveriesOf(db(), id);
    expect(row).toMatchObject({ status: 'succeeded', attempts: 1, lastStatusCode: 200, lastError: null, lastResponse: 'ok', nextAttemptAt: null });
  });

  it("sends a link.clicked event, stored without a body, as its click's record; one whose click is gone fails without an attempt", async () => {
    const r = await receiver();
    const { id, secret } = await seedEndpoint(db(), app.ws, r.url, { events: ['link.clicked'] });
    r.secrets = [secret];
    const click = { id: newId(), linkId: newId(), createdAt: new Date(Date.now() - 60_000).toISOString() };
    await db()
      .execute(sql`INSERT INTO clicks (id, workspace_id, link_id, created_at, country, device, browser, os, referrer, referrer_url, bot, utm_source, trigger)
      VALUES (${click.id}::uuid, ${app.ws}::uuid, ${click.linkId}::uuid, ${click.createdAt}::timestamptz, 'GB', 'mobile', 'Safari', 'iOS',
        'news.example', 'https://news.example/a', false, 'newsletter', 'qr')`);
    const gone = { id: newId(), workspaceId: app.ws, createdAt: click.createdAt };
    await db().execute(sql`WITH ${clickOutboxCtes([{ id: click.id, workspaceId: app.ws, createdAt: click.createdAt }, gone])} SELECT count(*) FROM queued`);
    const [stored] = await rows<{ body: string | null }>(db(), sql`SELECT body FROM webhook_events WHERE id = ${click.id}::uuid`);
    expect(stored!.body).toBeNull();
    app.t.runtime.wakeWebhooks();
    await until('delivered', () => r.received.length === 1);
    const got = r.received[0]!;
    expect(got.verified).toEqual([secret]);
    expect(got.headers['webhook-id']).toBe(click.id);
    expect(new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).toEqual({
      type: 'link.clicked',
      timestamp: click.createdAt,
      data: {
        id: click.id,
        linkId: click.linkId,
        partnerId: null,
        createdAt: click.createdAt,
        country: 'GB',
        device: 'mobile',
        browser: 'Safari',
        os: 'iOS',
        referrer: 'news.example',
        referrerUrl: 'https://news.example/a',
        utmSource: 'newsletter',
        utmMedium: null,
        utmCampaign: null,
        utmTerm: null,
        utmContent: null,
        trigger: 'qr',
      },
    });
    await until('both recorded', async () => (await deliveriesOf(db(), id)).every((d) => d.status !== 'pending'));
    const byEvent = new Map((await deliveriesOf(db(), id)).map((d) => [d.eventId, d]));
    expect(byEvent.get(click.id)).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(byEvent.get(gone.id)).toMatchObject({ status: 'failed', lastStatusCode: null, lastError: expect.stringMatching(/no longer stored/) });
    expect(r.received).toHaveLength(1);
  });

  it('sends a sealed event body (a link with a password) opened, exactly as it was sealed', async () => {
    const r = await receiver();
    const { secret } = await seedEndpoint(db(), app.ws, r.url);
    r.secrets = [secret];
    const body = eventBody('link.created', new Date(), { id: 'lnk_sealed', password: 'open sesame 7f3a' });
    const id = newId();
    await recordEvents({
      ctx: { db: db() },
      input: { events: [{ id, workspaceId: app.ws, type: 'link.created', bodySealed: new Sealer(SECRET).seal('webhook-body', body) }] },
    });
    app.t.runtime.wakeWebhooks();
    await until('delivered', () => r.received.length === 1);
    expect(r.received[0]!.body).toBe(body);
    expect(r.received[0]!.verified).toEqual([secret]);
    expect(r.received[0]!.headers['webhook-id']).toBe(id);
  });

  it("rejects a replay once its timestamp is stale (the library's 5 minutes)", async () => {
    const r = await receiver();
    const { secret } = await seedEndpoint(db(), app.ws, r.url);
    await emit(db(), app.ws);
    app.t.runtime.wakeWebhooks();
    await until('delivered', () => r.received.length === 1);
    const { body, headers } = r.received[0]!;
    expect(() => new Webhook(secret).verify(body, headers as Record<string, string>)).not.toThrow();
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 6 * 60_000);
      expect(() => new Webhook(secret).verify(body, headers as Record<string, string>)).toThrow(/too old/);
    } finally {
      vi.useRealTimers();
    }
  });

  it('signs with both secrets during a roll, and with the new one alone once the roll is over', async () => {
    const r = await receiver();
    const [fresh, old] = [newSecret(), newSecret()];
    r.secrets = [fresh, old];
    await seedEndpoint(db(), app.ws, r.url, { secret: fresh, previousSecret: old, previousUntil: new Date(Date.now() + 3_600_000) });
    await emit(db(), app.ws);
    app.t.runtime.wakeWebhooks();
    await until('delivered during the roll', () => r.received.length === 1);
    expect(r.received[0]!.verified).toEqual([fresh, old]);
    expect(String(r.received[0]!.headers['webhook-signature']).split(' ')).toHaveLength(2);

    const after = await receiver();
    after.secrets = [fresh, old];
    await seedEndpoint(db(), app.ws, after.url, { secret: fresh, previousSecret: old, previousUntil: new Date(Date.now() - 1000) });
    await emit(db(), app.ws);
    app.t.runtime.wakeWebhooks();
    await until('delivered after the roll', () => after.received.length === 1);
    expect(after.received[0]!.verified).toEqual([fresh]);
  });

  it('retries a failure, signing the retry anew; Retry-After on a 503 is honoured when longer', async () => {
    let calls = 0;
    const r = await receiver({
      answer: (_req, res) => {
        calls++;
        if (calls === 1) res.writeHead(500).end('boom');
        else if (calls === 2) res.writeHead(503, { 'retry-after': '2' }).end('busy');
        else res.end('ok');
      },
    });
    const { id, secret } = await seedEndpoint(db(), app.ws, r.url);
    r.secrets = [secret];
    const [eventId] = await emit(db(), app.ws);
    app.t.runtime.wakeWebhooks();
    await until('delivered on the third attempt', () => r.received.length === 3);
    expect(r.received.map((x) => x.id)).toEqual([eventId, eventId, eventId]);
    expect(r.received.every((x) => x.verified.length === 1)).toBe(true);
    // The 503 asked for 2 s where the schedule says 100 ms: the third attempt is signed at least 2 s later.
    expect(r.received[2]!.timestamp - r.received[1]!.timestamp).toBeGreaterThanOrEqual(2);
    expect(r.received[2]!.headers['webhook-signature']).not.toBe(r.received[1]!.headers['webhook-signature']);
    await until('recorded', async () => (await deliveriesOf(db(), id))[0]?.status === 'succeeded');
    expect((await deliveriesOf(db(), id))[0]).toMatchObject({ attempts: 3, lastStatusCode: 200 });
    expect((await endpointRow(db(), id)).failingSince).toBeNull();
  });

  it('fails a delivery once the schedule is used up, and records the last answer (3xx included, never followed)', async () => {
    const target = await receiver();
    const r = await receiver({ answer: (_req, res) => res.writeHead(302, { location: target.url }).end('moved') });
    const { id } = await seedEndpoint(db(), app.ws, r.url);
    await emit(db(), app.ws);
    app.t.runtime.wakeWebhooks();
    // 1 attempt + 4 retries (100ms, 100ms, 100ms, 5s).
    await until('failed', async () => (await deliveriesOf(db(), id))[0]?.status === 'failed', 20_000);
    expect((await deliveriesOf(db(), id))[0]).toMatchObject({ attempts: 5, lastStatusCode: 302, lastResponse: 'moved', nextAttemptAt: null });
    expect(r.received).toHaveLength(5);
    expect(target.received).toHaveLength(0);
    const ep = await endpointRow(db(), id);
    expect(ep.failingSince).not.toBeNull();
    expect(ep.disabled).toBe(false);
  });

  it('disables the endpoint at once on 410 Gone; its waiting deliveries are failed, never attempted', async () => {
    const r = await receiver({ answer: (_req, res) => res.writeHead(410).end('gone') });
    const { id } = await seedEndpoint(db(), app.ws, r.url);
    await emit(db(), app.ws);
    app.t.runtime.wakeWebhooks();
    await until('disabled', async () => (await endpointRow(db(), id)).disabled);
    const ep = await endpointRow(db(), id);
    expect(ep).toMatchObject({ disabled: true, disabledReason: 'gone' });
    expect(ep.disabledAt).not.toBeNull();
    expect((await deliveriesOf(db(), id))[0]).toMatchObject({ status: 'failed', attempts: 1, lastStatusCode: 410 });
    // A delivery queued before it was disabled (written straight, as the outbox did then).
    await db().execute(sql`INSERT INTO webhook_events (id, workspace_id, type, body) VALUES (gen_random_uuid(), ${app.ws}::uuid, 'link.created', '{}')`);
    await db().execute(sql`INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, next_attempt_at)
      SELECT gen_random_uuid(), ${app.ws}::uuid, ${id}::uuid, id, now() FROM webhook_events WHERE body = '{}' AND workspace_id = ${app.ws}::uuid`);
    app.t.runtime.wakeWebhooks();
    const report = await keepWebhookDeliveries({ ctx: { db: db() } });
    expect(report.failedForDisabledEndpoints).toBe(1);
    const after = await deliveriesOf(db(), id);
    expect(after.map((d) => d.status).sort()).toEqual(['failed', 'failed']);
    expect(after.find((d) => d.attempts === 0)?.lastError).toBe('endpoint disabled');
    expect(r.received).toHaveLength(1);
  });

  it('disables an endpoint whose deliveries have all failed for 5 days; a success clears the count', async () => {
    const failing = await receiver({ answer: (_req, res) => res.writeHead(500).end('down') });
    const old = await seedEndpoint(db(), app.ws, failing.url);
    const recent = await seedEndpoint(db(), app.ws, failing.url);
    await db().execute(sql`UPDATE webhook_endpoints SET failing_since = now() - interval '5 days 1 minute' WHERE id = ${old.id}::uuid`);
    await db().execute(sql`UPDATE webhook_endpoints SET failing_since = now() - interval '4 days' WHERE id = ${recent.id}::uuid`);
    await emit(db(), app.ws);
    app.t.runtime.wakeWebhooks();
    await until('disabled', async () => (await endpointRow(db(), old.id)).disabled);
    expect(await endpointRow(db(), old.id)).toMatchObject({ disabled: true, disabledReason: 'failing' });
    await until('the recent one attempted', async () => (await deliveriesOf(db(), recent.id)).some((d) => d.attempts > 0));
    expect((await endpointRow(db(), recent.id)).disabled).toBe(false);

    const healthy = await receiver();
    const back = await seedEndpoint(db(), app.ws, healthy.url);
    await db().execute(sql`UPDATE webhook_endpoints SET failing_since = now() - interval '4 days' WHERE id = ${back.id}::uuid`);
    await emit(db(), app.ws);
    app.t.runtime.wakeWebhooks();
    await until('cleared', async () => (await endpointRow(db(), back.id)).failingSince === null);
  });

  it('keeps deliveries and events 30 days, and never deletes a pending one', async () => {
    const r = await receiver();
    const { id } = await seedEndpoint(db(), app.ws, r.url);
    await emit(db(), app.ws, 3);
    app.t.runtime.wakeWebhooks();
    await until('delivered', async () => (await deliveriesOf(db(), id)).filter((d) => d.status === 'succeeded').length === 3);
    const [a, b] = (await deliveriesOf(db(), id)).map((d) => d.eventId);
    // a: old and done; b: old but pending (a recovered delivery waiting for its attempt).
    await db().execute(sql`UPDATE webhook_events SET created_at = now() - interval '31 days' WHERE id IN (${a}::uuid, ${b}::uuid)`);
    await db().execute(
      sql`UPDATE webhook_deliveries SET created_at = now() - interval '31 days', last_attempt_at = now() - interval '31 days' WHERE event_id IN (${a}::uuid, ${b}::uuid)`,
    );
    await db().execute(sql`UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now() + interval '1 hour' WHERE event_id = ${b}::uuid`);
    const report = await keepWebhookDeliveries({ ctx: { db: db() } });
    expect(report).toMatchObject({ ran: true, deletedDeliveries: 1, deletedEvents: 1 });
    const left = (await deliveriesOf(db(), id)).map((d) => d.eventId);
    expect(left).toHaveLength(2);
    expect(left).toContain(b);
    expect(left).not.toContain(a);
  });
});
