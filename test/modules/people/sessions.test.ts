/**
 * Sessions through HTTP, the way the dashboard calls (operations.md §7): the first user made
 * with the logged setup URL, sign-in, expiry by the injected clock, sign-out, password change,
 * ending a listed session, and login throttling that delays and refuses but never locks.
 * Runs on PGlite, and on PostgreSQL + Redis when DATABASE_URL / REDIS_URL are set.
 */
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { users } from '../../../src/db/schema.js';
import { createRuntime } from '../../../src/runtime.js';
import { migratedPglite } from '../../helpers/migrated-pglite.js';
import { onPostgres, testRuntimeOptions, startTestApp, testConfig, type TestApp } from '../../helpers/app.js';
import { asSession, COOKIE_NAME, createUser, expectError, login, loginRequest, mutableClock, PASSWORD, sessionCookieFrom, uniqueEmail } from './helpers.js';

type Session = { id: string; createdAt: string; lastSeenAt: string; userAgent: string | null; current: boolean };

/** An address no other test or run uses, so shared (Redis) failure counts never meet. */
const randomAddress = () => `10.${[...randomBytes(3)].join('.')}`;

/** A pino logger writing JSON lines into memory, to read what the server logged at start. */
function memoryLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  const setupUrls = () => lines.filter((l) => 'setupUrl' in l).map((l) => String(l.setupUrl));
  return { logger, lines, setupUrls };
}

/**
 * A database nobody has used: PGlite in memory, or on PostgreSQL a new database made with
 * CREATE DATABASE beside the test one (the shared one already has users, so setup is refused there).
 */
