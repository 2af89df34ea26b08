/**
 * What the webhooks API refuses (operations.md §11): missing scopes (the route's, and the read
 * scope of the data subscribed to), more than 20 endpoints, and bad input of every kind — each
 * a clear 4xx in api.md's form, never a 500, and nothing written.
 */
import fc from 'fast-check';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { startTestApp, type TestApp, type WorkspaceFixture } from '../../helpers/app.js';
import { expectError } from '../people/helpers.js';
import { call, deliveryRow, NO_DELIVERY, PUBLIC_URL, register, seedDelivery, type WebhookAnswer } from './helpers.js';

let t: TestApp;
let ws: WorkspaceFixture;

beforeAll(async () => {
  t = await startTestApp({ env: NO_DELIVERY });
  ws = await t.workspace();
});
afterAll(() => t?.close());

const countOf = async (workspaceId: string) =>
  (await rows<{ n: number }>(t.database.db, sql`SELECT count(*)::int AS n FROM webhook_endpoints WHERE workspace_id = ${workspaceId}::uuid`))[0]!.n;

const missingScopes = (res: { json<T>(): T }) => res.json<{ missingScopes?: string[] }>().missingScopes;

describe('scopes', () => {
  it('GET needs webhooksRead, the rest webhooksWrite', async () => {
    const w = await register(t, ws.key);
    const { key: readOnly } = await ws.newKey(['webhooksRead', 'linksRead']);
    const { key: none } = await ws.newKey(['linksRead']);
    expect((await call(t, readOnly, 'GET', '/api/webhooks')).statusCode).toBe(200);
    expect((await call(t, readOnly, 'GET', `/api/webhooks/${w.id}/deliveries`)).statusCode).toBe(200);
    const denied = await call(t, none, 'GET', '/api/webhooks');
    expectError(denied, 403, 'missing_scopes');
    expect(missingScopes(denied)).toEqual(['webhooksRead']);
    for (const [method, url] of [
      ['POST', '/api/webhooks'],
      ['PATCH', `/api/webhooks/${w.id}`],
      ['DELETE', `/api/webhooks/${w.id}`],
      ['POST', `/api/webhooks/${w.id}/secret`],
      ['POST', `/api/webhooks/${w.id}/test`],
      ['POST', `/api/webhooks/${w.id}/recover`],
    ] as const) {
      const res = await call(t, readOnly, method, url, { url: PUBLIC_URL, events: ['link.created'], since: new Date().toISOString() });
      expectError(res, 403, 'missing_scopes');
      expect(missingScopes(res)).toEqual(['webhooksWrite']);
    }
  });

  it('subscribing needs the read scope of the data: 403 naming the ones missing, nothing written', async () => {
    const w = await t.workspace();
    const { key } = await w.newKey(['webhooksWrite', 'webhooksRead']);
    const cases: [string[], string[]][] = [
      [['link.created'], ['linksRead']],
      [['link.deleted', 'link.updated'], ['linksRead']],
      [['link.clicked'], ['analyticsRead']],
      [['lead.created'], ['analyticsRead', 'customersRead']],
      [
        ['sale.created', 'link.created'],
        ['analyticsRead', 'customersRead', 'linksRead'],
      ],
    ];
    for (const [events, missing] of cases) {
      const res = await call(t, key, 'POST', '/api/webhooks', { url: PUBLIC_URL, events });
      expectError(res, 403, 'missing_scopes');
      expect(missingScopes(res)?.sort()).toEqual([...missing].sort());
    }
    const { key: analytics } = await w.newKey(['webhooksWrite', 'analyticsRead']);
    const partly = await call(t, analytics, 'POST', '/api/webhooks', { url: PUBLIC_URL, events: ['lead.created'] });
    expect(missingScopes(partly)).toEqual(['customersRead']);
    expect(await countOf(w.id)).toBe(0);
    expect((await call(t, analytics, 'POST', '/api/webhooks', { url: PUBLIC_URL, events: ['link.clicked'] })).statusCode).toBe(201);
  });

  it('a PATCH that adds types needs their scopes; keeping types already there does not', async () => {
    const w = await register(t, ws.key, { events: ['link.created', 'link.clicked'] });
    const { key } = await ws.newKey(['webhooksWrite', 'analyticsRead']);
    const add = await call(t, key, 'PATCH', `/api/webhooks/${w.id}`, { events: ['link.created', 'link.clicked', 'sale.created'] });
    expectError(add, 403, 'missing_scopes');
    expect(missingScopes(add)).toEqual(['customersRead']);
    // link.created stays (subscribed already, by a key that could see links); link.clicked goes.
    const keep = await call(t, key, 'PATCH', `/api/webhooks/${w.id}`, { events: ['link.created'], description: 'narrowed' });
    expect(keep.statusCode, keep.body).toBe(200);
    expect(keep.json<WebhookAnswer>().events).toEqual(['link.created']);
    const readd = await call(t, key, 'PATCH', `/api/webhooks/${w.id}`, { events: ['link.created', 'link.clicked'] });
    expect(readd.statusCode, readd.body).toBe(200);
  });
});

