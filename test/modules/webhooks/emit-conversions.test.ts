/**
 * lead.created / sale.created (operations.md §11) through the tracking API: each stored with its
 * lead or sale in one transaction when the workspace wants it, `data` exactly the Event record
 * of GET /api/events, `timestamp` its createdAt; none for a type nobody subscribes to.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { clientWithClick, type Body, type ConversionApi } from '../conversions/helpers.js';
import { endpoint, eventsOf, failEventsContaining } from './emit-helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

const lead = (clickId: string, extra: Body = {}): Body => ({
  clickId,
  eventName: 'Sign up',
  customerExternalId: 'user-1',
  customerName: 'Ada Lovelace',
  ...extra,
});
const sale = (extra: Body = {}): Body => ({
  customerExternalId: 'user-1',
  customerName: 'Ada Lovelace',
  customerEmail: 'ada@example.com',
  amount: 4999,
  ...extra,
});

/** The Event record as GET /api/events shows it. */
async function shown(api: ConversionApi, id: string) {
  const res = await api.send('GET', `/api/events?id=${id}`);
  expect(res.statusCode, res.body).toBe(200);
  const [record] = res.json<Record<string, unknown>[]>();
  expect(record).toBeDefined();
  return record!;
}

describe('lead and sale events', () => {
  it('a lead and its sales each store one event, data the Event record of GET /api/events, for each subscribed endpoint', async () => {
    const { api, clickId } = await clientWithClick(t);
    const hook = await endpoint(t, api.ws.id, ['lead.created', 'sale.created']);
    const other = await endpoint(t, api.ws.id, ['sale.created']);

    // Each event is the record as the API shows it when it is made (a later sale changes the
    // customer's email that the lead's record shows from then on, not the event sent).
    const seen = new Map<string, Record<string, unknown>>();
    const track = async <R extends { id: string }>(made: Promise<R>): Promise<R> => {
      const r = await made;
      seen.set(r.id, await shown(api, r.id));
      return r;
    };
    const l = await track(api.okLead(lead(clickId, { metadata: { plan: 'trial' } })));
    const byLead = await track(api.okSale(sale({ leadEventName: 'Sign up', currency: 'eur' })));
    const byClick = await track(api.okSale(sale({ clickId, eventName: 'Upgrade' })));
    const deferred = await track(api.okLead(lead('', { eventName: 'Activated' })));

    const leads = await eventsOf(t, api.ws.id, 'lead.created');
    const sales = await eventsOf(t, api.ws.id, 'sale.created');
    expect(leads.map((e) => e.body.data.id).sort()).toEqual([l.id, deferred.id].sort());
    expect(sales.map((e) => e.body.data.id).sort()).toEqual([byLead.id, byClick.id].sort());
    for (const e of [...leads, ...sales]) {
      const record = seen.get(e.body.data.id)!;
      expect(e.body).toEqual({ type: e.type, timestamp: record.createdAt, data: record });
    }
    expect(sales.find((e) => e.body.data.id === byLead.id)!.body.data).toMatchObject({
      type: 'sale',
      leadId: l.id,
      currency: 'eur',
      customerEmail: 'ada@example.com',
    });
    expect(leads.find((e) => e.body.data.id === l.id)!.body.data).toMatchObject({ type: 'lead', metadata: { plan: 'trial' }, customerName: 'Ada Lovelace' });
    expect(leads.every((e) => e.endpoints.length === 1 && e.endpoints[0] === hook)).toBe(true);
    expect(sales.every((e) => e.endpoints.length === 2 && e.endpoints.includes(other))).toBe(true);
  });

  it('only the subscribed types and the subscribing workspace: a lead-only endpoint gets no sale, another workspace nothing', async () => {
    const a = await clientWithClick(t);
    const b = await clientWithClick(t);
    await endpoint(t, a.api.ws.id, ['lead.created']);
    await endpoint(t, b.api.ws.id, ['link.created']);
    for (const { api, clickId } of [a, b]) {
      await api.okLead(lead(clickId));
      await api.okSale(sale());
    }
    expect((await eventsOf(t, a.api.ws.id)).map((e) => e.type)).toEqual(['lead.created']);
    expect(await eventsOf(t, b.api.ws.id)).toEqual([]);
  });

  it('when storing its event fails, the lead or sale is not recorded either', async () => {
    const { api, clickId } = await clientWithClick(t);
    await endpoint(t, api.ws.id, ['lead.created', 'sale.created']);
    const first = await api.okLead(lead(clickId));
    const restore = await failEventsContaining(t, 'outbox-refuses-this-event');
    try {
      expect((await api.lead(lead(clickId, { metadata: { note: 'outbox-refuses-this-event' } }))).statusCode).toBe(500);
      expect((await api.sale(sale({ metadata: { note: 'outbox-refuses-this-event' } }))).statusCode).toBe(500);
    } finally {
      await restore();
    }
    const listed = (await api.send('GET', '/api/events')).json<{ id: string }[]>();
    expect(listed.map((e) => e.id)).toEqual([first.id]);
    expect((await eventsOf(t, api.ws.id)).map((e) => e.body.data.id)).toEqual([first.id]);
    expect(await api.totals()).toMatchObject({ leads: 1, sales: 0 });
  });
});
