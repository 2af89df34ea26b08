/**
 * `npm pack` yields a package that works when installed elsewhere (operations.md §16): the
 * SDK built and packed, installed offline in an empty folder (it has no dependency), then
 * used by plain Node against the live service — pages, a typed error, and a real webhook
 * delivery verified with the package's verifyWebhook — and compiled against by TypeScript
 * through its `exports` types.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { dropFreshDatabases, freshDatabase } from '../../helpers/fresh-database.js';
import { startLiveServer, type LiveServer } from './live.js';

const run = promisify(execFile);
const SDK_DIR = fileURLToPath(new URL('../../../packages/sdk/', import.meta.url));
const TSC = fileURLToPath(new URL('../../../node_modules/typescript/bin/tsc', import.meta.url));
const USE = fileURLToPath(new URL('./packed/use.mjs', import.meta.url));

let live: LiveServer;
let folder: string;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'linktrail-sdk-'));
  const [server] = await Promise.all([
    // This app delivers webhooks: a database of its own, so it claims no other file's deliveries.
    freshDatabase().then((database) => startLiveServer({ database, env: { WEBHOOK_DELIVERY: 'true', WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8' } })),
    // prepack builds dist/ first.
    run('npm', ['pack', '--silent', '--pack-destination', folder], { cwd: SDK_DIR }),
  ]);
  live = server;
  const tarball = readdirSync(folder).find((f) => f.endsWith('.tgz'))!;
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--silent', join(folder, tarball)], { cwd: folder });
}, 120_000);

afterAll(async () => {
  await live?.close();
  await dropFreshDatabases();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

it('the installed package pages, fails with a typed error, and verifies a real delivery', async () => {
  const ws = await live.t.workspace({ rateLimitPerMinute: 1_000_000 });
  copyFileSync(USE, join(folder, 'use.mjs'));
  const { stdout } = await run('node', ['use.mjs', live.baseUrl, ws.key], { cwd: folder, timeout: 30_000 });
  expect(JSON.parse(stdout)).toEqual({
    urls: ['https://shop.example/1', 'https://shop.example/2', 'https://shop.example/3'],
    refused: { status: 400, code: 'invalid_field', field: '[0].url' },
    event: { type: 'webhook.test', webhookId: true },
    forged: 'webhook_signature_mismatch',
  });
});

it('TypeScript finds the types through `exports` and checks calls against the document', async () => {
  writeFileSync(
    join(folder, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'], types: [] },
      files: ['typed.ts'],
    }),
  );
  writeFileSync(
    join(folder, 'typed.ts'),
    `import { Linktrail, LinktrailError, verifyWebhook, type ChunkedWrite, type Link, type WebhookEvent } from '@linktrail/sdk';
const client = new Linktrail({ apiKey: 'key', baseUrl: 'https://links.example' });
export async function use(): Promise<string[]> {
  const seen: string[] = [];
  for await (const link of client.links.list({ sort: 'asc', pageSize: 500 })) seen.push(link.shortUrl);
  const chunked: ChunkedWrite<Link[]> = await client.links.create([{ url: 'https://shop.example', collectionId: 'c' }], { chunk: true });
  const links: Link[] = await client.links.create([{ url: 'https://shop.example', collectionId: 'c' }]);
  const event: WebhookEvent = await verifyWebhook('{}', new Headers(), 'whsec_AAAA');
  if (event.type === 'link.created') seen.push(event.data.url);
  // @ts-expect-error url is required
  await client.links.create([{ collectionId: 'c' }]);
  // @ts-expect-error not a sort order
  client.links.list({ sort: 'newest' });
  const error = new LinktrailError({ status: 400, code: 'x', en: 'x', ar: 'x' });
  return [...seen, String(chunked.ok), String(links.length), String(error.limit ?? error.missingScopes.length)];
}
`,
  );
  await run('node', [TSC, '-p', 'tsconfig.json'], { cwd: folder });
});
