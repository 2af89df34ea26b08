import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { run } from '../../src/cli/main.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../helpers/app.js';

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
    await expect(cli('key', 'revoke', '00000000-0000-4000-8000-000000000000')).rejects.toThrow(/Not found/);
    await expect(cli('workspace', 'create')).rejects.toThrow(/--name/);
    await expect(run(['workspace', 'list', '--url', url], { ADMIN_TOKEN: 'wrong-token-0123456789' }, () => {})).rejects.toThrow(
      /operator token/,
    );
  });
});
