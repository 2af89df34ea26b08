/**
 * GET /api/analytics: startDate / endDate at the edges of the calendar, and the `id` filter
 * (issue 11, defect 4). Years 0000–9999 with offsets up to ±14:00, or a date-only endDate
 * widened to the end of its day, can name instants PostgreSQL's timestamptz cannot hold as
 * sent (year 0, year 10000): they used to reach the database and answer 500. Now a bound
 * outside years 0001–9999 is clamped (an earlier start or a later end: no limit on that side;
 * a start after 9999 or an end before 0001: nothing matches), checked here against a model of
 * the filter over clicks stamped at the very first and last instants of that range.
 */
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { workspaceWithCollection } from '../../helpers/client.js';
import { DESKTOP, IP_GB, UUID } from '../../helpers/visitors.js';

let pinned: number | undefined;
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ clock: () => new Date(pinned ?? Date.now()) });
});

afterAll(async () => {
  await t?.close();
});

interface Group {
  key: string;
  clicks: number;
  leads: number;
  sales: number;
  saleAmount: number;
}

async function client() {
  const { send, collectionId } = await workspaceWithCollection(t);
  const created = await send('POST', '/api/links', [{ url: 'https://shop.example/landing', collectionId }]);
  expect(created.statusCode, created.body).toBe(201);
  const link = created.json<{ id: string; shortUrl: string }[]>()[0]!;
  return {
    send,
    link,
    /** A visit at `time` (ISO; now when omitted); returns its click id. */
    async click(time?: string): Promise<string> {
      pinned = time === undefined ? undefined : Date.parse(time);
      try {
        const res = await t.inject({
          method: 'GET',
          url: new URL(link.shortUrl).pathname,
          remoteAddress: IP_GB,
          headers: { 'user-agent': DESKTOP },
        });
        expect(res.statusCode, res.body).toBe(302);
        const id = new URL(res.headers.location as string).searchParams.get('ltid');
        expect(id).toMatch(UUID);
        return id!;
      } finally {
        pinned = undefined;
      }
    },
    async track(kind: 'lead' | 'sale', clickId: string, amount = 0) {
      const body = { clickId, eventName: 'Sign up', amount, customerExternalId: `c-${clickId}`, customerName: 'N' };
      const res = await send('POST', `/api/track/${kind}`, kind === 'lead' ? { ...body, amount: undefined } : body);
      expect(res.statusCode, res.body).toBe(200);
    },
    analytics: (query: string) => send('GET', `/api/analytics?take=5000&sort=asc${query}`),
  };
}

/** Click times: the first and last instants of years 0001–9999 and a few between. */
const TIMES = ['0001-01-01T00:00:00.000Z', '0001-01-01T13:59:59.999Z', '2024-03-10T12:00:00.000Z', '9999-12-31T10:00:00.000Z', '9999-12-31T23:59:59.999Z'];

let fixture: { api: Awaited<ReturnType<typeof client>>; clicks: { id: string; at: number }[] } | undefined;

/** One workspace with a click at each of TIMES (written to the database before it is returned). */
async function clicksAtTheEdges() {
  if (fixture) return fixture;
  const api = await client();
  const clicks = [];
  for (const time of TIMES) clicks.push({ id: await api.click(time), at: Date.parse(time) });
  // Tracking a lead on a click waits until it is written; clicks are written in order.
  await api.track('lead', clicks.at(-1)!.id);
  const stored = await api.analytics(`&endDate=${encodeURIComponent(TIMES.at(-1)!)}`);
  expect(stored.json<{ id: string }[]>().map((c) => c.id)).toEqual(clicks.map((c) => c.id));
  fixture = { api, clicks };
  return fixture;
}

const q = (params: Record<string, string>) =>
  Object.entries(params)
    .map(([k, v]) => `&${k}=${encodeURIComponent(v)}`)
    .join('');

