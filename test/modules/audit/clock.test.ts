import { sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../helpers/app.js';
import { createUser, DAY_MS, loginRequest, mutableClock, ownedWorkspace, addMember, sessionCookieFrom } from '../people/helpers.js';
import { auditLog, changes } from './helpers.js';
import { dropFreshDatabases, freshDatabase } from '../../helpers/fresh-database.js';

/**
 * operations.md §15 with a clock: AUDIT_RETENTION_DAYS in the periodic maintenance, and the second
 * factor's sign-ins. The retention goes by the database's clock, so the test ages the rows there;
 * a database of its own: its maintenance deletes every entry older than 30 days, and the test
 * ages every row.
 */
const clock = mutableClock();
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ database: await freshDatabase(), clock: clock.now, env: { AUDIT_RETENTION_DAYS: '30' } });
});

afterAll(async () => {
  await t?.close();
  await dropFreshDatabases();
});

const signIns = async (cookie: string) =>
  (await t.inject({ method: 'GET', url: '/api/me/security-log', headers: { cookie } })).json<{ method: string; outcome: string; at: string }[]>();

/** Every entry and sign-in so far `days` older, in the database. */
async function age(days: number) {
  await t.database.db.execute(sql`UPDATE audit_entries SET at = at - make_interval(hours => ${days * 24}::int)`);
  await t.database.db.execute(sql`UPDATE sign_ins SET at = at - make_interval(hours => ${days * 24}::int)`);
}

describe('AUDIT_RETENTION_DAYS', () => {
  it("has the periodic maintenance delete entries and sign-ins older than the retention by the database's clock, and keep the rest", async () => {
    const { workspace, owner } = await ownedWorkspace(t);
    const old = await t.inject({ method: 'POST', url: '/api/tags', headers: bearer(workspace.key), payload: [{ name: 'old' }] });
    expect(old.statusCode).toBe(201);
    await age(20);
    await t.inject({ method: 'POST', url: '/api/tags', headers: bearer(workspace.key), payload: [{ name: 'recent' }] });
    const cookie = sessionCookieFrom(await loginRequest(t, owner.user.email, owner.user.password));
    expect((await changes(t, { ...owner, cookie }, workspace.id)).length).toBe(2);
    expect((await signIns(cookie)).length).toBe(2);

    await t.runtime.maintain();
    expect((await changes(t, { ...owner, cookie }, workspace.id)).length).toBe(2);

    // 31 days after the first entry and sign-in, 11 after the others: only the first go.
    await age(11);
    const again = sessionCookieFrom(await loginRequest(t, owner.user.email, owner.user.password));
    await t.runtime.maintain();
    const left = await changes(t, { ...owner, cookie: again }, workspace.id);
    expect(left).toHaveLength(1);
    expect(Date.parse(left[0]!.at)).toBe(clock.now().getTime() - 11 * DAY_MS);
    const mine = await signIns(again);
    expect(mine.map((s) => clock.now().getTime() - Date.parse(s.at))).toEqual([0, 11 * DAY_MS]);
    expect((await auditLog(t, { ...owner, cookie: again }, workspace.id)).map((e) => e.action)).toEqual([
      'sign_in.password.succeeded',
      'sign_in.password.succeeded',
      'tags.created',
    ]);
  });

  it('is a whole number of days from 1 (config)', async () => {
    const { loadConfig } = await import('../../../src/config.js');
    expect(() => loadConfig({ DATA_DIR: 'memory://', AUDIT_RETENTION_DAYS: '0' })).toThrow(/AUDIT_RETENTION_DAYS/);
    expect(() => loadConfig({ DATA_DIR: 'memory://', AUDIT_RETENTION_DAYS: '1.5' })).toThrow(/AUDIT_RETENTION_DAYS/);
    expect(loadConfig({ DATA_DIR: 'memory://' }).auditRetentionDays).toBe(365);
  });
});

describe('second-factor sign-ins', () => {
  const code = (secret: string) =>
    new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) }).generate({ timestamp: clock.now().getTime() });
  const mfaPair = (res: LightMyRequestResponse) =>
    [res.headers['set-cookie'] ?? []]
      .flat()
      .find((c) => /^(__Host-)?lt_mfa=/.test(c))!
      .split(';')[0]!;

  it('records the password step, a wrong code and the right one, in the security log and the workspace’s log', async () => {
    const { workspace, owner } = await ownedWorkspace(t);
    const user = await createUser(t);
    await addMember(t, workspace.id, user.id, 'member');
    const session = sessionCookieFrom(await loginRequest(t, user.email, user.password));
    const as = (method: 'POST', url: string, payload: object) => t.inject({ method, url, headers: { cookie: session }, payload });
    const { secret } = (await as('POST', '/api/me/mfa/totp', { password: user.password })).json<{ secret: string }>();
    expect((await as('POST', '/api/me/mfa/totp/confirm', { code: code(secret) })).statusCode).toBe(200);
    clock.advance(60_000);

    const mfa = mfaPair(await loginRequest(t, user.email, user.password));
    const second = (value: string) =>
      t.inject({ method: 'POST', url: '/api/auth/mfa', headers: { cookie: mfa, 'user-agent': 'Phone/1' }, payload: { code: value } });
    const right = code(secret);
    const wrong = right === '000000' ? '111111' : '000000';
    expect((await second(wrong)).statusCode).toBe(401);
    const ok = await second(right);
    expect(ok.statusCode, ok.body).toBe(200);
    const mine = await signIns(sessionCookieFrom(ok));
    expect(mine.slice(0, 4).map((s) => `${s.method} ${s.outcome}`)).toEqual([
      'totp succeeded',
      'totp failed',
      'password second_factor_required',
      'password succeeded',
    ]);
    const theirs = await auditLog(t, owner, workspace.id, `actor=${user.id}`);
    expect(theirs.map((e) => e.action)).toEqual([
      'sign_in.totp.succeeded',
      'sign_in.totp.failed',
      'sign_in.password.second_factor_required',
      'sign_in.password.succeeded',
    ]);
    expect(theirs[0]!.userAgent).toBe('Phone/1');
  });
});