async function freshDatabase(): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  if (!onPostgres) return { env: {}, drop: async () => undefined };
  const name = `lt_setup_${randomBytes(6).toString('hex')}`;
  const adminUrl = process.env.DATABASE_URL!;
  const run = async (statement: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await run(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { env: { DATABASE_URL: url.toString() }, drop: () => run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

const sessionsOf = async (t: Pick<TestApp, 'inject'>, cookie: string) => {
  const res = await asSession(t as TestApp, cookie, 'GET', '/api/me/sessions');
  expect(res.statusCode, res.body).toBe(200);
  return res.json<Session[]>();
};

const me = (t: Pick<TestApp, 'inject'>, cookie: string) => asSession(t as TestApp, cookie, 'GET', '/api/me');

// Each test starts a runtime on a fresh database (on PostgreSQL, migrations included).
describe('first-user setup', { timeout: 180_000 }, () => {
  const owner = { email: uniqueEmail('first'), name: 'First Person', password: 'the first of us all, setting up' };

  /**
   * Each test's own first start: a fresh database nobody has an account in, the runtime on it,
   * and the setup code it logged. `close` ends the runtime (once) and drops the database.
   */
  async function firstRun() {
    const fresh = await freshDatabase();
    const config = testConfig(fresh.env);
    // A restart on PGlite in memory must see the same data: both runtimes share one database
    // (made from the migrated template: nobody has an account in it yet).
    const shared = onPostgres ? undefined : await migratedPglite();
    const log = memoryLogger();
    const first = await createRuntime(config, { logger: log.logger, database: shared, ...testRuntimeOptions() });
    await first.app.ready();
    let closed = false;
    const closeFirst = async () => {
      if (!closed) await first.close();
      closed = true;
    };
    const code = new URL(log.setupUrls()[0] ?? 'https://none/').searchParams.get('code') ?? '';
    const setup = (body: Record<string, unknown>) => first.app.inject({ method: 'POST', url: '/api/setup', payload: body });
    return {
      first,
      log,
      code,
      setup,
      /** The first user, made with the right code. */
      made: () => setup({ ...owner, workspaceName: 'First workspace', code }),
      restart: async () => {
        await closeFirst();
        const again = memoryLogger();
        return { runtime: await createRuntime(config, { logger: again.logger, database: shared, ...testRuntimeOptions() }), log: again };
      },
      close: async () => {
        await closeFirst();
        await shared?.close();
        await fresh.drop();
      },
    };
  }
  const onFirstRun = async (test: (run: Awaited<ReturnType<typeof firstRun>>) => Promise<void>) => {
    const run = await firstRun();
    try {
      await test(run);
    } finally {
      await run.close();
    }
  };

  test('the server logs one setup URL at start: BASE_URL/app/setup?code=…', () =>
    onFirstRun(async ({ log, code }) => {
      const urls = log.setupUrls();
      expect(urls).toHaveLength(1);
      const url = new URL(urls[0]!);
      expect(`${url.origin}${url.pathname}`).toBe('https://lt.test/app/setup');
      expect(code.length).toBeGreaterThanOrEqual(20);
    }));

  test('GET /api/setup, public, answers only that setup is needed while nobody has an account', () =>
    onFirstRun(async ({ first }) => {
      const res = await first.app.inject({ method: 'GET', url: '/api/setup' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ needed: true });
    }));

  test('a wrong code is refused (400 naming `code`) while no user exists, and makes nobody', () =>
    onFirstRun(async ({ first, setup }) => {
      const res = await setup({ ...owner, workspaceName: 'Mine', code: randomBytes(24).toString('base64url') });
      expectError(res, 400, 'invalid_field');
      expect(res.json<{ error: { en: string } }>().error.en).toMatch(/^Invalid code:/);
      expect(res.headers['set-cookie']).toBeUndefined();
      expect(await first.database.db.select().from(users)).toHaveLength(0);
    }));

  test('the right code: 201, a cookie, and GET /api/me shows the enterprise workspace as owner', () =>
    onFirstRun(async ({ first, made }) => {
      const res = await made();
      expect(res.statusCode, res.body).toBe(201);
      const body = res.json<{ user: Record<string, unknown>; workspace: { id: string; name: string; plan: string } }>();
      expect(Object.keys(body.user).sort()).toEqual(['createdAt', 'email', 'id', 'name']);
      expect(body.user.email).toBe(owner.email);
      expect(body.workspace).toMatchObject({ name: 'First workspace', plan: 'enterprise' });
      const ownerCookie = sessionCookieFrom(res);
      expect(ownerCookie.startsWith(`${COOKIE_NAME}=`)).toBe(true);

      const who = await me(first.app, ownerCookie);
      expect(who.statusCode, who.body).toBe(200);
      expect(who.json()).toEqual({
        user: body.user,
        workspaces: [
          {
            id: body.workspace.id,
            name: 'First workspace',
            plan: 'enterprise',
            role: 'owner',
            scopes: [
              'linksRead',
              'linksWrite',
              'collectionsRead',
              'collectionsWrite',
              'tagsRead',
              'tagsWrite',
              'analyticsRead',
              'conversionsWrite',
              'customersRead',
              'customersWrite',
              'partnersRead',
              'partnersWrite',
              'webhooksRead',
              'webhooksWrite',
              'programsRead',
              'programsWrite',
            ],
            features: ['expiration', 'password', 'cloaking', 'deviceTargeting', 'geoTargeting'],
            maxBulkItems: 10_000,
            requireMfa: false,
          },
        ],
        partnerPrograms: [],
        secondFactor: false,
        scopeEndpoints: expect.objectContaining({ linksRead: 'GET /api/links', conversionsWrite: 'POST /api/track/lead, POST /api/track/sale' }),
      });
    }));

  test('once the first user exists, GET /api/setup answers needed: false', () =>
    onFirstRun(async ({ first, made }) => {
      expect((await made()).statusCode).toBe(201);
      const res = await first.app.inject({ method: 'GET', url: '/api/setup' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ needed: false });
    }));

  test('the same code a second time: 400 naming `code`, and no second user', () =>
    onFirstRun(async ({ first, made, setup, code }) => {
      expect((await made()).statusCode).toBe(201);
      const res = await setup({ ...owner, email: uniqueEmail('second'), workspaceName: 'Another', code });
      expectError(res, 400, 'invalid_field');
      expect(res.json<{ error: { en: string } }>().error.en).toMatch(/^Invalid code:/);
      expect(res.headers['set-cookie']).toBeUndefined();
      expect(await first.database.db.select().from(users)).toHaveLength(1);
    }));

  test('after a user exists, a restart logs no setup URL (and the account is still there)', () =>
    onFirstRun(async ({ made, restart }) => {
      expect((await made()).statusCode).toBe(201);
      const { runtime: second, log: again } = await restart();
      try {
        await second.app.ready();
        expect(again.setupUrls()).toEqual([]);
        expect(again.lines.some((l) => String(l.msg).includes('setup'))).toBe(false);
        const res = await second.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: owner.email, password: owner.password } });
        expect(res.statusCode, res.body).toBe(200);
      } finally {
        await second.close();
      }
    }));
});

