/**
 * The periodic maintenance's sweeps compare with the database's clock (issue 42, "sweeps by the
 * database's clock"): a runtime whose clock runs five years ahead runs its maintenance (click
 * retention of one month, audit retention of one day) on the database another runtime, on the
 * real clock, is using, and the other's rows of a minute ago are all still there: password reset
 * links, wrong second-factor answers (those past a day by the database's clock go), audit entries
 * and sign-ins, today's visitor salt and visitor days, today's referrer-URL mark (the day is not
 * cut), this month's clicks. A database of their own: the maintenance
 * deletes what is old by the database's clock, other files' rows included.
 */
import { randomUUID } from 'node:crypto';
import { sql, type SQL } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import type { RawClick } from '../../../src/modules/clicks/record.js';
import { storeClicks } from '../../../src/modules/clicks/store.js';
import { utcDay } from '../../../src/modules/clicks/visitors.js';
import { operatorResetLink } from '../../../src/modules/password-reset/service.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { workspaceWithCollection } from '../../helpers/client.js';
import { dropFreshDatabases, freshDatabase } from '../../helpers/fresh-database.js';
import { DESKTOP } from '../../helpers/visitors.js';
import { createUser, ownedWorkspace } from '../people/helpers.js';

const YEARS_AHEAD = 5 * 365 * 86_400_000;
let live: TestApp;
let ahead: TestApp;

beforeAll(async () => {
  live = await startTestApp({ database: await freshDatabase() });
  ahead = await startTestApp({
    database: live.database,
    clock: () => new Date(Date.now() + YEARS_AHEAD),
    env: { CLICK_RETENTION_MONTHS: '1', AUDIT_RETENTION_DAYS: '1' },
  });
});

afterAll(async () => {
  await ahead?.close();
  await live?.close();
  await dropFreshDatabases();
});

const count = async (query: SQL) => (await rows<{ n: number }>(live.database.db, query))[0]!.n;

/** A click of now on a new link of a new workspace of the live runtime, written as its click writer does. */
async function clickNow(): Promise<RawClick> {
  const { ws, send, collectionId } = await workspaceWithCollection(live);
  const res = await send('POST', '/api/links', [{ url: 'https://example.com/', collectionId }]);
  expect(res.statusCode, res.body).toBe(201);
  const click: RawClick = {
    id: randomUUID(),
    workspaceId: ws.id,
    linkId: res.json<{ id: string }[]>()[0]!.id,
    partnerId: null,
    at: Date.now(),
    ip: '127.0.0.1',
    userAgent: DESKTOP,
    referer: 'https://news.example/story',
    country: 'GB',
  };
  await storeClicks(live.database, [click], () => undefined);
  return click;
}

describe("a runtime whose clock runs ahead runs its maintenance: nobody else's live rows go", () => {
  it('password reset links made a minute ago stay (forgetOldResets)', async () => {
    const user = await createUser(live);
    await operatorResetLink({ ctx: { db: live.database.db, now: new Date() }, input: { email: user.email }, deps: { baseUrl: 'https://lt.test' } });
    await ahead.runtime.maintain();
    expect(await count(sql`SELECT count(*)::int AS n FROM password_resets WHERE user_id = ${user.id}::uuid`)).toBe(1);
  });

  it("wrong second-factor answers of a minute ago stay; those past a day by the database's clock go (forgetOldFailures)", async () => {
    const user = await createUser(live);
    const failures = (age: string) =>
      count(
        sql`SELECT count(*)::int AS n FROM mfa_failures WHERE user_id = ${user.id}::uuid AND at > now() - ${age}::interval - interval '1 minute' AND at <= now() - ${age}::interval + interval '1 minute'`,
      );
    await live.database.db.execute(
      sql`INSERT INTO mfa_failures (user_id, at) SELECT ${user.id}::uuid, now() - a::interval FROM unnest(ARRAY['0 minutes', '23 hours', '25 hours', '30 days']) AS a`,
    );
    await ahead.runtime.maintain();
    expect({
      now: await failures('0 minutes'),
      hours23: await failures('23 hours'),
      hours25: await failures('25 hours'),
      days30: await failures('30 days'),
    }).toEqual({
      now: 1,
      hours23: 1,
      hours25: 0,
      days30: 0,
    });
  });

  it('audit entries and sign-ins of a minute ago stay (forgetOldAudit)', async () => {
    const { workspace, owner } = await ownedWorkspace(live);
    const entries = sql`SELECT count(*)::int AS n FROM audit_entries WHERE workspace_id = ${workspace.id}::uuid`;
    const signIns = sql`SELECT count(*)::int AS n FROM sign_ins WHERE user_id = ${owner.user.id}::uuid`;
    const before = { entries: await count(entries), signIns: await count(signIns) };
    expect(before.entries).toBeGreaterThan(0);
    expect(before.signIns).toBe(1);
    await ahead.runtime.maintain();
    expect({ entries: await count(entries), signIns: await count(signIns) }).toEqual(before);
  });

  it("today's visitor salt and visitor days stay (forgetPastVisitors)", async () => {
    const click = await clickNow();
    const today = utcDay(click.at);
    const salts = sql`SELECT count(*)::int AS n FROM visitor_salts WHERE day = ${today}::date`;
    const visitors = sql`SELECT count(*)::int AS n FROM visitor_days WHERE workspace_id = ${click.workspaceId}::uuid AND day = ${today}::date`;
    expect(await count(salts)).toBe(1);
    expect(await count(visitors)).toBeGreaterThan(0);
    await ahead.runtime.maintain();
    expect(await count(salts)).toBe(1);
    expect(await count(visitors)).toBeGreaterThan(0);
  });

  it("today's referrer URLs are not cut: the day's mark stays (cutReferrerDays)", async () => {
    const click = await clickNow();
    const mark = sql`SELECT count(*)::int AS n FROM analytics_url_days WHERE workspace_id = ${click.workspaceId}::uuid`;
    expect(await count(mark)).toBe(1);
    await ahead.runtime.maintain();
    expect(await count(mark)).toBe(1);
  });

  it("this month's clicks stay (CLICK_RETENTION_MONTHS)", async () => {
    const click = await clickNow();
    await ahead.runtime.maintain();
    expect(await count(sql`SELECT count(*)::int AS n FROM clicks WHERE id = ${click.id}::uuid`)).toBe(1);
  });
});