describe('sending the data somewhere needs its read scopes (issue 41 M3)', () => {
  const CUSTOMER_DATA = ['analyticsRead', 'customersRead'];
  /** The owner's lead/sale endpoint, a failed lead delivery to it, and a key holding only the webhook scopes. */
  async function ownersEndpoint() {
    const w = await register(t, ws.key, { events: ['lead.created', 'sale.created'] });
    const old = await seedDelivery(t, {
      workspaceId: ws.id,
      endpointId: w.id,
      status: 'failed',
      createdAt: new Date(Date.now() - 60_000),
      type: 'lead.created',
    });
    const { key } = await ws.newKey(['webhooksRead', 'webhooksWrite']);
    return { w, old, key };
  }
  const ATTACKER_URL = 'https://93.184.215.15/collect';

  it('a key with only the webhook scopes cannot re-point, retry, recover or test the endpoint: 403 naming the scopes, nothing changed', async () => {
    const { w, old, key } = await ownersEndpoint();
    const since = new Date(Date.now() - 3600_000).toISOString();
    for (const [method, url, body] of [
      ['PATCH', `/api/webhooks/${w.id}`, { url: ATTACKER_URL }],
      ['PATCH', `/api/webhooks/${w.id}`, { url: ATTACKER_URL, events: ['lead.created'] }],
      ['POST', `/api/webhooks/${w.id}/deliveries/${old.deliveryId}/retry`, undefined],
      ['POST', `/api/webhooks/${w.id}/recover`, { since }],
      ['POST', `/api/webhooks/${w.id}/test`, undefined],
    ] as const) {
      const res = await call(t, key, method, url, body);
      expectError(res, 403, 'missing_scopes');
      expect([url, missingScopes(res)?.sort()]).toEqual([url, CUSTOMER_DATA]);
    }
    expect((await call(t, ws.key, 'GET', `/api/webhooks/${w.id}`)).json<WebhookAnswer>().url).toBe(PUBLIC_URL);
    expect((await deliveryRow(t, old.deliveryId)).status).toBe('failed');
    const log = (await call(t, ws.key, 'GET', `/api/webhooks/${w.id}/deliveries`)).json<{ eventType: string }[]>();
    expect(log.map((d) => d.eventType)).toEqual(['lead.created']);
    // What sends nothing new elsewhere stays open to it.
    expect((await call(t, key, 'PATCH', `/api/webhooks/${w.id}`, { description: 'renamed' })).statusCode).toBe(200);
  });

  it('narrowing the types first does not open the old deliveries: their own types need their scopes too', async () => {
    const w = await register(t, ws.key, { events: ['link.created', 'lead.created'] });
    const old = await seedDelivery(t, {
      workspaceId: ws.id,
      endpointId: w.id,
      status: 'failed',
      createdAt: new Date(Date.now() - 60_000),
      type: 'lead.created',
    });
    const pending = await register(t, ws.key, { events: ['link.created', 'lead.created'] });
    await seedDelivery(t, { workspaceId: ws.id, endpointId: pending.id, status: 'pending', createdAt: new Date(Date.now() - 60_000), type: 'lead.created' });
    const { key } = await ws.newKey(['webhooksWrite', 'linksRead']);
    for (const id of [w.id, pending.id]) expect((await call(t, key, 'PATCH', `/api/webhooks/${id}`, { events: ['link.created'] })).statusCode).toBe(200);
    for (const [method, url, body] of [
      ['POST', `/api/webhooks/${w.id}/deliveries/${old.deliveryId}/retry`, undefined],
      ['POST', `/api/webhooks/${w.id}/recover`, { since: new Date(Date.now() - 3600_000).toISOString() }],
      ['PATCH', `/api/webhooks/${pending.id}`, { url: ATTACKER_URL }],
    ] as const) {
      const res = await call(t, key, method, url, body);
      expectError(res, 403, 'missing_scopes');
      expect([url, missingScopes(res)?.sort()]).toEqual([url, CUSTOMER_DATA]);
    }
    // The endpoint with nothing of the old type waiting: its new url needs only linksRead.
    expect((await call(t, key, 'PATCH', `/api/webhooks/${w.id}`, { url: ATTACKER_URL })).statusCode).toBe(200);
  });

  it('a key that can read the data may do all of it', async () => {
    const { w, old } = await ownersEndpoint();
    const { key } = await ws.newKey(['webhooksWrite', ...(CUSTOMER_DATA as ['analyticsRead', 'customersRead'])]);
    expect((await call(t, key, 'PATCH', `/api/webhooks/${w.id}`, { url: ATTACKER_URL })).statusCode).toBe(200);
    expect((await call(t, key, 'POST', `/api/webhooks/${w.id}/deliveries/${old.deliveryId}/retry`)).statusCode).toBe(202);
    expect((await call(t, key, 'POST', `/api/webhooks/${w.id}/recover`, { since: new Date(Date.now() - 3600_000).toISOString() })).statusCode).toBe(202);
    expect((await call(t, key, 'POST', `/api/webhooks/${w.id}/test`)).statusCode).toBe(202);
  });
});

