import { spawn, spawnSync } from 'node:child_process';
import { existsSync, realpathSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { MAIN, ensureBuilt, freePort, processEnv } from './helpers/process.js';

const GOOD_SECRET = 'a-secret-of-at-least-thirty-two-characters';

const tempDirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = realpathSync(await mkdtemp(join(tmpdir(), 'lt-config-')));
  tempDirs.push(dir);
  return dir;
}

afterAll(async () => {
  for (const dir of tempDirs) await rm(dir, { recursive: true, force: true });
});

/** Only the variables under test: nothing leaks in from the developer's environment. */
const load = (env: Record<string, string>) => loadConfig({ DATA_DIR: 'memory://', ...env });

describe('loadConfig defaults', () => {
  test('every default of operations.md §1', () => {
    const c = load({});
    expect(c.port).toBe(3000);
    expect(c.host).toBe('0.0.0.0');
    expect(c.baseUrl).toBe('http://localhost:3000');
    expect(c.shortLinkBaseUrl).toBe('http://localhost:3000');
    expect(c.databaseUrl).toBeUndefined();
    expect(c.redisUrl).toBeUndefined();
    expect(c.adminToken).toBeUndefined();
    expect(c.countryHeader).toBeUndefined();
    expect(c.clickIdParam).toBe('ltid');
    expect(c.logLevel).toBe('info');
    expect(c.trustProxy).toBe(false);
    expect(c.allowPrivateDestinations).toBe(false);
    expect(c.clickSpoolDir).toBeUndefined(); // nothing on disk with DATA_DIR memory://
    expect(c.clickSpoolSyncMs).toBe(100);
    expect(c.clickRetentionMonths).toBeUndefined(); // raw clicks kept forever
  });

  test('CLICK_RETENTION_MONTHS: whole months from 1 to 1200', () => {
    expect(load({ CLICK_RETENTION_MONTHS: '1' }).clickRetentionMonths).toBe(1);
    expect(load({ CLICK_RETENTION_MONTHS: '13' }).clickRetentionMonths).toBe(13);
    expect(load({ CLICK_RETENTION_MONTHS: '1200' }).clickRetentionMonths).toBe(1200);
  });

  test('the click spool lives in DATA_DIR/spool unless CLICK_SPOOL_DIR names another place or is off', async () => {
    const dir = await tempDir();
    expect(loadConfig({ DATA_DIR: dir }).clickSpoolDir).toBe(join(dir, 'spool'));
    expect(loadConfig({ DATA_DIR: dir, CLICK_SPOOL_DIR: join(dir, 'elsewhere') }).clickSpoolDir).toBe(join(dir, 'elsewhere'));
    expect(loadConfig({ DATA_DIR: dir, CLICK_SPOOL_DIR: 'off' }).clickSpoolDir).toBeUndefined();
    expect(loadConfig({ DATA_DIR: dir, CLICK_SPOOL_SYNC_MS: '0' }).clickSpoolSyncMs).toBe(0);
  });

  test('DATA_DIR defaults to ./data of the working directory', async () => {
    const dir = await tempDir();
    const before = process.cwd();
    process.chdir(dir);
    try {
      const c = loadConfig({});
      expect(c.dataDir).toBe(join(dir, 'data'));
      expect(existsSync(join(dir, 'data', 'secret'))).toBe(true);
    } finally {
      process.chdir(before);
    }
  });

  test('BASE_URL defaults from PORT; SHORT_LINK_BASE_URL defaults to BASE_URL', () => {
    expect(load({ PORT: '8080' }).baseUrl).toBe('http://localhost:8080');
    const c = load({ BASE_URL: 'https://links.example.com' });
    expect(c.baseUrl).toBe('https://links.example.com');
    expect(c.shortLinkBaseUrl).toBe('https://links.example.com');
    const both = load({ BASE_URL: 'https://api.example.com', SHORT_LINK_BASE_URL: 'https://go.example' });
    expect(both.baseUrl).toBe('https://api.example.com');
    expect(both.shortLinkBaseUrl).toBe('https://go.example');
  });

  test('a trailing slash on an origin is dropped, so `${SHORT_LINK_BASE_URL}/${shortId}` has one slash', () => {
    const c = load({ BASE_URL: 'https://api.example.com/', SHORT_LINK_BASE_URL: 'https://go.example/' });
    expect(c.baseUrl).toBe('https://api.example.com');
    expect(c.shortLinkBaseUrl).toBe('https://go.example');
  });

  test('valid values are taken', () => {
    const c = load({
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: 'postgresql://u:p@db.internal:5432/lt',
      SECRET: GOOD_SECRET,
      REDIS_URL: 'rediss://cache.internal:6380',
      ADMIN_TOKEN: '0123456789abcdef',
      TRUST_PROXY: 'true',
      COUNTRY_HEADER: 'CF-IPCountry',
      CLICK_ID_PARAM: 'click_id',
      LOG_LEVEL: 'debug',
      ALLOW_PRIVATE_DESTINATIONS: 'true',
    });
    expect(c).toMatchObject({
      port: 0,
      host: '127.0.0.1',
      databaseUrl: 'postgresql://u:p@db.internal:5432/lt',
      secret: GOOD_SECRET,
      redisUrl: 'rediss://cache.internal:6380',
      adminToken: '0123456789abcdef',
      trustProxy: true,
      countryHeader: 'cf-ipcountry',
      clickIdParam: 'click_id',
      logLevel: 'debug',
      allowPrivateDestinations: true,
    });
    expect(load({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
  });
});

describe('SECRET and DATA_DIR', () => {
  test("DATA_DIR 'memory://' keeps nothing on disk: a new secret every load", () => {
    const a = load({});
    const b = load({});
    expect(a.dataDir).toBe('memory://');
    expect(a.secret.length).toBeGreaterThanOrEqual(32);
    expect(b.secret.length).toBeGreaterThanOrEqual(32);
    expect(a.secret).not.toBe(b.secret);
    expect(existsSync(join(process.cwd(), 'memory:'))).toBe(false);
  });

  test('a generated secret is written once to DATA_DIR (owner-only) and kept across starts', async () => {
    const dir = await tempDir();
    const first = loadConfig({ DATA_DIR: dir });
    expect(first.dataDir).toBe(dir);
    expect(first.secret.length).toBeGreaterThanOrEqual(32);
    const file = join(dir, 'secret');
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const second = loadConfig({ DATA_DIR: dir });
    expect(second.secret).toBe(first.secret);
  });

  test('a DATA_DIR that does not exist yet is created', async () => {
    const dir = join(await tempDir(), 'nested', 'data');
    const c = loadConfig({ DATA_DIR: dir });
    expect(existsSync(join(dir, 'secret'))).toBe(true);
    expect(loadConfig({ DATA_DIR: dir }).secret).toBe(c.secret);
  });

  test('SECRET set: used as is, nothing generated', async () => {
    const dir = await tempDir();
    expect(loadConfig({ DATA_DIR: dir, SECRET: GOOD_SECRET }).secret).toBe(GOOD_SECRET);
    expect(existsSync(join(dir, 'secret'))).toBe(false);
  });
});

describe('bad values stop the start with a one-line message naming the variable', () => {
  const cases: [string, Record<string, string>, string][] = [
    ['PORT not a number', { PORT: 'abc' }, 'PORT'],
    ['PORT out of range', { PORT: '70000' }, 'PORT'],
    ['PORT negative', { PORT: '-1' }, 'PORT'],
    ['BASE_URL not a URL', { BASE_URL: 'notaurl' }, 'BASE_URL'],
    ['BASE_URL not http(s)', { BASE_URL: 'ftp://x' }, 'BASE_URL'],
    ['SHORT_LINK_BASE_URL not a URL', { SHORT_LINK_BASE_URL: 'go.example' }, 'SHORT_LINK_BASE_URL'],
    ['DATABASE_URL not postgres', { DATABASE_URL: 'mysql://x', SECRET: GOOD_SECRET }, 'DATABASE_URL'],
    ['REDIS_URL not redis', { REDIS_URL: 'http://x' }, 'REDIS_URL'],
    ['TRUST_PROXY not a boolean', { TRUST_PROXY: 'maybe' }, 'TRUST_PROXY'],
    ['ALLOW_PRIVATE_DESTINATIONS not a boolean', { ALLOW_PRIVATE_DESTINATIONS: 'sometimes' }, 'ALLOW_PRIVATE_DESTINATIONS'],
    ['LOG_LEVEL unknown', { LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    ['SECRET too short', { SECRET: 'short' }, 'SECRET'],
    ['DATABASE_URL set without SECRET', { DATABASE_URL: 'postgres://db.internal/lt' }, 'SECRET'],
    ['SECRET_PREVIOUS too short', { SECRET: GOOD_SECRET, SECRET_PREVIOUS: 'short' }, 'SECRET_PREVIOUS'],
    ['SECRET_PREVIOUS equal to SECRET', { SECRET: GOOD_SECRET, SECRET_PREVIOUS: GOOD_SECRET }, 'SECRET_PREVIOUS'],
    ['CLICK_ID_PARAM with spaces', { CLICK_ID_PARAM: 'click id' }, 'CLICK_ID_PARAM'],
    ['ADMIN_TOKEN too short', { ADMIN_TOKEN: 'short' }, 'ADMIN_TOKEN'],
    ['COUNTRY_HEADER not a header name', { COUNTRY_HEADER: 'cf ipcountry' }, 'COUNTRY_HEADER'],
    ['CLICK_SPOOL_SYNC_MS not a number', { CLICK_SPOOL_SYNC_MS: 'often' }, 'CLICK_SPOOL_SYNC_MS'],
    ['CLICK_SPOOL_SYNC_MS too large', { CLICK_SPOOL_SYNC_MS: '600000' }, 'CLICK_SPOOL_SYNC_MS'],
    ['CLICK_RETENTION_MONTHS zero', { CLICK_RETENTION_MONTHS: '0' }, 'CLICK_RETENTION_MONTHS'],
    ['CLICK_RETENTION_MONTHS not whole', { CLICK_RETENTION_MONTHS: '1.5' }, 'CLICK_RETENTION_MONTHS'],
    ['CLICK_RETENTION_MONTHS a duration', { CLICK_RETENTION_MONTHS: '6m' }, 'CLICK_RETENTION_MONTHS'],
    ['CLICK_RETENTION_MONTHS too large', { CLICK_RETENTION_MONTHS: '1201' }, 'CLICK_RETENTION_MONTHS'],
    ['SMTP_URL not smtp', { SMTP_URL: 'http://mail.example', MAIL_FROM: 'a@example.com' }, 'SMTP_URL'],
    ['SMTP_URL not a URL', { SMTP_URL: 'mail.example:25', MAIL_FROM: 'a@example.com' }, 'SMTP_URL'],
    ['SMTP_URL without MAIL_FROM', { SMTP_URL: 'smtp://mail.example:587' }, 'MAIL_FROM'],
    ['MAIL_FROM without SMTP_URL', { MAIL_FROM: 'a@example.com' }, 'MAIL_FROM'],
    ['MAIL_FROM not an address', { SMTP_URL: 'smtp://mail.example', MAIL_FROM: 'Linktrail' }, 'MAIL_FROM'],
    ['MAIL_RETRY_DELAYS not waits', { SMTP_URL: 'smtp://mail.example', MAIL_FROM: 'a@example.com', MAIL_RETRY_DELAYS: 'soon' }, 'MAIL_RETRY_DELAYS'],
  ];

  test.each(cases)('%s', (_label, env, variable) => {
    let caught: unknown;
    try {
      load(env);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const message = (caught as ConfigError).message;
    expect(message).toContain(variable);
    expect(message).not.toMatch(/[\r\n]/);
    expect(message.trim().length).toBeGreaterThan(variable.length);
  });

  test('mail: SMTP_URL with MAIL_FROM (an address or "Name <address>"); the password in the URL never echoed', () => {
    expect(load({}).mail).toBeUndefined();
    expect(load({ SMTP_URL: 'smtps://u:pw@mail.example:465', MAIL_FROM: 'Linktrail <links@example.com>' }).mail).toMatchObject({
      url: 'smtps://u:pw@mail.example:465',
      from: 'Linktrail <links@example.com>',
    });
    expect(() => load({ SMTP_URL: 'smtp://u:hunter2@mail.example', MAIL_FROM: 'nobody' })).toThrow(ConfigError);
    try {
      load({ SMTP_URL: 'ftp://u:hunter2@mail.example', MAIL_FROM: 'a@example.com' });
    } catch (err) {
      expect((err as Error).message).toMatch(/^Invalid configuration: SMTP_URL /);
      expect((err as Error).message).not.toContain('hunter2');
    }
  });

  test('the secret is never echoed in the message', () => {
    expect(() => load({ SECRET: 'hunter2-short' })).toThrow(ConfigError);
    try {
      load({ SECRET: 'hunter2-short' });
    } catch (err) {
      expect((err as Error).message).not.toContain('hunter2');
    }
    for (const previous of ['hunter2-short', GOOD_SECRET]) {
      expect(() => load({ SECRET: GOOD_SECRET, SECRET_PREVIOUS: previous })).toThrow(/^Invalid configuration: SECRET_PREVIOUS /);
      try {
        load({ SECRET: GOOD_SECRET, SECRET_PREVIOUS: previous });
      } catch (err) {
        expect((err as Error).message).not.toContain(previous);
      }
    }
  });

  test('SECRET_PREVIOUS: unset by default, taken as is when valid', () => {
    expect(load({ SECRET: GOOD_SECRET }).secretPrevious).toBeUndefined();
    const previous = 'the-secret-before-the-rotation-0123456789';
    expect(load({ SECRET: GOOD_SECRET, SECRET_PREVIOUS: previous }).secretPrevious).toBe(previous);
  });
});

// ---------------------------------------------------------------------------------------------
// The real process
// ---------------------------------------------------------------------------------------------

describe('node dist/main.js', () => {
  beforeAll(() => {
    ensureBuilt({ whenStale: false });
  });

  test('a bad value: exits non-zero with exactly one stderr line naming it', async () => {
    const cwd = await tempDir(); // no .env here, and nothing of the repository's
    const result = spawnSync(process.execPath, [MAIN], {
      cwd,
      env: processEnv({ PORT: 'abc', DATA_DIR: join(cwd, 'data') }),
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.error).toBeUndefined();
    expect(result.status).not.toBe(0);
    expect(result.status).not.toBeNull();
    const lines = result.stderr.split('\n').filter((l) => l.length > 0);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('PORT');
    expect(lines[0]).not.toMatch(/^\s+at /); // a message, not a stack trace
  });

  test('SECRET_PREVIOUS equal to SECRET: exits non-zero with one stderr line naming it, and not the secret', async () => {
    const cwd = await tempDir();
    const result = spawnSync(process.execPath, [MAIN], {
      cwd,
      env: processEnv({ SECRET: GOOD_SECRET, SECRET_PREVIOUS: GOOD_SECRET, DATA_DIR: join(cwd, 'data') }),
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.status).not.toBe(0);
    const lines = result.stderr.split('\n').filter((l) => l.length > 0);
    expect(lines).toEqual([expect.stringContaining('SECRET_PREVIOUS')]);
    expect(result.stderr).not.toContain(GOOD_SECRET);
  });

  test('starts on PGlite in DATA_DIR, answers /healthz, and exits 0 on SIGTERM', async () => {
    const cwd = await tempDir();
    const dataDir = join(cwd, 'data');
    const port = await freePort();
    const child = spawn(process.execPath, [MAIN], {
      cwd,
      env: processEnv({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal })),
    );
    let running = true;
    void exited.then(() => (running = false));

    try {
      // Bounded wait for the port to open (the first start creates the database).
      let health: Response | undefined;
      const deadline = Date.now() + 45_000;
      while (running && Date.now() < deadline) {
        try {
          health = await fetch(`http://127.0.0.1:${port}/healthz`);
          break;
        } catch {
          await new Promise((r) => setTimeout(r, 200));
        }
      }
      expect(health, `process output:\n${output}`).toBeDefined();
      expect(health!.status).toBe(200);
      expect(existsSync(join(dataDir, 'secret'))).toBe(true);

      child.kill('SIGTERM');
      const { code, signal } = await exited;
      expect(signal).toBeNull();
      expect(code).toBe(0);
    } finally {
      if (running) child.kill('SIGKILL');
    }
  });
});

describe('DB_PREPARED_STATEMENTS', () => {
  test('is on unless set off; anything else is refused by name', () => {
    expect(load({}).dbPreparedStatements).toBe(true);
    expect(load({ DB_PREPARED_STATEMENTS: 'on' }).dbPreparedStatements).toBe(true);
    expect(load({ DB_PREPARED_STATEMENTS: 'off' }).dbPreparedStatements).toBe(false);
    expect(() => load({ DB_PREPARED_STATEMENTS: 'no' })).toThrow(/^Invalid configuration: DB_PREPARED_STATEMENTS /);
  });
});
