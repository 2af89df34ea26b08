/**
 * Every method of the SDK against the live service (operations.md §16), the list iterator
 * across pages, and the typed error of a 400, 401 and 403.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Linktrail, LinktrailError, type Link } from '../../../packages/sdk/src/index.js';
import { within } from '../../helpers/wait.js';
import { click, countingClient, startLiveServer, type LiveServer } from './live.js';

let live: LiveServer;
let client: Linktrail;
let key: string;
let newKey: (scopes: readonly string[]) => Promise<{ key: string }>;

beforeAll(async () => {
  live = await startLiveServer();
  const ws = await live.t.workspace({ rateLimitPerMinute: 1_000_000 });
  key = ws.key;
  newKey = (scopes) => ws.newKey(scopes as never);
  client = new Linktrail({ apiKey: key, baseUrl: live.baseUrl });
});

afterAll(async () => {
  await live?.close();
});

/** Thrown by `p`, which must fail with a LinktrailError. */
async function failure(p: Promise<unknown>): Promise<LinktrailError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LinktrailError);
  return error as LinktrailError;
}

describe('links, collections, tags, partners', () => {
  it('create, upsert, list and delete each of them', async () => {
    const [collection] = await client.collections.create([{ name: 'Spring' }]);
    const [renamed] = await client.collections.upsert([{ id: collection!.id, name: 'Spring sale' }]);
    expect(renamed!.name).toBe('Spring sale');
    const [tag] = await client.tags.create([{ name: 'email', color: '#3366ff' }]);
    const [partner] = await client.partners.create([{ name: 'Affiliate A' }]);
    expect((await client.partners.upsert([{ id: partner!.id, name: 'Affiliate B' }]))[0]!.name).toBe('Affiliate B');
    expect((await client.tags.upsert([{ id: tag!.id, name: 'newsletter' }]))[0]!.name).toBe('newsletter');

    const [link] = await client.links.create([
      { url: 'https://shop.example/a', collectionId: collection!.id, tagIds: [tag!.id], partnerId: partner!.id, externalId: 'ext-a' },
    ]);
    expect(link).toMatchObject({ url: 'https://shop.example/a', externalId: 'ext-a', partnerId: partner!.id });
    const [moved] = await client.links.upsert([
      { id: link!.id, title: 'Landing' },
      { url: 'https://shop.example/b', collectionId: collection!.id },
    ]);
    expect(moved!.title).toBe('Landing');

    expect((await client.links.list({ externalId: 'ext-a' }).toArray()).map((l) => l.id)).toEqual([link!.id]);
    expect((await client.collections.list().toArray()).map((c) => c.name)).toEqual(['Spring sale']);
    expect((await client.tags.list().toArray()).map((c) => c.name)).toEqual(['newsletter']);
    expect((await client.partners.list().toArray()).map((c) => c.name)).toEqual(['Affiliate B']);

    expect(await client.links.delete([link!.id])).toEqual({ deletedIds: [link!.id] });
    expect(await client.tags.delete([tag!.id])).toEqual({ deletedIds: [tag!.id] });
    expect(await client.partners.delete([partner!.id])).toEqual({ deletedIds: [partner!.id] });
    const rest = await client.links.list().toArray();
    expect(await client.links.delete(rest.map((l) => l.id))).toEqual({ deletedIds: rest.map((l) => l.id) });
    expect(await client.collections.delete([collection!.id])).toEqual({ deletedIds: [collection!.id] });
    expect(await client.links.list().toArray()).toEqual([]);
  });

  it('list iterates every page: 2,500 links in pages of 1,000, each once, one request per page', async () => {
    const own = await live.t.workspace({ rateLimitPerMinute: 1_000_000 });
    const { client: counted, sent } = countingClient({ apiKey: own.key, baseUrl: live.baseUrl });
    const [collection] = await counted.collections.create([{ name: 'Many' }]);
    const created = await counted.links.create(Array.from({ length: 2_500 }, (_, i) => ({ url: `https://shop.example/${i}`, collectionId: collection!.id })));
    sent.length = 0;

    const seen: Link[] = [];
    for await (const link of counted.links.list({ sort: 'asc' })) seen.push(link);
    expect(seen.map((l) => l.id)).toEqual(created.map((l) => l.id));
    expect(sent.map((s) => [s.url.searchParams.get('skip'), s.url.searchParams.get('take')])).toEqual([
      ['0', '1000'],
      ['1000', '1000'],
      ['2000', '1000'],
    ]);

    // Breaking out early asks for no further page; pageSize and skip shape the requests.
    sent.length = 0;
    const pages = [];
    for await (const page of counted.links.list({ sort: 'asc', skip: 100, pageSize: 2_000 }).pages()) pages.push(page.length);
    expect(pages).toEqual([2_000, 400]);
    sent.length = 0;
    for await (const link of counted.links.list()) {
      expect(link.id).toBeTruthy();
      break;
    }
    expect(sent).toHaveLength(1);
  });
});

