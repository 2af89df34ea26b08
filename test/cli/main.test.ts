import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { run } from '../../src/cli/main.js';
import { SCOPES } from '../../src/core/scopes.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../helpers/app.js';
import { freePort, ROOT } from '../helpers/process.js';

let t: TestApp;
let url: string;
beforeAll(async () => {
  t = await startTestApp();
  await t.runtime.app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(t.runtime.app.server.address() as AddressInfo).port}`;
});
afterAll(() => t.close());

async function cli(...args: string[]): Promise<string> {
  let out = '';
  await run([...args, '--url', url], { ADMIN_TOKEN }, (s) => (out += s));
  return out;
}

/** The text of one column of a CLI table, in the row that starts with rowId. */
function cell(output: string, rowId: string, column: string): string {
  const [header = '', ...rows] = output.trimEnd().split('\n');
  const start = header.indexOf(column);
  expect(start, header).toBeGreaterThan(0);
  const end = header.slice(start + column.length).search(/\S/);
  const row = rows.find((r) => r.startsWith(rowId));
  expect(row, output).toBeDefined();
  return row!.slice(start, end < 0 ? undefined : start + column.length + end).trim();
}

describe('npx linktrail over the operator API', () => {
  test('workspace create, list and update, with --json for scripts', async () => {
    const ws = JSON.parse(await cli('workspace', 'create', '--name', 'Cli Co', '--plan', 'pro', '--json'));
    expect(ws).toMatchObject({ name: 'Cli Co', plan: 'pro', rateLimitPerMinute: 600, maxBulkItems: 1000 });
    const list = JSON.parse(await cli('workspace', 'list', '--json')) as { id: string }[];
    expect(list.map((w) => w.id)).toContain(ws.id);
    const updated = JSON.parse(await cli('workspace', 'update', ws.id, '--rate-limit', '42', '--plan', 'business', '--json'));
    expect(updated).toMatchObject({ plan: 'business', rateLimitPerMinute: 42, maxBulkItems: 10000 });
    const reset = JSON.parse(await cli('workspace', 'update', ws.id, '--rate-limit', 'default', '--json'));
    expect(reset.rateLimitPerMinute).toBe(3000);
    expect(await cli('workspace', 'list')).toMatch(/Cli Co\s+business/);
  });

  test('key create works at once, key list hides the secret, key revoke stops it', async () => {
    const ws = JSON.parse(await cli('workspace', 'create', '--name', 'Keys Co', '--json'));
    const key = JSON.parse(await cli('key', 'create', ws.id, '--name', 'ci', '--scopes', 'tagsRead,tagsWrite', '--json'));
    expect(key.key).toMatch(/^lt_/);
    expect(key.scopes).toEqual(['tagsRead', 'tagsWrite']);
    const ok = await t.inject({ method: 'GET', url: '/api/tags', headers: { 'x-api-key': key.key } });
    expect(ok.statusCode).toBe(200);

    const listed = await cli('key', 'list', ws.id);
    expect(listed).toContain(key.prefix);
    expect(listed).not.toContain(key.key);

    expect(JSON.parse(await cli('key', 'revoke', key.id, '--json'))).toEqual({ deletedIds: [key.id] });
    const denied = await t.inject({ method: 'GET', url: '/api/tags', headers: { 'x-api-key': key.key } });
    expect(denied.statusCode).toBe(401);

    // The list still shows the key, marked with the time it was revoked.
    const live = JSON.parse(await cli('key', 'create', ws.id, '--name', 'live', '--scopes', 'tagsRead', '--json'));
    const after = await cli('key', 'list', ws.id);
    expect(cell(after, key.id, 'revokedAt')).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
    expect(cell(after, live.id, 'revokedAt')).toBe('-');
  });

  test('errors are reported, not thrown raw', async () => {
    await expect(cli('key', 'revoke', '00000000-0000-4000-8000-000000000000')).rejects.toThrow(/^no key 00000000-0000-4000-8000-000000000000$/);
    await expect(cli('workspace', 'create')).rejects.toThrow(/--name/);
    await expect(run(['workspace', 'list', '--url', url], { ADMIN_TOKEN: 'wrong-token-0123456789' }, () => {})).rejects.toThrow(/operator token/);
  });
});

/** `linktrail …` as a user runs it: a child process (the TypeScript source through tsx). */
function linktrail(args: string[], env: Record<string, string> = { ADMIN_TOKEN }): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, timeout: 30_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('people from the CLI (operations.md §7)', () => {
  test('user create (password from LINKTRAIL_PASSWORD or stdin, never argv), user list, member add', async () => {
    const email = `cli-${randomUUID().slice(0, 8)}@example.com`;
    let out = '';
    await run(
      ['user', 'create', '--email', email, '--name', 'Cli User', '--json', '--url', url],
      { ADMIN_TOKEN, LINKTRAIL_PASSWORD: 'a long enough secret phrase' },
      (x) => (out += x),
    );
    const user = JSON.parse(out) as { id: string; email: string };
    expect(user.email).toBe(email);
    expect(out).not.toContain('secret phrase');

    let fromStdin = '';
    const other = `cli-${randomUUID().slice(0, 8)}@example.com`;
    await run(
      ['user', 'create', '--email', other, '--name', 'Stdin', '--password-stdin', '--json', '--url', url],
      { ADMIN_TOKEN },
      (x) => (fromStdin += x),
      async () => 'another long secret phrase\n',
    );
    expect(JSON.parse(fromStdin).email).toBe(other);

    await expect(run(['user', 'create', '--email', 'x@example.com', '--name', 'No', '--url', url], { ADMIN_TOKEN }, () => undefined)).rejects.toThrow(
      /LINKTRAIL_PASSWORD/,
    );

    const list = await cli('user', 'list');
    expect(cell(list, user.id, 'email')).toBe(email);

    const ws = JSON.parse(await cli('workspace', 'create', '--name', 'People Co', '--json')) as { id: string };
    const member = await cli('member', 'add', ws.id, '--user', user.id, '--role', 'viewer');
    expect(cell(member, ws.id, 'role')).toBe('viewer');
    await expect(cli('member', 'add', ws.id, '--user', user.id, '--role', 'boss')).rejects.toThrow(/--role must be one of owner, member, viewer/);
    await expect(cli('member', 'add', ws.id, '--user', 'nope', '--role', 'owner')).rejects.toThrow(/must be a UUID: nope/);
  });

  test('users reset-link prints a single-use link that sets a new password (operations.md §15, a server without mail)', async () => {
    const email = `reset-${randomUUID().slice(0, 8)}@example.com`;
    await run(
      ['user', 'create', '--email', email, '--name', 'Forgetful', '--url', url],
      { ADMIN_TOKEN, LINKTRAIL_PASSWORD: 'a long enough secret phrase' },
      () => undefined,
    );
    const out = await cli('users', 'reset-link', email);
    expect(out).toMatch(new RegExp(`^Password reset link for ${email} \\(single use, valid until .+\\):\\n`));
    const token = new URL(/\S+reset-password\?token=\S+/.exec(out)![0]).searchParams.get('token')!;
    const set = await t.inject({ method: 'POST', url: '/api/auth/password-reset/confirm', payload: { token, password: 'brand-new-passphrase-19' } });
    expect(set.statusCode, set.body).toBe(204);
    await expect(cli('users', 'reset-link', 'nobody-here@example.com')).rejects.toThrow(/no user with the email nobody-here@example.com/);
    await expect(cli('users', 'reset-link')).rejects.toThrow(/missing <email>/);
  });
});

describe('linktrail as a child process', () => {
  test('--help and key create --help list the sixteen scopes, each with what it allows', async () => {
    for (const args of [['--help'], ['key', 'create', '--help'], ['-h']]) {
      const { code, stdout } = await linktrail(args);
      expect(code, stdout).toBe(0);
      expect(SCOPES).toHaveLength(16);
      for (const scope of SCOPES) expect(stdout).toMatch(new RegExp(`^\\s+${scope}\\s+\\S.{8,}$`, 'm'));
    }
    const keyCreate = (await linktrail(['key', 'create', '--help'])).stdout;
    expect(keyCreate).toMatch(/key create <workspaceId>/);
    expect(keyCreate).not.toMatch(/workspace list/);
  });

  test('an argument that is not a UUID is refused before any request, naming the argument', async () => {
    // Nobody listens on this port: an answer about the argument proves no request was tried.
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    const cases: [string[], RegExp][] = [
      [['key', 'revoke', 'nope'], /^linktrail: key id must be a UUID: nope$/m],
      [['key', 'list', 'nope'], /^linktrail: workspace id must be a UUID: nope$/m],
      [['key', 'create', 'nope', '--name', 'k', '--all-scopes'], /^linktrail: workspace id must be a UUID: nope$/m],
      [['workspace', 'update', 'x y', '--name', 'n'], /^linktrail: workspace id must be a UUID: x y$/m],
      [['key', 'create', randomUUID(), '--name', 'k', '--scopes', 'tagsRead,linkRead'], /unknown scope "linkRead".*linksRead/s],
      [['workspace', 'create', '--name', 'n', '--plan', 'gold'], /plan must be one of free, pro, business, enterprise: gold/],
      [['key', 'create', randomUUID(), '--name', 'k', '--all-scopes', '--expires-at', 'tomorrow'], /--expires-at must be an ISO 8601 date-time.*: tomorrow/],
      [['workspace', 'update', randomUUID(), '--rate-limit', 'lots'], /--rate-limit must be a positive integer or "default": lots/],
      [['key', 'revoke'], /missing <keyId>/],
      [['key', 'explode'], /unknown command "key explode"/],
    ];
    for (const [args, message] of cases) {
      const { code, stdout, stderr } = await linktrail([...args, '--url', nowhere]);
      expect(stderr, args.join(' ')).toMatch(message);
      expect(stderr).not.toMatch(/cannot reach|Invalid query|at .*\.ts:\d+/);
      expect(code, args.join(' ')).toBe(2);
      expect(stdout).toBe('');
    }
  });

  test('a server answer is put in words: no key, no workspace, a wrong token, a refused body', async () => {
    const ghost = randomUUID();
    const revoke = await linktrail(['key', 'revoke', ghost, '--url', url]);
    expect(revoke.stderr).toBe(`linktrail: no key ${ghost}\n`);
    expect(revoke.code).toBe(1);
    const list = await linktrail(['key', 'list', ghost, '--url', url]);
    expect(list.stderr).toBe(`linktrail: no workspace ${ghost}\n`);
    const update = await linktrail(['workspace', 'update', ghost, '--name', 'n', '--url', url]);
    expect(update.stderr).toBe(`linktrail: no workspace ${ghost}\n`);

    const wrong = await linktrail(['workspace', 'list', '--url', url], { ADMIN_TOKEN: 'wrong-token-0123456789' });
    expect(wrong.stderr).toMatch(/^linktrail: .*operator token/);
    expect(wrong.code).toBe(1);

    // The server's message names the field the CLI cannot check itself.
    const long = await linktrail(['workspace', 'create', '--name', 'x'.repeat(300), '--url', url]);
    expect(long.stderr).toMatch(/^linktrail: .*name/);
    expect(long.code).toBe(1);

    const ok = await linktrail(['workspace', 'create', '--name', 'Child Co', '--json', '--url', url]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ name: 'Child Co' });
  });

  test('a server that is down, or not Linktrail, is named as such', async () => {
    const down = await linktrail(['workspace', 'list', '--url', `http://127.0.0.1:${await freePort()}`]);
    expect(down.stderr).toMatch(/^linktrail: cannot reach http:\/\/127\.0\.0\.1:\d+/);
    expect(down.code).toBe(1);
    // A proxy's HTML error page instead of the service.
    const proxy = createServer((_req, res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<html>Bad Gateway</html>'));
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const html = await linktrail(['workspace', 'list', '--url', `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`]);
      expect(html.stderr).toMatch(/^linktrail: http:\/\/127\.0\.0\.1:\d+ answered HTTP 502 with something that is not JSON/);
      expect(html.stderr).not.toMatch(/SyntaxError|Unexpected token/);
      expect(html.code).toBe(1);
    } finally {
      proxy.close();
    }
  });
});