describe('the limit', () => {
  it('at most 20 endpoints per workspace (deleted ones do not count): the 21st is a 400 webhook_limit', async () => {
    const w = await t.workspace();
    const made: string[] = [];
    for (let i = 0; i < 20; i++) made.push((await register(t, w.key)).id);
    const over = await call(t, w.key, 'POST', '/api/webhooks', { url: PUBLIC_URL, events: ['link.created'] });
    expectError(over, 400, 'webhook_limit');
    expect(over.json<{ error: { en: string } }>().error.en).toContain('20');
    expect(await countOf(w.id)).toBe(20);
    // Another workspace is not affected.
    expect((await call(t, ws.key, 'POST', '/api/webhooks', { url: PUBLIC_URL, events: ['link.created'] })).statusCode).toBe(201);
    await call(t, w.key, 'DELETE', `/api/webhooks/${made[0]}`);
    expect((await call(t, w.key, 'POST', '/api/webhooks', { url: PUBLIC_URL, events: ['link.created'] })).statusCode).toBe(201);
    expectError(await call(t, w.key, 'POST', '/api/webhooks', { url: PUBLIC_URL, events: ['link.created'] }), 400, 'webhook_limit');
  });

  it('ten creations at once, five places left: exactly five pass', async () => {
    const w = await t.workspace();
    for (let i = 0; i < 15; i++) await register(t, w.key);
    const answers = await Promise.all(Array.from({ length: 10 }, () => call(t, w.key, 'POST', '/api/webhooks', { url: PUBLIC_URL, events: ['link.created'] })));
    expect(answers.filter((r) => r.statusCode === 201)).toHaveLength(5);
    expect(answers.filter((r) => r.statusCode === 400)).toHaveLength(5);
    expect(await countOf(w.id)).toBe(20);
  });
});