describe('customers, tracking, events, analytics', () => {
  it('a click, a lead and a sale; the customer listed, updated and deleted; the events and the click listed', async () => {
    const [collection] = await client.collections.create([{ name: 'Tracked' }]);
    const [link] = await client.links.create([{ url: 'https://shop.example/track', collectionId: collection!.id }]);
    const clickId = await click(live.t, link!.shortUrl);

    const lead = await client.track.lead({ clickId, eventName: 'Sign up', customerExternalId: 'user-1', customerName: 'Noor' });
    const sale = await client.track.sale({ customerExternalId: 'user-1', customerName: 'Noor', amount: 4_200, currency: 'usd' });
    expect(lead).toMatchObject({ eventName: 'Sign up', linkId: link!.id });
    expect(sale).toMatchObject({ amount: 4_200, linkId: link!.id });

    const events = await client.events.list({ linkId: link!.id, sort: 'asc' }).toArray();
    expect(events.map((e) => e.id)).toEqual([lead.id, sale.id]);
    expect(await client.events.list({ type: 'sale', linkId: link!.id }).toArray()).toHaveLength(1);

    const [customer] = await client.customers.list({ externalId: 'user-1' }).toArray();
    expect(customer).toMatchObject({ externalId: 'user-1', name: 'Noor' });
    const [updated] = await client.customers.update([{ id: customer!.id, email: 'noor@shop.example' }]);
    expect(updated!.email).toBe('noor@shop.example');
    expect(await client.customers.delete([customer!.id])).toEqual({ deletedIds: [customer!.id] });
    expect(await client.customers.list({ externalId: 'user-1' }).toArray()).toEqual([]);

    // Clicks are written in batches: the click shows a moment after the redirect.
    expect(await within(10_000, async () => (await client.analytics.list({ linkId: link!.id }).toArray()).length === 1)).toBe(true);
    const [row] = await client.analytics.list({ linkId: link!.id, groupBy: 'link' }).toArray();
    expect(row).toMatchObject({ clicks: 1, leads: 1, sales: 1, saleAmount: 4_200 });
  });
});

describe('webhooks', () => {
  it('create, get, update, list, test, deliveries, retry, recover, rotate the secret, delete', async () => {
    const created = await client.webhooks.create({ url: 'https://93.184.215.14/hooks/sdk', events: ['link.created'], description: 'SDK' });
    expect(created.secret).toMatch(/^whsec_/);
    expect(await client.webhooks.get(created.id)).toMatchObject({ id: created.id, url: 'https://93.184.215.14/hooks/sdk', description: 'SDK' });
    expect(await client.webhooks.update(created.id, { description: 'renamed' })).toMatchObject({ description: 'renamed' });
    expect((await client.webhooks.list().toArray()).map((w) => w.id)).toContain(created.id);

    const { eventId } = await client.webhooks.test(created.id);
    const [delivery] = await client.webhooks.deliveries(created.id).toArray();
    expect(delivery).toMatchObject({ eventId, eventType: 'webhook.test' });
    expect(await client.webhooks.retry(created.id, delivery!.id)).toMatchObject({ id: delivery!.id, status: 'pending' });
    expect(await client.webhooks.recover(created.id, { since: new Date(Date.now() - 3_600_000).toISOString() })).toEqual({ requeued: 0 });

    const rolled = await client.webhooks.rotateSecret(created.id);
    expect(rolled.secret).toMatch(/^whsec_/);
    expect(rolled.secret).not.toBe(created.secret);
    expect(await client.webhooks.delete(created.id)).toEqual({ deletedIds: [created.id] });
  });
});

describe('errors', () => {
  it('a 400 is a LinktrailError with code, field and both languages', async () => {
    const [collection] = await client.collections.create([{ name: 'Errors' }]);
    const error = await failure(
      client.links.create([
        { url: 'https://shop.example/ok', collectionId: collection!.id },
        { url: 'http://shop.example/plain', collectionId: collection!.id },
      ]),
    );
    expect(error).toMatchObject({ status: 400, code: 'invalid_field', field: '[1].url', missingScopes: [] });
    expect(error.en).toContain('[1].url');
    expect(error.ar).toMatch(/[\u0600-\u06FF]/);
    expect(error.message).toBe(error.en);
  });

  it('a 401 names the credential problem; a 403 lists the missing scopes', async () => {
    const unknown = await failure(new Linktrail({ apiKey: 'lt_not_a_key', baseUrl: live.baseUrl }).links.list().toArray());
    expect(unknown.status).toBe(401);
    expect(unknown.code).toMatch(/^credential_/);
    expect(unknown.ar).toMatch(/[\u0600-\u06FF]/);

    const readOnly = new Linktrail({ apiKey: (await newKey(['linksRead'])).key, baseUrl: live.baseUrl });
    const forbidden = await failure(readOnly.links.delete(['00000000-0000-4000-8000-000000000000']));
    expect(forbidden).toMatchObject({ status: 403, code: 'missing_scopes', missingScopes: ['linksWrite'] });
    expect(await readOnly.links.list().toArray()).toBeInstanceOf(Array);
  });

  it('an unreachable server is a LinktrailError with status 0 (a read tried again first)', async () => {
    const sleeps: number[] = [];
    const nowhere = new Linktrail({ apiKey: key, baseUrl: 'http://127.0.0.1:1', sleep: async (ms) => void sleeps.push(ms) });
    const error = await failure(nowhere.tags.list().toArray());
    expect(error).toMatchObject({ status: 0, code: 'network_error' });
    expect(sleeps).toEqual([500, 1_000, 2_000]);
    sleeps.length = 0;
    await failure(nowhere.tags.create([{ name: 'x' }]));
    expect(sleeps).toEqual([]);
  });
});