describe('GET /api/analytics: bounds outside years 0001–9999 are clamped, never sent to the database', () => {
  it('the review’s inputs answer 200 with the clicks the period covers', async () => {
    const { api, clicks } = await clicksAtTheEdges();
    const all = clicks.map((c) => c.id);
    const cases: [Record<string, string>, string[]][] = [
      [{ endDate: '9999-12-31' }, all],
      [{ startDate: '0000-01-01' }, all],
      [{ startDate: '0001-01-01T00:00:00+14:00' }, all],
      [{ startDate: '0000-01-01', endDate: '9999-12-31' }, all],
      [{ startDate: '9999-12-31T23:59:59.999Z' }, all.slice(4)],
      [{ startDate: '9999-12-31T23:59:59-14:00' }, []],
      [{ endDate: '0000-12-31' }, []],
      [{ endDate: '0001-01-01T14:00:00+14:00' }, all.slice(0, 1)],
      [{ endDate: '0001-01-01T13:59:59.999+14:00' }, []],
      [{ endDate: '0001-01-01T00:00:00+14:00' }, []],
      [{ startDate: '0001-01-01T00:00:00+14:00', endDate: '0001-01-01T00:00:00+14:00' }, []],
    ];
    for (const [params, expected] of cases) {
      for (const groupBy of ['', '&groupBy=link', '&groupBy=timeseries&interval=month']) {
        const res = await api.analytics(q(params) + groupBy);
        expect(res.statusCode, `${JSON.stringify(params)}${groupBy}: ${res.body}`).toBe(200);
        if (groupBy === '')
          expect(
            res.json<{ id: string }[]>().map((c) => c.id),
            JSON.stringify(params),
          ).toEqual(expected);
        else
          expect(
            res.json<Group[]>().reduce((n, g) => n + g.clicks, 0),
            JSON.stringify(params) + groupBy,
          ).toBe(expected.length);
      }
    }
  });

  it('a start after the end is still a 400, judged on the instants given', async () => {
    const { api } = await clicksAtTheEdges();
    const res = await api.analytics(q({ startDate: '9999-12-31T23:00:00-14:00', endDate: '9999-12-31' }));
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ error: { code: 'invalid_query' } });
  });

  it('property: any date or date-time of years 0000–9999 with offsets up to ±15:xx answers 200 as the model says, or 400', async () => {
    const { api, clicks } = await clicksAtTheEdges();
    const bound = fc.option(dateArbitrary, { nil: undefined });
    await fc.assert(
      fc.asyncProperty(bound, bound, fc.constantFrom('', '&groupBy=link', '&groupBy=timeseries&interval=hour'), async (start, end, groupBy) => {
        const params: Record<string, string> = {};
        if (start) params.startDate = start.text;
        if (end) params.endDate = end.text;
        const res = await api.analytics(q(params) + groupBy);
        const expected = modelFilter(clicks, start, end);
        if (expected === 'invalid') {
          expect(res.statusCode, res.body).toBe(400);
          expect(res.json()).toMatchObject({ error: { code: 'invalid_query' } });
          return;
        }
        expect(res.statusCode, res.body).toBe(200);
        if (groupBy === '') expect(res.json<{ id: string }[]>().map((c) => c.id)).toEqual(expected);
        else expect(res.json<Group[]>().reduce((n, g) => n + g.clicks, 0)).toBe(expected.length);
      }),
      { numRuns: 300 },
    );
  });
});

