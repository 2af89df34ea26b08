/**
 * `linktrail import` and `linktrail export` (operations.md §13, issue 25) as a user runs them:
 * child processes against a listening server, through the operator routes. Import follows the
 * job with a progress bar on a terminal (a pseudo-terminal from util-linux `script`) and plain
 * lines otherwise, exits 1 naming the errors CSV when rows were rejected; export streams the
 * workspace to stdout, byte for byte what GET /api/export gives.
 */
import { execFile, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ADMIN_TOKEN, bearer, startTestApp, type TestApp } from '../helpers/app.js';
import { ROOT } from '../helpers/process.js';
import { fixtureWithFreshHosts } from '../modules/imports/job-helpers.js';

let t: TestApp;
let url: string;
let dir: string;
beforeAll(async () => {
  t = await startTestApp();
  await t.runtime.app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(t.runtime.app.server.address() as AddressInfo).port}`;
  dir = mkdtempSync(join(tmpdir(), 'lt-cli-transfer-'));
});
afterAll(() => t.close());

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

const CLI = ['--import', 'tsx', join(ROOT, 'src/cli/main.ts')];
const ENV = { PATH: process.env.PATH, HOME: process.env.HOME, ADMIN_TOKEN };

/** `linktrail …` with stdout and stderr piped (no terminal). */
function linktrail(args: string[]): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...CLI, ...args, '--url', url], { cwd: ROOT, env: ENV, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** `linktrail …` on a pseudo-terminal: stdout and stderr both reach the terminal, read here as one text. */
function onTerminal(args: string[]): Promise<{ code: number; screen: string }> {
  const quoted = [process.execPath, ...CLI, ...args, '--url', url].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return new Promise((resolve) => {
    execFile('script', ['-q', '-e', '-c', quoted, '/dev/null'], { cwd: ROOT, env: { ...ENV, TERM: 'xterm', COLUMNS: '160' }, timeout: 60_000 }, (err, stdout) =>
      resolve({ code: err ? Number(err.code ?? 1) : 0, screen: stdout }),
    );
  });
}

/** `linktrail …` with stdout going to a file, as `> file` does. */
function toFile(args: string[], path: string): Promise<Ran> {
  const fd = openSync(path, 'w');
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...CLI, ...args, '--url', url], { cwd: ROOT, env: ENV, stdio: ['ignore', fd, 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => {
      closeSync(fd);
      resolve({ code: code ?? 1, stdout: readFileSync(path, 'utf8'), stderr });
    });
  });
}

function bitlyFile(): string {
  const path = join(dir, `bitly-${Math.random().toString(36).slice(2)}.csv`);
  writeFileSync(path, fixtureWithFreshHosts('bitly.csv', ['brand.link', 'bit.ly']).file);
  return path;
}

describe('linktrail import', () => {
  test('without a terminal: a progress line as rows are done, the outcome, exit 1 with the rejected rows saved by --errors', async () => {
    const ws = await t.workspace();
    const errors = join(dir, 'errors.csv');
    const run = await linktrail(['import', bitlyFile(), '--workspace', ws.id, '--source', 'bitly', '--collection', 'From Bitly', '--errors', errors]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/^importing: 5 of 5 rows \(100%\): 3 created, 0 updated, 0 unchanged, 2 failed$/m);
    expect(run.stderr).not.toContain('\u001b[');
    expect(run.stdout).toMatch(/^import [0-9a-f-]{36} done: 5 rows: 3 created, 0 updated, 0 unchanged, 2 failed\n$/);
    expect(run.stderr).toContain(`linktrail: 2 of 5 rows were rejected; their reasons are in ${errors}`);
    const rows = parse(readFileSync(errors, 'utf8'), { relax_column_count: true }) as string[][];
    expect(rows[0]!.slice(0, 4)).toEqual(['line', 'field', 'reason', 'error']);
    expect(rows.slice(1).map((r) => r[2])).toEqual(['http_not_upgraded', 'duplicate_in_file']);

    const links = await t.inject({ method: 'GET', url: '/api/links?take=100', headers: bearer(ws.key) });
    expect(links.json<unknown[]>()).toHaveLength(3);
  });

  test('without --errors, the failure says where the errors CSV is', async () => {
    const ws = await t.workspace();
    const run = await linktrail(['import', bitlyFile(), '--workspace', ws.id, '--source', 'bitly', '--collection', 'Spring', '--upgrade-http', '--json']);
    expect(run.code).toBe(1);
    const job = JSON.parse(run.stdout) as { id: string; created: number; failed: number };
    expect(job).toMatchObject({ created: 4, failed: 1 });
    expect(run.stderr).toContain(
      `linktrail: 1 of 5 rows were rejected; their reasons: add --errors FILE, or GET ${url}/admin/workspaces/${ws.id}/imports/${job.id}/errors`,
    );
  });

  test('on a terminal: a progress bar, then exit 0 when every row went in; again, every row unchanged', async () => {
    const ws = await t.workspace();
    const file = join(dir, 'clean.csv');
    writeFileSync(file, 'url,title,tags,collection\nhttps://example.com/a,A,"x,y",Spring\nhttps://example.com/b,B,y,Spring\nhttps://example.com/c,C,,Summer\n');
    const first = await onTerminal(['import', file, '--workspace', ws.id, '--source', 'csv']);
    expect(first.code, first.screen).toBe(0);
    // cli-progress's shades_classic bar, complete, with the counts beside it.
    expect(first.screen).toMatch(/importing \u2588{40} 100% \| 3\/3 rows \| 3 created, 0 updated, 0 unchanged, 0 failed/);
    expect(first.screen).toMatch(/import [0-9a-f-]{36} done: 3 rows: 3 created, 0 updated, 0 unchanged, 0 failed/);
    const again = await onTerminal(['import', file, '--workspace', ws.id, '--source', 'csv']);
    expect(again.code, again.screen).toBe(0);
    expect(again.screen).toMatch(/done: 3 rows: 0 created, 0 updated, 3 unchanged, 0 failed/);
  });

  test('a wrong command line is refused before any request (exit 2); a server refusal is put in words (exit 1)', async () => {
    const ws = await t.workspace();
    const file = bitlyFile();
    const cases: [string[], RegExp, number][] = [
      [['import', join(dir, 'missing.csv'), '--workspace', ws.id], /cannot read .*missing\.csv: ENOENT/, 2],
      [['import', file], /missing --workspace <workspaceId>/, 2],
      [['import', file, '--workspace', 'nope'], /workspace id \(--workspace\) must be a UUID: nope/, 2],
      [
        ['import', file, '--workspace', ws.id, '--source', 'tinyurl'],
        /--source must be one of bitly, dub, shlink, rebrandly, csv, linktrail, rewardful, partnerstack, firstpromoter, tolt, tapfiliate: tinyurl/,
        2,
      ],
      [['import', file, '--workspace', ws.id, '--mapping', '{"url":'], /--mapping must be a JSON object/, 2],
      [['import', '--workspace', ws.id], /missing <file>/, 2],
      [['export'], /missing --workspace <workspaceId>/, 2],
      // No collection column and no --collection: the server's 400, in its words.
      [['import', file, '--workspace', ws.id, '--source', 'bitly'], /^linktrail: .*collection/m, 1],
      [
        ['import', file, '--workspace', '00000000-0000-4000-8000-000000000000', '--source', 'bitly', '--collection', 'X'],
        /no workspace 00000000-0000-4000-8000-000000000000/,
        1,
      ],
      [['export', '--workspace', '00000000-0000-4000-8000-000000000000'], /no workspace 00000000-0000-4000-8000-000000000000/, 1],
    ];
    for (const [args, message, code] of cases) {
      const run = await linktrail(args);
      expect(run.stderr, args.join(' ')).toMatch(message);
      expect(run.stderr).not.toMatch(/at .*\.ts:\d+/);
      expect(run.code, args.join(' ')).toBe(code);
    }
  });
});

describe('linktrail export', () => {
  test('> file: every line a record that parses, the same bytes as GET /api/export, a count on stderr', async () => {
    const ws = await t.workspace();
    const imported = await linktrail(['import', bitlyFile(), '--workspace', ws.id, '--source', 'bitly', '--collection', 'From Bitly', '--upgrade-http']);
    expect(imported.stdout).toMatch(/4 created/);

    const path = join(dir, 'export.ndjson');
    const run = await toFile(['export', '--workspace', ws.id], path);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.endsWith('\n')).toBe(true);
    const records = run.stdout
      .slice(0, -1)
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; aliases?: string[] });
    const count = (type: string) => records.filter((r) => r.type === type).length;
    expect([count('collection'), count('tag'), count('link')]).toEqual([1, 5, 4]);
    expect(records.filter((r) => r.type === 'link').every((l) => Array.isArray(l.aliases))).toBe(true);
    expect(run.stderr).toBe(`linktrail: exported ${records.length} records\n`);

    const api = await t.inject({ method: 'GET', url: '/api/export', headers: bearer(ws.key) });
    expect(run.stdout).toBe(api.body);
  });
});