describe('login', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const attempt = (email: string, password: string, remoteAddress: string) =>
    t.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password }, remoteAddress });

  test('the right password: 200 {user} with the session cookie, and no hash anywhere in the answer', async () => {
    const user = await createUser(t, { name: 'Signs In' });
    const res = await loginRequest(t, user.email, user.password);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<{ user: Record<string, unknown> }>();
    expect(Object.keys(body)).toEqual(['user']);
    expect(body.user).toEqual({ id: user.id, email: user.email, name: 'Signs In', createdAt: expect.any(String) });
    const [row] = await t.database.db.select({ hash: users.passwordHash }).from(users).where(eq(users.id, user.id));
    expect(row!.hash).toMatch(/^\$argon2id\$/);
    const whole = JSON.stringify(res.headers) + res.body;
    expect(whole).not.toContain(row!.hash);
    expect(whole).not.toContain(row!.hash.split('$').at(-1)!);
    expect(whole).not.toContain('argon2');
    expect(whole).not.toContain(user.password);
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(new RegExp(`^${COOKIE_NAME}=[A-Za-z0-9_-]{43}; Path=/; HttpOnly; SameSite=Lax; Secure; Max-Age=604800$`));
    expect((await me(t, sessionCookieFrom(res))).statusCode).toBe(200);
  });

  test('a wrong password and an unknown email get the same 401 body, and no cookie', async () => {
    const user = await createUser(t);
    const address = randomAddress();
    const wrong = await attempt(user.email, `${user.password}!`, address);
    const unknown = await attempt(uniqueEmail('nobody'), user.password, address);
    expectError(wrong, 401, 'login_failed');
    expectError(unknown, 401, 'login_failed');
    expect(unknown.body).toBe(wrong.body);
    expect(wrong.headers['set-cookie']).toBeUndefined();
    expect(unknown.headers['set-cookie']).toBeUndefined();
  });

  test('the email is matched ignoring case', async () => {
    const user = await createUser(t, { email: uniqueEmail('MixedCase') });
    for (const email of [user.email.toUpperCase(), user.email.toLowerCase()]) {
      const res = await loginRequest(t, email, user.password);
      expect(res.statusCode, `${email}: ${res.body}`).toBe(200);
      expect(res.json<{ user: { id: string } }>().user.id).toBe(user.id);
    }
  });

  test('every login makes a new session; `current` marks the one asking', async () => {
    const user = await createUser(t);
    const a = await login(t, user);
    const b = await login(t, user);
    expect(a).not.toBe(b);
    const seenByA = await sessionsOf(t, a);
    const seenByB = await sessionsOf(t, b);
    expect(seenByA).toHaveLength(2);
    expect(seenByA.filter((s) => s.current)).toHaveLength(1);
    expect(seenByB.filter((s) => s.current)).toHaveLength(1);
    const currentA = seenByA.find((s) => s.current)!.id;
    const currentB = seenByB.find((s) => s.current)!.id;
    expect(currentA).not.toBe(currentB);
    expect(seenByB.map((s) => s.id).sort()).toEqual(seenByA.map((s) => s.id).sort());
    // Oldest first: A signed in first.
    expect(seenByA.map((s) => s.id)).toEqual([currentA, currentB]);
  });
});