interface GeneratedDate {
  text: string;
  /** The instant it names, undefined if it is no valid date or date-time. */
  at?: number;
  dateOnly: boolean;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const daysIn = (year: number, month: number) =>
  month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;

/** Dates and date-times from their parts, mostly valid, often at the ends of the calendar. */
const dateArbitrary: fc.Arbitrary<GeneratedDate> = fc
  .record({
    year: fc.oneof(fc.constantFrom(0, 1, 2, 2024, 9998, 9999), fc.integer({ min: 0, max: 9999 })),
    month: fc.oneof({ weight: 5, arbitrary: fc.integer({ min: 1, max: 12 }) }, { weight: 1, arbitrary: fc.constantFrom(0, 13) }),
    day: fc.oneof({ weight: 5, arbitrary: fc.integer({ min: 1, max: 31 }) }, { weight: 1, arbitrary: fc.constantFrom(0, 32) }),
    time: fc.option(
      fc.record({
        hour: fc.integer({ min: 0, max: 24 }),
        minute: fc.integer({ min: 0, max: 60 }),
        second: fc.option(fc.integer({ min: 0, max: 60 }), { nil: undefined }),
        fraction: fc.option(fc.stringMatching(/^\d{1,9}$/), { nil: undefined }),
        offset: fc.oneof(
          fc.constantFrom('Z', 'z'),
          fc.record({
            sign: fc.constantFrom(1, -1),
            hours: fc.oneof(fc.constantFrom(0, 14), fc.integer({ min: 0, max: 15 })),
            minutes: fc.constantFrom(0, 30, 45, 59, 60),
          }),
        ),
      }),
      { nil: undefined },
    ),
  })
  .map(({ year, month, day, time }) => {
    const date = `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
    let valid = month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month);
    const d = new Date(0);
    d.setUTCFullYear(year, month - 1, day);
    if (!time) return { text: date, at: valid ? d.getTime() : undefined, dateOnly: true };
    const { hour, minute, second, fraction, offset } = time;
    let text = `${date}T${pad(hour)}:${pad(minute)}`;
    if (second !== undefined) text += `:${pad(second)}${fraction === undefined ? '' : `.${fraction}`}`;
    let offsetMinutes = 0;
    if (typeof offset === 'string') text += offset;
    else {
      text += `${offset.sign > 0 ? '+' : '-'}${pad(offset.hours)}:${pad(offset.minutes)}`;
      offsetMinutes = offset.sign * (offset.hours * 60 + offset.minutes);
      valid &&= offset.minutes < 60;
    }
    valid &&= hour < 24 && minute < 60 && (second ?? 0) < 60;
    const ms = fraction === undefined || second === undefined ? 0 : Number(fraction.slice(0, 3).padEnd(3, '0'));
    d.setUTCHours(hour, minute, second ?? 0, ms);
    return { text, at: valid ? d.getTime() - offsetMinutes * 60_000 : undefined, dateOnly: false };
  });

/** The click ids the period covers (in time order), or 'invalid' when the query must be a 400. */
function modelFilter(clicks: { id: string; at: number }[], start?: GeneratedDate, end?: GeneratedDate): string[] | 'invalid' {
  if ((start && start.at === undefined) || (end && end.at === undefined)) return 'invalid';
  // A date alone as endDate covers its whole day: up to the next day's first instant, excluded.
  const endBefore = end ? (end.dateOnly ? end.at! + 86_400_000 : end.at! + 1) : Infinity;
  const startAt = start ? start.at! : -Infinity;
  if (startAt >= endBefore) return 'invalid';
  return clicks.filter((c) => c.at >= startAt && c.at < endBefore).map((c) => c.id);
}

describe('GET /api/analytics?id=…: one click', () => {
  it('lists only that click, and groups only it and its events', async () => {
    const api = await client();
    const one = await api.click();
    const other = await api.click();
    await api.track('lead', one);
    await api.track('sale', one, 700);
    await api.track('lead', other);
    await api.track('sale', other, 50);
    const list = await api.analytics(`&id=${one}`);
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json<{ id: string }[]>().map((c) => c.id)).toEqual([one]);
    const groups = await api.analytics(`&id=${one}&groupBy=link`);
    expect(groups.json<Group[]>()).toEqual([
      {
        key: api.link.id,
        clicks: 1,
        visitors: 1,
        leads: 1,
        sales: 1,
        saleAmount: 700,
        revenue: { usd: 700 },
        refunded: { usd: 0 },
        shortUrl: api.link.shortUrl,
        title: null,
      },
    ]);
    // Combined with the other filters, all must match.
    expect((await api.analytics(`&id=${one}&linkId=${api.link.id}`)).json<unknown[]>()).toHaveLength(1);
    expect((await api.analytics(`&id=${one}&linkId=${randomUUID()}`)).json<unknown[]>()).toEqual([]);
    // Another workspace's click, or no click at all: nothing.
    const stranger = await client();
    expect((await stranger.analytics(`&id=${one}`)).json<unknown[]>()).toEqual([]);
    expect((await stranger.analytics(`&id=${one}&groupBy=link`)).json<unknown[]>()).toEqual([]);
    expect((await api.analytics(`&id=${randomUUID()}`)).json<unknown[]>()).toEqual([]);
    // Not a UUID: 400.
    expect((await api.analytics('&id=nope')).statusCode).toBe(400);
  });
});