describe('bad input', () => {
  const base = { url: PUBLIC_URL, events: ['link.created'] };
  const bad: [string, unknown, string][] = [
    ['no body fields', {}, 'url'],
    ['url missing', { events: ['link.created'] }, 'url'],
    ['url a number', { ...base, url: 5 }, 'url'],
    ['url not a URL', { ...base, url: 'not a url' }, 'url'],
    ['url empty', { ...base, url: '' }, 'url'],
    ['url http', { ...base, url: 'http://93.184.215.14/hook' }, 'url'],
    ['url ftp', { ...base, url: 'ftp://93.184.215.14/hook' }, 'url'],
    ['url javascript', { ...base, url: 'javascript:alert(1)' }, 'url'],
    ['url with user info', { ...base, url: 'https://user:pw@93.184.215.14/hook' }, 'url'],
    ['url with fragment', { ...base, url: 'https://93.184.215.14/hook#x' }, 'url'],
    ['url with a line break', { ...base, url: 'https://93.184.215.14/ho\nok' }, 'url'],
    ['url too long', { ...base, url: `https://93.184.215.14/${'a'.repeat(2100)}` }, 'url'],
    ['localhost', { ...base, url: 'https://localhost/hook' }, 'url'],
    ['loopback', { ...base, url: 'https://127.0.0.1:8443/hook' }, 'url'],
    ['IPv6 loopback', { ...base, url: 'https://[::1]/hook' }, 'url'],
    ['private 10/8', { ...base, url: 'https://10.1.2.3/hook' }, 'url'],
    ['private 192.168', { ...base, url: 'https://192.168.1.1/hook' }, 'url'],
    ['link-local metadata', { ...base, url: 'https://169.254.169.254/latest/meta-data' }, 'url'],
    ['IPv4-mapped loopback', { ...base, url: 'https://[::ffff:127.0.0.1]/hook' }, 'url'],
    ['decimal loopback', { ...base, url: 'https://2130706433/hook' }, 'url'],
    ['unresolvable name', { ...base, url: 'https://hooks.nonexistent.invalid/hook' }, 'url'],
    ['events missing', { url: PUBLIC_URL }, 'events'],
    ['events a string', { ...base, events: 'link.created' }, 'events'],
    ['events empty', { ...base, events: [] }, 'events'],
    ['events unknown', { ...base, events: ['link.created', 'link.exploded'] }, 'events[1]'],
    ['events duplicate', { ...base, events: ['link.created', 'link.updated', 'link.created'] }, 'events[2]'],
    ['events webhook.test', { ...base, events: ['webhook.test'] }, 'events[0]'],
    ['events numbers', { ...base, events: [1, 2] }, 'events[0]'],
    ['events too many', { ...base, events: [...'abcdefghijk'].map(() => 'link.created') }, 'events'],
    ['description too long', { ...base, description: 'x'.repeat(501) }, 'description'],
    ['description huge (the server-wide string guard)', { ...base, description: 'x'.repeat(200_000) }, 'body'],
    ['description an object', { ...base, description: { a: 1 } }, 'description'],
  ];
  it.each(bad)('%s → 400 naming the field, nothing written', async (_name, body, field) => {
    const before = await countOf(ws.id);
    const res = await call(t, ws.key, 'POST', '/api/webhooks', body);
    expectError(res, 400, res.json<{ error: { code: string } }>().error.code, field);
    expect(res.json<{ field?: string }>().field ?? field).toBe(field);
    expect(await countOf(ws.id)).toBe(before);
  });

  it('a PATCH of url is checked the same way, and a bad PATCH changes nothing', async () => {
    const w = await register(t, ws.key);
    for (const url of ['https://localhost/x', 'http://93.184.215.14/x', 'https://10.0.0.1/x', 'nope']) {
      expectError(await call(t, ws.key, 'PATCH', `/api/webhooks/${w.id}`, { url }), 400, 'invalid_field', 'url');
    }
    expectError(await call(t, ws.key, 'PATCH', `/api/webhooks/${w.id}`, { events: [] }), 400, 'invalid_field', 'events');
    expectError(await call(t, ws.key, 'PATCH', `/api/webhooks/${w.id}`, { disabled: 'yes' }), 400, 'invalid_field', 'disabled');
    expect((await call(t, ws.key, 'GET', `/api/webhooks/${w.id}`)).json()).toMatchObject({ url: PUBLIC_URL, events: ['link.created'] });
  });

  it('malformed ids are a 400, unknown ones a 404', async () => {
    expectError(await call(t, ws.key, 'GET', '/api/webhooks/not-a-uuid'), 400, 'invalid_path');
    expectError(await call(t, ws.key, 'POST', '/api/webhooks/00000000-0000-4000-8000-000000000000/test'), 404, 'not_found');
    expectError(await call(t, ws.key, 'GET', '/api/webhooks/00000000-0000-4000-8000-000000000000/deliveries'), 404, 'not_found');
  });

  it('any JSON body is answered with 201 or a 4xx in api.md form, never a 500', async () => {
    const w = await t.workspace();
    const value = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 3 }));
    const body = fc.record(
      {
        url: fc.oneof(value, fc.constantFrom(PUBLIC_URL, 'https://localhost/', 'http://93.184.215.14/', 'https://[fe80::1]/')),
        events: fc.oneof(value, fc.array(fc.constantFrom('link.created', 'link.clicked', 'sale.created', 'webhook.test', 'x', ''), { maxLength: 8 })),
        description: value,
        disabled: value,
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const res = await call(t, w.key, 'POST', '/api/webhooks', b);
        if (res.statusCode === 201) {
          await call(t, w.key, 'DELETE', `/api/webhooks/${res.json<{ id: string }>().id}`);
          return;
        }
        expect([400, 403], res.body).toContain(res.statusCode);
        const e = res.json<{ error: { en: string; ar: string; code: string } }>().error;
        expect(e.code.length).toBeGreaterThan(0);
        expect(e.ar).toMatch(/[\u0600-\u06ff]/);
      }),
      { numRuns: 60 },
    );
  });
});