describe('session expiry (SESSION_IDLE=30m, SESSION_MAX=2h, injected clock)', () => {
  const MIN = 60_000;
  const clock = mutableClock(new Date('2031-05-01T08:00:00Z'));
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ clock: clock.now, env: { SESSION_IDLE: '30m', SESSION_MAX: '2h' } });
  });
  afterAll(() => t.close());

  test('unused for more than 30 minutes: 401 credential_expired', async () => {
    const cookie = await login(t, await createUser(t));
    expect((await me(t, cookie)).statusCode).toBe(200);
    clock.advance(29 * MIN);
    expect((await me(t, cookie)).statusCode).toBe(200);
    clock.advance(30 * MIN + 1000);
    expectError(await me(t, cookie), 401, 'credential_expired');
  });

  /**
   * A use is written by the session-seen batch (every 5 s of real time) while a cached session
   * is reloaded after 60 s of the request clock: the reload must count the use this instance
   * recorded and has not written yet, or a session used at 20 min would be "idle" at 40.
   */
  test('used every 20 minutes it lives 2 hours, not a minute more', async () => {
    const cookie = await login(t, await createUser(t));
    for (let minutes = 20; minutes <= 120; minutes += 20) {
      clock.advance(20 * MIN);
      const res = await me(t, cookie);
      expect(res.statusCode, `at ${minutes} min: ${res.body}`).toBe(200);
    }
    clock.advance(MIN);
    expectError(await me(t, cookie), 401, 'credential_expired');
  });

  test('used every 20 minutes (its last use written out each time) it lives 2 hours, not a minute more', async () => {
    const cookie = await login(t, await createUser(t));
    for (let minutes = 20; minutes <= 120; minutes += 20) {
      clock.advance(20 * MIN);
      const res = await me(t, cookie);
      expect(res.statusCode, `at ${minutes} min: ${res.body}`).toBe(200);
      // GET /api/me/sessions writes the batched last uses (and is itself a use at the same time).
      const [only] = await sessionsOf(t, cookie);
      expect(only!.lastSeenAt).toBe(clock.now().toISOString());
    }
    clock.advance(MIN);
    expectError(await me(t, cookie), 401, 'credential_expired');
  });
});

