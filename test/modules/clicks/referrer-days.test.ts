/**
 * Issue 30: a range of days of referrer URLs is bounded. Once a UTC day is over, the periodic
 * maintenance keeps its top 500 URLs by clicks (and every URL with a conversion) and folds the
 * rest into one `(other)` row; totals are unchanged, today and the hours are not cut, and a late
 * batch of a day already cut is cut again at the next run. Clicks go through the production
 * click writer (storeClicks); answers through GET /api/analytics.
 */
import { randomUUID } from 'node:crypto';
import { sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RawClick } from '../../../src/modules/clicks/record.js';
import { OTHER_URLS, URLS_KEPT_PER_DAY } from '../../../src/modules/clicks/referrer-days.js';
import { storeClicks } from '../../../src/modules/clicks/store.js';
import type { Ctx } from '../../../src/core/context.js';
import { onPostgres, startTestApp, type TestApp } from '../../helpers/app.js';
import { workspaceWithCollection } from '../../helpers/client.js';

const DAY = 86_400_000;
const AGENT = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
}, 120_000);
afterAll(async () => {
  await t?.close();
});

type Row = { key: string; clicks: number; leads: number };

async function setup() {
  const { ws, send, collectionId } = await workspaceWithCollection(t);
  const made = await send('POST', '/api/links', [{ url: 'https://dest.example/', collectionId }]);
  expect(made.statusCode, made.body).toBe(201);
  const linkId = made.json<{ id: string }[]>()[0]!.id;
  const click = (at: number, url: string): RawClick => ({
    id: randomUUID(),
    workspaceId: ws.id,
    linkId,
    partnerId: null,
    at,
    ip: '203.0.113.9',
    userAgent: AGENT,
    referer: url,
    country: 'DE',
  });
  const byUrl = async (day: string): Promise<Row[]> => {
    const res = await send('GET', `/api/analytics?groupBy=referrer_url&startDate=${day}&endDate=${day}&take=5000`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<Row[]>();
  };
  const total = async (query: string) => {
    const res = await send('GET', `/api/analytics?groupBy=timeseries&interval=day&${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<Row[]>().reduce((sum, r) => sum + r.clicks, 0);
  };
  return { ws, click, byUrl, total };
}

/** URL i of a day's many: the first URLS_KEPT_PER_DAY get two clicks, the others one. */
const url = (i: number) => `https://ref${i}.example/post`;

function dayOfClicks(click: (at: number, url: string) => RawClick, midnight: number, extra: number): RawClick[] {
  const clicks: RawClick[] = [];
  for (let i = 0; i < URLS_KEPT_PER_DAY + extra; i++) {
    const at = midnight + 3_600_000 + (i % 3_000) * 1_000;
    clicks.push(click(at, url(i)));
    if (i < URLS_KEPT_PER_DAY) clicks.push(click(at + 1, url(i)));
  }
  return clicks;
}

describe('referrer URLs of a day that is over', () => {
  it('keeps the day’s top URLs and every converting one, folds the rest into (other), and keeps the totals, today and the hours exact', async () => {
    const { ws, click, byUrl, total } = await setup();
    const today = Math.floor(Date.now() / DAY) * DAY;
    const yesterday = today - DAY;
    const yDate = new Date(yesterday).toISOString().slice(0, 10);
    const tDate = new Date(today).toISOString().slice(0, 10);
    await storeClicks(t.database, dayOfClicks(click, yesterday, 4), () => undefined);
    // Today's clicks, as many URLs: the day is not over, nothing of it is cut.
    const todayClicks = dayOfClicks(click, today, 4).map((c) => ({ ...c, at: Math.min(c.at, Date.now() - 1) }));
    await storeClicks(t.database, todayClicks, () => undefined);
    // A lead on one of yesterday's least-clicked URLs (as conversion tracking adds it to the row).
    await t.database.db.execute(sql`UPDATE analytics_rollups SET leads = leads + 1
      WHERE workspace_id = ${ws.id}::uuid AND scope_id = ${ws.id}::uuid AND dim = 'referrer_url' AND level = 'd'
        AND bucket = ${new Date(yesterday).toISOString()}::timestamptz AND value = ${url(URLS_KEPT_PER_DAY + 3)}`);

    const before = await byUrl(yDate);
    expect(before).toHaveLength(URLS_KEPT_PER_DAY + 4);
    const dayTotal = await total(`startDate=${yDate}&endDate=${yDate}`);
    expect(dayTotal).toBe(2 * URLS_KEPT_PER_DAY + 4);
    const morning = `startDate=${yDate}T00:00:00Z&endDate=${yDate}T02:00:00Z&groupBy=referrer_url&take=5000`;
    const hoursBefore = (
      await (await t.inject({ method: 'GET', url: `/api/analytics?${morning}`, headers: { authorization: `Bearer ${ws.key}` } })).json<Row[]>()
    ).length;

    await t.runtime.maintain();

    const after = await byUrl(yDate);
    const keys = new Map(after.map((r) => [r.key, r]));
    expect(after).toHaveLength(URLS_KEPT_PER_DAY + 2);
    for (let i = 0; i < URLS_KEPT_PER_DAY; i++) expect(keys.get(url(i))?.clicks).toBe(2);
    expect(keys.get(OTHER_URLS)?.clicks).toBe(3);
    expect(keys.get(url(URLS_KEPT_PER_DAY + 3))).toMatchObject({ clicks: 1, leads: 1 });
    expect(keys.has(url(URLS_KEPT_PER_DAY))).toBe(false);
    expect(after.reduce((s, r) => s + r.clicks, 0)).toBe(dayTotal);
    expect(await total(`startDate=${yDate}&endDate=${yDate}`)).toBe(dayTotal);
    expect(await byUrl(tDate)).toHaveLength(URLS_KEPT_PER_DAY + 4);
    const hoursAfter = (
      await (await t.inject({ method: 'GET', url: `/api/analytics?${morning}`, headers: { authorization: `Bearer ${ws.key}` } })).json<Row[]>()
    ).length;
    expect(hoursAfter).toBe(hoursBefore);

    // A late batch of yesterday (a spool replayed after midnight): its new URL is cut at the next run.
    await storeClicks(t.database, [click(yesterday + 80_000_000, 'https://late.example/')], () => undefined);
    expect((await byUrl(yDate)).find((r) => r.key === 'https://late.example/')?.clicks).toBe(1);
    await t.runtime.maintain();
    const again = await byUrl(yDate);
    expect(again.find((r) => r.key === 'https://late.example/')).toBeUndefined();
    expect(again.find((r) => r.key === OTHER_URLS)?.clicks).toBe(4);
    expect(again.reduce((s, r) => s + r.clicks, 0)).toBe(dayTotal + 1);

    // A run with nothing marked changes nothing.
    await t.runtime.maintain();
    expect(await byUrl(yDate)).toEqual(again);
  }, 120_000);
});

describe('two instances maintaining at once', () => {
  it('share the marked days between them: each day is cut, its totals kept, and neither returns before the cuts are there', async () => {
    const { cutReferrerDays } = await import('../../../src/modules/clicks/referrer-days.js');
    const { click, byUrl, total } = await setup();
    // Several days marked, so that cutting them takes a while.
    const lastDay = Math.floor(Date.now() / DAY) * DAY - 2 * DAY;
    const dates = [6, 5, 4, 3, 2, 1, 0].map((back) => new Date(lastDay - back * DAY).toISOString().slice(0, 10));
    for (const date of dates) await storeClicks(t.database, dayOfClicks(click, Date.parse(date), 5), () => undefined);
    const totals = await Promise.all(dates.map((date) => total(`startDate=${date}&endDate=${date}`)));
    const isCut = async (date: string, dayTotal: number) => {
      const after = await byUrl(date);
      expect(after).toHaveLength(URLS_KEPT_PER_DAY + 1);
      expect(after.find((r) => r.key === OTHER_URLS)?.clicks).toBe(5);
      expect(after.reduce((s, r) => s + r.clicks, 0)).toBe(dayTotal);
    };
    const runs = [cutReferrerDays(t.database.db), cutReferrerDays(t.database.db), t.runtime.maintain()];
    await Promise.race(runs);
    await isCut(dates.at(-1)!, totals.at(-1)!);
    await Promise.all(runs);
    for (const [i, date] of dates.entries()) await isCut(date, totals[i]!);
  }, 120_000);
});

describe('a cut beside a batch of that day', () => {
  it('between the batch’s mark and its commit: the batch marks the day again after it, and the next run cuts it', async () => {
    const { cutReferrerDays } = await import('../../../src/modules/clicks/referrer-days.js');
    const { click, byUrl, total } = await setup();
    const date = new Date(Math.floor(Date.now() / DAY) * DAY - 3 * DAY).toISOString().slice(0, 10);
    // Another instance's maintenance runs right after this writer's mark, before its batch commits.
    const dialect = new PgDialect();
    let cuts = 0;
    const db = new Proxy(t.database.db, {
      get(target, key, receiver) {
        if (key !== 'execute') return Reflect.get(target, key, receiver);
        return async (query: SQL) => {
          const result = await target.execute(query);
          if (cuts === 0 && dialect.sqlToQuery(query).sql.includes('analytics_url_days')) {
            cuts++;
            await cutReferrerDays(t.database.db);
          }
          return result;
        };
      },
    });
    await storeClicks({ ...t.database, db }, dayOfClicks(click, Date.parse(date), 5), () => undefined);
    expect(cuts).toBe(1);
    expect(await byUrl(date)).toHaveLength(URLS_KEPT_PER_DAY + 5);

    await t.runtime.maintain();
    const after = await byUrl(date);
    expect(after).toHaveLength(URLS_KEPT_PER_DAY + 1);
    expect(after.reduce((s, r) => s + r.clicks, 0)).toBe(await total(`startDate=${date}&endDate=${date}`));
  }, 120_000);

  it.runIf(onPostgres)(
    'in an import’s transaction: the cut waits for it, leaves the mark, and the next run cuts the imported URL too',
    async () => {
      const { cutReferrerDays } = await import('../../../src/modules/clicks/referrer-days.js');
      const { insertImportedClicks } = await import('../../../src/modules/clicks/service.js');
      const { ws, click, byUrl, total } = await setup();
      const date = new Date(Math.floor(Date.now() / DAY) * DAY - 3 * DAY).toISOString().slice(0, 10);
      const clicks = dayOfClicks(click, Date.parse(date), 5);
      await storeClicks(t.database, clicks, () => undefined);
      const dayTotal = await total(`startDate=${date}&endDate=${date}`);
      const imported = {
        id: randomUUID(),
        linkId: clicks[0]!.linkId,
        partnerId: null,
        createdAt: new Date(Date.parse(date) + 7_200_000).toISOString(),
        country: 'DE',
        device: 'desktop' as const,
        browser: null,
        os: null,
        referrer: 'late.example',
        referrerUrl: 'https://late.example/',
        utmSource: null,
        utmMedium: null,
        utmCampaign: null,
        utmTerm: null,
        utmContent: null,
        trigger: 'link' as const,
      };
      let cut: Promise<unknown> | undefined;
      await t.database.db.transaction(async (tx) => {
        await insertImportedClicks({ ctx: { db: tx, workspace: { id: ws.id } } as Ctx, input: [imported] });
        cut = cutReferrerDays(t.database.db);
        // Until the cut waits for this transaction's mark (or is done: then it did not wait).
        await Promise.race([cut, waitingOnMark()]);
      });
      await cut;
      await cutReferrerDays(t.database.db);
      const after = await byUrl(date);
      expect(after.find((r) => r.key === 'https://late.example/')).toBeUndefined();
      expect(after).toHaveLength(URLS_KEPT_PER_DAY + 1);
      expect(after.find((r) => r.key === OTHER_URLS)?.clicks).toBe(6);
      expect(after.reduce((s, r) => s + r.clicks, 0)).toBe(dayTotal + 1);
    },
    120_000,
  );
});

/** Resolves once a statement on analytics_url_days waits for a lock. */
async function waitingOnMark(): Promise<void> {
  for (;;) {
    const waiting = await t.database.db.execute(sql`SELECT 1 FROM pg_stat_activity
      WHERE wait_event_type = 'Lock' AND query LIKE '%DELETE FROM analytics_url_days%'`);
    if ((waiting as unknown as { rows: unknown[] }).rows.length > 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('clickDays', () => {
  it('gives each (workspace, UTC day) of a batch once, whatever the order', async () => {
    const { clickDays } = await import('../../../src/modules/clicks/referrer-days.js');
    const fc = (await import('fast-check')).default;
    fc.assert(
      fc.property(
        fc.array(fc.record({ workspaceId: fc.constantFrom('a', 'b', 'c'), at: fc.integer({ min: 0, max: 5 * DAY }) }), { maxLength: 200 }),
        (clicks) => {
          const want = new Set(clicks.map((c) => `${c.workspaceId} ${Math.floor(c.at / DAY) * DAY}`));
          const got = clickDays(clicks).map((d) => `${d.workspaceId} ${d.day}`);
          expect(got.length).toBe(want.size);
          expect(new Set(got)).toEqual(want);
        },
      ),
    );
  });
});

describe('daysToTouch', () => {
  it('gives the days over, or over within ten minutes, and none of a day further from its end', async () => {
    const { daysToTouch } = await import('../../../src/modules/clicks/referrer-days.js');
    const fc = (await import('fast-check')).default;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: DAY - 1 }), (day, into) => {
        const now = 10 * DAY + into;
        const touched = daysToTouch([{ workspaceId: 'w', day: day * DAY }], now).length === 1;
        expect(touched).toBe(day * DAY + DAY - 600_000 <= now);
      }),
    );
    expect(daysToTouch([{ workspaceId: 'w', day: 10 * DAY }], 11 * DAY - 600_000)).toHaveLength(1);
    expect(daysToTouch([{ workspaceId: 'w', day: 10 * DAY }], 11 * DAY - 600_001)).toHaveLength(0);
  });
});
