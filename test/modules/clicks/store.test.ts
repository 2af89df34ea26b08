import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { newId } from '../../../src/db/ids.js';
import { enrichClick, type RawClick } from '../../../src/modules/clicks/record.js';
import { HOT_LINK_CLICKS_PER_DAY, storeClicks } from '../../../src/modules/clicks/store.js';
import { bearer, startTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

async function aLink() {
  const ws = await t.workspace();
  const [c] = (await t.inject({ method: 'POST', url: '/api/collections', headers: bearer(ws.key), payload: [{ name: 'c' }] })).json();
  const [link] = (
    await t.inject({ method: 'POST', url: '/api/links', headers: bearer(ws.key), payload: [{ url: 'https://example.com/', collectionId: c.id }] })
  ).json();
  return { workspaceId: ws.id, linkId: link.id as string };
}

const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';
const click = (workspaceId: string, linkId: string, referer: string | undefined): RawClick => ({
  id: newId(),
  workspaceId,
  linkId,
  partnerId: null,
  at: Date.now(),
  ip: '127.0.0.1',
  userAgent: CHROME,
  referer,
  country: 'GB',
});
const noLookup = () => undefined;

describe('click batches (COPY on PostgreSQL, JSON on the embedded engine)', () => {
  test('store every value exactly, including tabs, newlines, backslashes, unicode and nulls', async () => {
    const { workspaceId, linkId } = await aLink();
    const tricky = [
      'https://a.example/?q=tab\there',
      'https://a.example/line\nbreak\r\n',
      'https://a.example/back\\slash \\N \\t',
      'https://a.example/café ☕ 𝄞',
      undefined,
    ];
    const batch = tricky.map((r, i) => ({
      ...click(workspaceId, linkId, r),
      // UTM values come from visitors' query strings too: any text, NUL removed, 255 characters at most.
      ...(i % 2 === 0 ? { utm: { source: r ?? 'x', medium: 'e\0mail', campaign: 'c'.repeat(300), content: '\\N' }, trigger: 'qr' as const } : {}),
      // A click of an A/B test keeps its test and variant (operations.md §20).
      ...(i === 1 ? { testId: newId(), variant: 2 } : {}),
    }));
    await storeClicks(t.database, batch, noLookup);
    const stored = await rows<{ id: string; createdAt: Date; referrerUrl: string | null }>(
      t.database.db,
      sql`SELECT id, workspace_id AS "workspaceId", link_id AS "linkId", partner_id AS "partnerId", created_at AS "createdAt",
                 country, device, browser, os, referrer, referrer_url AS "referrerUrl", bot, utm_source AS "utmSource",
                 utm_medium AS "utmMedium", utm_campaign AS "utmCampaign", utm_term AS "utmTerm", utm_content AS "utmContent", trigger, region, city,
                 test_id AS "testId", variant
          FROM clicks WHERE link_id = ${linkId}`,
    );
    expect(stored).toHaveLength(batch.length);
    const byId = new Map(stored.map((r) => [r.id, { ...r, createdAt: new Date(r.createdAt).toISOString() }]));
    for (const c of batch) {
      expect(byId.get(c.id)).toEqual(enrichClick(c, noLookup));
      expect(byId.get(c.id)?.referrerUrl).toBe(c.referer ?? null);
      if (c.utm)
        expect(byId.get(c.id)).toMatchObject({
          utmSource: c.utm.source,
          utmMedium: 'email',
          utmCampaign: 'c'.repeat(255),
          utmTerm: null,
          utmContent: '\\N',
          trigger: 'qr',
        });
    }
  });

  test('a batch written twice (a retry after an unclear failure) is stored once, without error', async () => {
    const { workspaceId, linkId } = await aLink();
    const batch = [click(workspaceId, linkId, undefined), click(workspaceId, linkId, 'https://r.example/')];
    await storeClicks(t.database, batch, noLookup);
    await storeClicks(t.database, batch, noLookup);
    const counted = await rows<{ n: number }>(t.database.db, sql`SELECT count(*)::int AS n FROM clicks WHERE link_id = ${linkId}`);
    expect(counted[0]?.n).toBe(2);
  });

  test('a batch mixing stored and new clicks (a spool replay) stores and counts only the new ones', async () => {
    const { workspaceId, linkId } = await aLink();
    const first = Array.from({ length: 10 }, (_, i) => click(workspaceId, linkId, i % 2 ? 'https://r.example/' : undefined));
    await storeClicks(t.database, first, noLookup);
    // On PostgreSQL the first batch went straight into clicks; this one fails there on a stored key and is written through staging.
    const mixed = [...first.slice(0, 6), ...Array.from({ length: 5 }, () => click(workspaceId, linkId, undefined))];
    await storeClicks(t.database, mixed, noLookup);
    const stored = await rows<{ n: number }>(t.database.db, sql`SELECT count(*)::int AS n FROM clicks WHERE link_id = ${linkId}`);
    expect(stored[0]?.n).toBe(15);
    const counted = await rows<{ level: string; clicks: number }>(
      t.database.db,
      sql`SELECT level::text, sum(clicks)::int AS clicks FROM analytics_rollups WHERE scope_id = ${linkId}::uuid AND dim = '' GROUP BY 1 ORDER BY 1`,
    );
    expect(counted).toEqual([
      { level: 'd', clicks: 15 },
      { level: 'h', clicks: 15 },
    ]);
  });

  test('a batch larger than one COPY chunk is stored whole', async () => {
    const { workspaceId, linkId } = await aLink();
    const batch = Array.from({ length: 1201 }, (_, i) => click(workspaceId, linkId, `https://r.example/${i}`));
    await storeClicks(t.database, batch, noLookup);
    const counted = await rows<{ n: number }>(t.database.db, sql`SELECT count(DISTINCT referrer_url)::int AS n FROM clicks WHERE link_id = ${linkId}`);
    expect(counted[0]?.n).toBe(1201);
  });

  test('a link past HOT_LINK_CLICKS_PER_DAY in a day keeps its dimensions in rollups from a midnight at least an hour away', async () => {
    const busy = await aLink();
    const quiet = await aLink();
    const before = Date.now();
    await storeClicks(
      t.database,
      Array.from({ length: HOT_LINK_CLICKS_PER_DAY }, () => click(busy.workspaceId, busy.linkId, undefined)),
      noLookup,
    );
    await storeClicks(
      t.database,
      Array.from({ length: 20 }, () => click(quiet.workspaceId, quiet.linkId, undefined)),
      noLookup,
    );
    const hot = await rows<{ link: string; from: Date; urlsFrom: Date; placesFrom: Date }>(
      t.database.db,
      sql`SELECT link_id::text AS link, dims_from AS "from", urls_from AS "urlsFrom", places_from AS "placesFrom" FROM analytics_hot_links WHERE link_id IN (${busy.linkId}::uuid, ${quiet.linkId}::uuid)`,
    );
    expect(hot.map((h) => h.link)).toEqual([busy.linkId]);
    // Its referrer URLs and places join the rollups with its other dimensions.
    expect(new Date(hot[0]!.urlsFrom).getTime()).toBe(new Date(hot[0]!.from).getTime());
    expect(new Date(hot[0]!.placesFrom).getTime()).toBe(new Date(hot[0]!.from).getTime());
    const from = new Date(hot[0]!.from).getTime();
    expect(from % 86_400_000).toBe(0);
    expect(from).toBeGreaterThanOrEqual(before + 3_600_000);
    expect(from).toBeLessThanOrEqual(Date.now() + 3_600_000 + 86_400_000);
    // Its clicks of today stay raw-only: no dimension rows before dims_from.
    const dimRows = await rows<{ n: number }>(
      t.database.db,
      sql`SELECT count(*)::int AS n FROM analytics_rollups WHERE scope_id = ${busy.linkId}::uuid AND dim <> ''`,
    );
    expect(dimRows[0]!.n).toBe(0);
  });

  test('batches written at once (several instances) over the same links all land, each click counted once in the rollups', async () => {
    const a = await aLink();
    const b = await aLink();
    const batches = Array.from({ length: 6 }, (_, i) =>
      Array.from({ length: 300 }, (_, j) => click(a.workspaceId, (i + j) % 2 ? a.linkId : b.linkId, j % 3 ? `https://r${j % 7}.example/` : undefined)),
    );
    // Same rows, same slot (one process): the writers queue on them in key order and never deadlock.
    await Promise.all(batches.map((batch) => storeClicks(t.database, batch, noLookup)));
    const counted = await rows<{ level: string; dim: string; clicks: number }>(
      t.database.db,
      sql`SELECT level::text, dim, sum(clicks)::int AS clicks FROM analytics_rollups WHERE workspace_id = ${a.workspaceId}::uuid AND scope_id = workspace_id
          AND dim IN ('', 'referrer') GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    const human = 6 * 300;
    expect(counted).toEqual([
      { level: 'd', dim: '', clicks: human },
      { level: 'd', dim: 'referrer', clicks: human },
      { level: 'h', dim: '', clicks: human },
      { level: 'h', dim: 'referrer', clicks: human },
      { level: 'm', dim: 'referrer', clicks: human },
      { level: 'q', dim: '', clicks: human },
    ]);
  });
});

describe("click_visitors: what the fraud rules keep of partners' human clicks for 24 hours", () => {
  const BOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
  const kept = (workspaceId: string) =>
    rows<{ clickId: string; createdAt: string; visitor: string; network: string }>(
      t.database.db,
      sql`SELECT click_id AS "clickId", created_at AS "createdAt", visitor::text AS visitor, network::text AS network
          FROM click_visitors WHERE workspace_id = ${workspaceId}::uuid`,
    );

  test("written with the batch, for partners' human clicks only, once however often the batch is written; gone after 24 hours", async () => {
    const { workspaceId, linkId } = await aLink();
    const partnerId = newId();
    const at = Date.now();
    const visit = (ip: string, userAgent = CHROME, partner: string | null = partnerId, ms = at): RawClick => ({
      ...click(workspaceId, linkId, undefined),
      partnerId: partner,
      ip,
      userAgent,
      at: ms,
    });
    const batch = [
      visit('203.0.113.7'),
      visit('203.0.113.7'),
      visit('203.0.113.99'),
      visit('198.51.100.7'),
      visit('2001:db8:abcd:1::1'),
      visit('2001:db8:abcd:2::1'),
      visit('203.0.113.7', BOT),
      visit('203.0.113.7', CHROME, null),
    ];
    await storeClicks(t.database, batch, noLookup);
    // Written again (a retry: through staging on PostgreSQL): nothing added.
    await storeClicks(t.database, batch, noLookup);
    const byId = new Map((await kept(workspaceId)).map((r) => [r.clickId, r]));
    expect([...byId.keys()].sort()).toEqual(
      batch
        .slice(0, 6)
        .map((c) => c.id)
        .sort(),
    );
    const [a, b, c, d, e, f] = batch.map((x) => byId.get(x.id)!);
    expect(new Date(a!.createdAt).getTime()).toBe(at);
    // One address and agent: one visitor and network; another address of its /24: its network only; another /24: neither.
    expect([b!.visitor, b!.network]).toEqual([a!.visitor, a!.network]);
    expect([c!.visitor === a!.visitor, c!.network]).toEqual([false, a!.network]);
    expect([d!.visitor === a!.visitor, d!.network === a!.network]).toEqual([false, false]);
    expect(e!.network).toBe(f!.network);
    expect(e!.visitor).not.toBe(f!.visitor);
    expect(e!.network).not.toBe(a!.network);

    // A click of 25 hours ago keeps its row until the clicks' maintenance job runs.
    const old = visit('203.0.113.8', CHROME, partnerId, at - 25 * 3_600_000);
    await storeClicks(t.database, [old], noLookup);
    expect((await kept(workspaceId)).map((r) => r.clickId)).toContain(old.id);
    await t.runtime.maintain();
    const left = (await kept(workspaceId)).map((r) => r.clickId);
    expect(left).not.toContain(old.id);
    expect(left).toHaveLength(6);
  });
});