describe('logout, password change, ending a session', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  test('logout: 204, the cookie cleared; that session is 401 after, another of the same user still works', async () => {
    const user = await createUser(t);
    const leaving = await login(t, user);
    const staying = await login(t, user);
    expect((await me(t, leaving)).statusCode).toBe(200); // cached before the logout
    const res = await asSession(t, leaving, 'POST', '/api/auth/logout');
    expect(res.statusCode, res.body).toBe(204);
    expect(String(res.headers['set-cookie'])).toMatch(new RegExp(`^${COOKIE_NAME}=; Path=/; HttpOnly; SameSite=Lax; Secure; Max-Age=0$`));
    expectError(await me(t, leaving), 401, 'credential_revoked');
    expectError(await asSession(t, leaving, 'POST', '/api/auth/logout'), 401, 'credential_revoked');
    expect((await me(t, staying)).statusCode).toBe(200);
    expect(await sessionsOf(t, staying)).toHaveLength(1);
  });

  test('a password change ends the other sessions and keeps this one; only the new password signs in', async () => {
    const user = await createUser(t);
    const changing = await login(t, user);
    const other = await login(t, user);
    expect((await me(t, other)).statusCode).toBe(200);
    const newPassword = `another long phrase ${randomBytes(4).toString('hex')}`;
    const res = await asSession(t, changing, 'PATCH', '/api/me', { password: newPassword, currentPassword: user.password });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ id: user.id, email: user.email, name: user.name, createdAt: expect.any(String) });
    expectError(await me(t, other), 401, 'credential_revoked');
    expect((await me(t, changing)).statusCode).toBe(200);
    expect((await sessionsOf(t, changing)).map((s) => s.current)).toEqual([true]);

    const address = randomAddress();
    const old = await t.inject({ method: 'POST', url: '/api/auth/login', payload: { email: user.email, password: user.password }, remoteAddress: address });
    expectError(old, 401, 'login_failed');
    const fresh = await t.inject({ method: 'POST', url: '/api/auth/login', payload: { email: user.email, password: newPassword }, remoteAddress: address });
    expect(fresh.statusCode, fresh.body).toBe(200);
  });

  test('a wrong currentPassword changes nothing (400 naming currentPassword)', async () => {
    const user = await createUser(t);
    const cookie = await login(t, user);
    const other = await login(t, user);
    // From an address of its own: a wrong current password counts as a failed sign-in there.
    const res = await t.inject({
      method: 'PATCH',
      url: '/api/me',
      headers: { cookie },
      remoteAddress: randomAddress(),
      payload: { password: 'a different long phrase', currentPassword: `${PASSWORD}?` },
    });
    expectError(res, 400, 'invalid_field', 'currentPassword');
    expect((await me(t, other)).statusCode).toBe(200);
    expect((await loginRequest(t, user.email, user.password)).statusCode).toBe(200);
  });

  test('DELETE /api/me/sessions/{id} ends that session only; another user cannot end it', async () => {
    const user = await createUser(t);
    const keeper = await login(t, user);
    const ended = await login(t, user);
    expect((await me(t, ended)).statusCode).toBe(200);
    const endedId = (await sessionsOf(t, ended)).find((s) => s.current)!.id;

    const stranger = await login(t, await createUser(t));
    expectError(await asSession(t, stranger, 'DELETE', `/api/me/sessions/${endedId}`), 404, 'not_found');
    expect((await me(t, ended)).statusCode).toBe(200);

    const res = await asSession(t, keeper, 'DELETE', `/api/me/sessions/${endedId}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ deletedIds: [endedId] });
    expectError(await me(t, ended), 401, 'credential_revoked');
    expect((await me(t, keeper)).statusCode).toBe(200);
    expect((await sessionsOf(t, keeper)).map((s) => s.id)).not.toContain(endedId);
  });
});

describe('login throttling (never a locked account)', () => {
  let t: TestApp;
  /** The waits the throttle asked for, in order: recorded instead of slept (their real time: npm run bench timing). */
  const waits: number[] = [];
  beforeAll(async () => {
    t = await startTestApp({ env: { TRUST_PROXY: 'true' }, loginWait: async (ms) => void waits.push(ms) });
  });
  afterAll(() => t.close());

  const from = (address: string, email: string, password: string) =>
    t.inject({ method: 'POST', url: '/api/auth/login', headers: { 'x-forwarded-for': address }, payload: { email, password } });

  test('10 wrong passwords from one address: the 11th from there is 429 even when right; from elsewhere the right password signs in', async () => {
    const user = await createUser(t);
    const attacker = randomAddress();
    for (let i = 1; i <= 10; i++) expectError(await from(attacker, user.email, `wrong guess number ${i}`), 401, 'login_failed');
    // Paced by growing delays before attempts 4 to 10 (their schedule in full: test/http/login-throttle.test.ts).
    expect(waits).toEqual([250, 500, 1000, 2000, 4000, 4000, 4000]);

    const refused = await from(attacker, user.email, user.password);
    expectError(refused, 429, 'login_throttled');
    const { retryAfter } = refused.json<{ retryAfter: number }>();
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    expect(refused.headers['retry-after']).toBe(String(retryAfter));
    expect(refused.headers['set-cookie']).toBeUndefined();

    const owner = await from(randomAddress(), user.email, user.password);
    expect(owner.statusCode, owner.body).toBe(200);
    expect((await me(t, sessionCookieFrom(owner))).statusCode).toBe(200);
  });
});