describe('WEBHOOK_ALLOWED_CIDRS', () => {
  it('lets the operator name in-house ranges, where http is allowed too; elsewhere the rules hold', async () => {
    const inHouse = await startTestApp({ env: { ...NO_DELIVERY, WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8,10.20.0.0/16' } });
    try {
      const w = await inHouse.workspace();
      const post = (url: string) => call(inHouse, w.key, 'POST', '/api/webhooks', { url, events: ['link.created'] });
      expect((await post('http://127.0.0.1:9911/hook')).statusCode).toBe(201);
      expect((await post('https://10.20.3.4/hook')).statusCode).toBe(201);
      expect((await post('http://localhost:9911/hook')).statusCode).toBe(201);
      expectError(await post('https://10.21.0.1/hook'), 400, 'invalid_field', 'url');
      expectError(await post('http://93.184.215.14/hook'), 400, 'invalid_field', 'url');
    } finally {
      await inHouse.close();
    }
  });

  it('ALLOW_PRIVATE_DESTINATIONS (tests) allows loopback over https, still not http, and no other private address', async () => {
    const open = await startTestApp({ env: { ...NO_DELIVERY, ALLOW_PRIVATE_DESTINATIONS: 'true' } });
    try {
      const w = await open.workspace();
      const post = (url: string) => call(open, w.key, 'POST', '/api/webhooks', { url, events: ['link.created'] });
      expect((await post('https://127.0.0.1:8443/hook')).statusCode).toBe(201);
      expect((await post('https://[::1]:8443/hook')).statusCode).toBe(201);
      expectError(await post('http://127.0.0.1:8443/hook'), 400, 'invalid_field', 'url');
      for (const url of [
        'https://10.1.2.3/hook',
        'https://192.168.0.10/hook',
        'https://169.254.169.254/latest',
        'https://[fd00::5]/hook',
        'https://100.64.0.1/hook',
      ]) {
        expectError(await post(url), 400, 'invalid_field', 'url');
      }
    } finally {
      await open.close();
    }
  });
});
