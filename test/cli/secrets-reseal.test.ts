/**
 * Rotating SECRET (operations.md, rules before §11): link passwords sealed under the old
 * SECRET keep unlocking their links while it is SECRET_PREVIOUS, `linktrail secrets reseal`
 * (the CLI as a process, against the server over HTTP) moves every sealed value to the new
 * SECRET, and then the old one can go. Three restarts on one database; PGlite, and PostgreSQL +
 * Redis with DATABASE_URL/REDIS_URL (a database of its own: a reseal walks every row).
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Sealer, type SealPurpose } from '../../src/core/sealed.js';
import { SEALED_COLUMNS } from '../../src/core/sealed-columns.js';
import { rows, type Database } from '../../src/db/connect.js';
import { ADMIN_TOKEN, bearer, startTestApp, type TestApp } from '../helpers/app.js';
import { dropFreshDatabases, freshDatabase } from '../helpers/fresh-database.js';
import { sealV1 } from '../helpers/legacy-seal.js';
import { ROOT } from '../helpers/process.js';

const A = 'secret-A-0123456789-0123456789-0123456789';
const B = 'secret-B-0123456789-0123456789-0123456789';
const UNKNOWN = 'secret-C-nobody-knows-0123456789-01234567';

let database: Database;
let server: { t: TestApp; url: string } | undefined;

/** (Re)starts the service on the shared database with these secrets, listening on 127.0.0.1. */
async function restart(env: { SECRET: string; SECRET_PREVIOUS?: string }): Promise<TestApp> {
  await server?.t.close();
  const t = await startTestApp({ env, database });
  await t.runtime.app.listen({ port: 0, host: '127.0.0.1' });
  server = { t, url: `http://127.0.0.1:${(t.runtime.app.server.address() as AddressInfo).port}` };
  return t;
}

function linktrail(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), ...args, '--url', server!.url],
      { cwd: ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME, ADMIN_TOKEN }, timeout: 30_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** The row of a CLI table for table.column: [sealed, resealed, unopenable]. */
function counts(stdout: string, table: string, column: string): number[] {
  const line = stdout.split('\n').find((l) => new RegExp(`^${table}\\s+${column}\\s`).test(l));
  expect(line, stdout).toBeDefined();
  return line!.trim().split(/\s+/).slice(2).map(Number);
}

const sealedValues = (table: string, column: string) =>
  rows<{ id: string; sealed: string }>(
    database.db,
    sql`SELECT id::text AS id, ${sql.identifier(column)} AS sealed FROM ${sql.identifier(table)} WHERE ${sql.identifier(column)} IS NOT NULL`,
  );

interface Fixture {
  key: string;
  links: { id: string; shortUrl: string; password: string }[];
  unknownLinkId: string;
  endpointId: string;
}
let f: Fixture;

async function workspaceWithKey(t: TestApp): Promise<{ id: string; key: string; collectionId: string }> {
  const ws = await t.workspace({ plan: 'pro' });
  const made = await t.inject({ method: 'POST', url: '/api/collections', headers: bearer(ws.key), payload: [{ name: 'c' }] });
  return { id: ws.id, key: ws.key, collectionId: made.json<{ id: string }[]>()[0]!.id };
}

async function createLinks(t: TestApp, ws: { key: string; collectionId: string }, passwords: string[]) {
  const res = await t.inject({
    method: 'POST',
    url: '/api/links',
    headers: bearer(ws.key),
    payload: passwords.map((password, i) => ({ url: `https://vault.example/${i}-${randomUUID()}`, collectionId: ws.collectionId, password })),
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string; shortUrl: string; password: string }[]>();
}

/** The visitor's form post with `password`: 303 and a cookie that then forwards the GET. */
async function expectUnlocks(t: TestApp, link: { shortUrl: string; password: string }): Promise<void> {
  const path = new URL(link.shortUrl).pathname;
  const headers = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0' };
  const wrong = await t.inject({
    method: 'POST',
    url: path,
    headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'password=nope',
  });
  expect(wrong.statusCode).toBe(401);
  const right = await t.inject({
    method: 'POST',
    url: path,
    headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ password: link.password }).toString(),
  });
  expect(right.statusCode, right.body).toBe(303);
  const cookie = String(right.headers['set-cookie']).split(';')[0]!;
  const visit = await t.inject({ method: 'GET', url: path, headers: { ...headers, cookie } });
  expect(visit.statusCode).toBe(302);
  expect(String(visit.headers.location)).toMatch(/^https:\/\/vault\.example\//);
}

