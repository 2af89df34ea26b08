/**
 * `npm pack` of @linktrail/analytics yields a package that works installed elsewhere, as the
 * SDK's does: built and packed, installed offline in an empty folder (no dependency), used by
 * plain Node against a minimal document (inject adds one script with the data attributes of its
 * options, once), and compiled against by TypeScript through its `exports` types.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';

const run = promisify(execFile);
const DIR = fileURLToPath(new URL('../../../packages/analytics/', import.meta.url));
const TSC = fileURLToPath(new URL('../../../node_modules/typescript/bin/tsc', import.meta.url));
let folder: string;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'linktrail-analytics-'));
  await run('npm', ['pack', '--silent', '--pack-destination', folder], { cwd: DIR });
  const tarball = readdirSync(folder).find((f) => f.endsWith('.tgz'))!;
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--silent', join(folder, tarball)], { cwd: folder });
}, 120_000);

afterAll(() => {
  if (folder) rmSync(folder, { recursive: true, force: true });
});

it('inject adds the script once, with the options as data attributes', async () => {
  writeFileSync(
    join(folder, 'use.mjs'),
    `const added = [];
const element = () => ({ attrs: {}, setAttribute(n, v) { this.attrs[n] = v; } });
globalThis.document = {
  head: { appendChild: (e) => added.push(e) },
  createElement: () => element(),
  querySelector: () => added[0] ?? null,
};
const { inject, linktrail } = await import('@linktrail/analytics');
const options = { apiHost: 'https://links.example/', publishableKey: 'lt_pk_x', attribution: 'first-click', attributionDays: 30,
  cookieDomain: 'shop.example', outboundDomains: ['checkout.example', 'pay.example'], queryParams: ['via', 'ref'] };
const first = inject(options);
const second = inject(options);
console.log(JSON.stringify({ count: added.length, same: first === second, src: first.src, defer: first.defer, attrs: first.attrs, linktrail: linktrail() ?? null }));
`,
  );
  const { stdout } = await run('node', ['use.mjs'], { cwd: folder, timeout: 30_000 });
  expect(JSON.parse(stdout)).toEqual({
    count: 1,
    same: true,
    src: 'https://links.example/attribution.js',
    defer: true,
    attrs: {
      'data-linktrail': '',
      'data-api-host': 'https://links.example',
      'data-publishable-key': 'lt_pk_x',
      'data-query-params': 'via,ref',
      'data-attribution': 'first-click',
      'data-attribution-days': '30',
      'data-cookie-domain': 'shop.example',
      'data-outbound-domains': 'checkout.example,pay.example',
    },
    linktrail: null,
  });
});

it('TypeScript finds the types through `exports` and checks the options', async () => {
  writeFileSync(
    join(folder, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'], types: [] },
      files: ['typed.ts'],
    }),
  );
  writeFileSync(
    join(folder, 'typed.ts'),
    `import { inject, linktrail, type AnalyticsOptions } from '@linktrail/analytics';
const options: AnalyticsOptions = { apiHost: 'https://links.example', publishableKey: 'lt_pk_x', outboundDomains: ['checkout.example'] };
inject(options);
export async function signUp(): Promise<void> {
  await linktrail()?.trackLead({ eventName: 'Sign up', customerExternalId: 'u1', customerName: 'Ada' });
  // @ts-expect-error customerName is required
  await linktrail()?.trackLead({ eventName: 'Sign up', customerExternalId: 'u1' });
}
// @ts-expect-error not an attribution model
inject({ apiHost: 'https://links.example', attribution: 'linear' });
`,
  );
  await run('node', [TSC, '-p', 'tsconfig.json'], { cwd: folder });
});