/** The API answers every password in plain, as it did when they were set. */
async function expectApiShowsPasswords(t: TestApp): Promise<void> {
  const res = await t.inject({ method: 'GET', url: '/api/links?take=100', headers: bearer(f.key) });
  expect(res.statusCode, res.body).toBe(200);
  const shown = new Map(res.json<{ id: string; password: string | null }[]>().map((l) => [l.id, l.password]));
  for (const link of f.links) expect(shown.get(link.id)).toBe(link.password);
}

beforeAll(async () => {
  database = await freshDatabase();
  const t = await restart({ SECRET: A });
  const ws = await workspaceWithKey(t);
  // Six passwords: more than one batch of the service's test below, all sealed under A.
  const links = await createLinks(t, ws, ['open sesame', 'correct horse', 'p', 'ümlaut ✓ 🔐', 'x'.repeat(100), 'legacy one']);
  // One as the first box sealed it (v1, before key ids), as older databases hold it.
  await database.db.execute(sql`UPDATE links SET password_sealed = ${sealV1(A, 'legacy one')} WHERE id = ${links[5]!.id}::uuid`);
  // A link of another workspace whose password is under a SECRET this service never had.
  const other = await workspaceWithKey(t);
  const [lost] = await createLinks(t, other, ['lost']);
  await database.db.execute(sql`UPDATE links SET password_sealed = ${new Sealer(UNKNOWN).seal('link-password', 'lost')} WHERE id = ${lost!.id}::uuid`);
  // A webhook endpoint with a current and a previous signing secret, sealed under A (no routes yet: SQL).
  const endpointId = randomUUID();
  const underA = new Sealer(A);
  await database.db.execute(sql`INSERT INTO webhook_endpoints (id, workspace_id, url, events, created_by, secret_sealed, previous_secret_sealed)
    VALUES (${endpointId}::uuid, ${ws.id}::uuid, 'https://hooks.example/in', ARRAY['link.created'], '{"type":"key","id":"k"}'::jsonb,
            ${underA.seal('webhook-secret', 'whsec_current')}, ${underA.seal('webhook-secret', 'whsec_previous')})`);
  f = { key: ws.key, links, unknownLinkId: lost!.id, endpointId };
  for (const link of links) await expectUnlocks(t, link);
  await expectApiShowsPasswords(t);
}, 180_000);

afterAll(async () => {
  await server?.t.close();
  await dropFreshDatabases();
});

describe('rotating SECRET with SECRET_PREVIOUS and `linktrail secrets reseal`', () => {
  test('SECRET=B with SECRET_PREVIOUS=A: every password still unlocks its link, and the API shows it as before', async () => {
    const t = await restart({ SECRET: B, SECRET_PREVIOUS: A });
    for (const link of f.links) await expectUnlocks(t, link);
    await expectApiShowsPasswords(t);
  });

  test('secrets reseal: a count per table and column, every value now under B, the unknown one reported and left; a second run moves nothing', async () => {
    const first = await linktrail(['secrets', 'reseal']);
    // The value under an unknown SECRET makes the run fail, after the whole report, naming it.
    expect(first.code, first.stderr).toBe(1);
    expect(first.stderr).toContain(`links.password_sealed: 1 (ids ${f.unknownLinkId})`);
    expect(counts(first.stdout, 'links', 'password_sealed')).toEqual([7, 6, 1]);
    expect(counts(first.stdout, 'webhook_endpoints', 'secret_sealed')).toEqual([1, 1, 0]);
    expect(counts(first.stdout, 'webhook_endpoints', 'previous_secret_sealed')).toEqual([1, 1, 0]);

    const underB = new Sealer(B);
    const plain = new Map(f.links.map((l) => [l.id, l.password]));
    for (const { id, sealed } of await sealedValues('links', 'password_sealed')) {
      if (id === f.unknownLinkId) continue;
      expect(underB.needsReseal('link-password', sealed)).toBe(false);
      expect(underB.open('link-password', sealed)).toBe(plain.get(id));
    }
    const [endpoint] = await rows<{ current: string; previous: string }>(
      database.db,
      sql`SELECT secret_sealed AS current, previous_secret_sealed AS previous FROM webhook_endpoints WHERE id = ${f.endpointId}::uuid`,
    );
    expect(underB.open('webhook-secret', endpoint!.current)).toBe('whsec_current');
    expect(underB.open('webhook-secret', endpoint!.previous)).toBe('whsec_previous');

    // The service goes on answering; the run is idempotent.
    expect((await server!.t.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    const again = await linktrail(['secrets', 'reseal', '--json']);
    expect(again.code).toBe(1);
    const report = JSON.parse(again.stdout) as {
      columns: { table: string; column: string; sealed: number; resealed: number; unopenable: number; unopenableIds: string[] }[];
    };
    expect(report.columns.map((c) => [c.table, c.column, c.sealed, c.resealed, c.unopenable])).toEqual([
      ['links', 'password_sealed', 7, 0, 1],
      ['webhook_endpoints', 'secret_sealed', 1, 0, 0],
      ['webhook_endpoints', 'previous_secret_sealed', 1, 0, 0],
      ['stripe_connections', 'secret_sealed', 0, 0, 0],
      ['webhook_events', 'body_sealed', 0, 0, 0],
      ['mail_outbox', 'message_sealed', 0, 0, 0],
      ['user_totp', 'seed_sealed', 0, 0, 0],
      ['sso_connections', 'client_secret_sealed', 0, 0, 0],
      ['partners', 'payout_details_sealed', 0, 0, 0],
      ['publishable_keys', 'key_sealed', 0, 0, 0],
    ]);
    expect(report.columns[0]!.unopenableIds).toEqual([f.unknownLinkId]);
  });

  test('SECRET=B without SECRET_PREVIOUS: every password still unlocks, the API shows them as before', async () => {
    const t = await restart({ SECRET: B });
    for (const link of f.links) await expectUnlocks(t, link);
    await expectApiShowsPasswords(t);
  });

  test('new passwords are sealed in the s2 form under the current SECRET', async () => {
    const t = server!.t;
    const res = await t.inject({ method: 'PUT', url: '/api/links', headers: bearer(f.key), payload: [{ id: f.links[0]!.id, password: 'rotated' }] });
    expect(res.statusCode, res.body).toBe(200);
    const [row] = await rows<{ sealed: string }>(database.db, sql`SELECT password_sealed AS sealed FROM links WHERE id = ${f.links[0]!.id}::uuid`);
    expect(row!.sealed).toMatch(/^s2\./);
    expect(new Sealer(B).needsReseal('link-password', row!.sealed)).toBe(false);
    f.links[0]!.password = 'rotated';
    await expectUnlocks(t, f.links[0]!);
  });
});

describe('the registry of sealed columns', () => {
  test('names every column of the database that holds sealed values (*_sealed), with its uuid id', async () => {
    const found = await rows<{ table: string; column: string }>(
      database.db,
      sql`SELECT table_name AS table, column_name AS column FROM information_schema.columns
          WHERE table_schema = current_schema() AND column_name LIKE '%\\_sealed' ORDER BY 1, 2`,
    );
    expect(found.length).toBeGreaterThan(0);
    expect(found.map((c) => `${c.table}.${c.column}`)).toEqual(SEALED_COLUMNS.map((c) => `${c.table}.${c.column}`).sort());
    const purposes: readonly SealPurpose[] = SEALED_COLUMNS.map((c) => c.purpose);
    expect(purposes).toContain('link-password');
  });
});
