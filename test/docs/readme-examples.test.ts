/**
 * Every ```ts example of README.md and packages/sdk/README.md, as a user would use it: the SDK
 * built by tsc into a temporary project's node_modules/@linktrail/sdk (its package.json and
 * dist, as `npm install` of the packed file lays it out), each example compiled there by tsc
 * (strict, NodeNext, Node's types) and run by Node against a live server. Only the server's
 * address differs from the text. The SDK README's examples after its quick start continue it
 * (`linktrail`, `collection`): each is compiled and run after the quick start, imports merged.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, bearer, type TestApp, type WorkspaceFixture } from '../helpers/app.js';
import { ROOT, freePort } from '../helpers/process.js';

const run = promisify(execFile);
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const SDK_DIR = join(ROOT, 'packages/sdk');

/** The fenced ```ts blocks of a file, in order. */
const tsBlocks = (file: string): string[] => [...readFileSync(join(ROOT, file), 'utf8').matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);

const SDK_IMPORT = /^import \{([^}]*)\} from '@linktrail\/sdk';\n/gm;

/** `first` then `block` as one module, their imports of the SDK merged into one. */
function continued(first: string, block: string): string {
  const names = new Set([...`${first}${block}`.matchAll(SDK_IMPORT)].flatMap((m) => m[1]!.split(',').map((n) => n.trim())));
  const body = `${first}\n${block}`.replace(SDK_IMPORT, '');
  return `import { ${[...names].join(', ')} } from '@linktrail/sdk';\n${body}`;
}

let t: TestApp;
let origin: string;
let project: string;
/** The file name of each example, in order: readme-1, sdk-1 (the quick start), sdk-2… */
const examples: { name: string; source: string }[] = [];

beforeAll(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  project = mkdtempSync(join(tmpdir(), 'lt-readme-ts-'));
  const installed = join(project, 'node_modules/@linktrail/sdk');
  mkdirSync(installed, { recursive: true });
  copyFileSync(join(SDK_DIR, 'package.json'), join(installed, 'package.json'));
  const [app] = await Promise.all([
    startTestApp({ env: { PORT: String(port), BASE_URL: origin } }),
    // Built apart from packages/sdk/dist, which the SDK's pack test rebuilds meanwhile.
    run('node', [TSC, '-p', join(SDK_DIR, 'tsconfig.json'), '--outDir', join(installed, 'dist')]),
  ]);
  t = app;
  await t.runtime.app.listen({ port, host: '127.0.0.1' });

  const root = tsBlocks('README.md');
  const sdk = tsBlocks('packages/sdk/README.md');
  expect(root).toHaveLength(1);
  expect(sdk.length).toBeGreaterThanOrEqual(6);
  const here = (code: string) => code.replaceAll("'http://localhost:3000'", `'${origin}'`).replaceAll("'https://links.example.com'", `'${origin}'`);
  examples.push({ name: 'readme-1', source: here(root[0]!) });
  sdk.forEach((block, i) => examples.push({ name: `sdk-${i + 1}`, source: here(i === 0 ? block : continued(sdk[0]!, block)) }));
  for (const e of examples) writeFileSync(join(project, `${e.name}.ts`), e.source);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        lib: ['es2022', 'dom'],
        types: ['node'],
        typeRoots: [join(ROOT, 'node_modules/@types')],
        skipLibCheck: true,
        outDir: 'out',
      },
      files: examples.map((e) => `${e.name}.ts`),
    }),
  );
}, 120_000);

afterAll(async () => {
  await t?.close();
  if (project) rmSync(project, { recursive: true, force: true });
});

/** Runs one compiled example with the key in LINKTRAIL_API_KEY; its output. */
async function runExample(name: string, key: string): Promise<{ stdout: string; stderr: string }> {
  return run('node', [join(project, 'out', `${name}.js`)], {
    cwd: project,
    timeout: 60_000,
    env: { PATH: process.env.PATH, LINKTRAIL_API_KEY: key, LINKTRAIL_WEBHOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
  });
}

describe('README TypeScript examples', () => {
  let ws: WorkspaceFixture;

  beforeAll(async () => {
    ws = await t.workspace({ rateLimitPerMinute: 1_000_000, maxBulkItems: 1000 });
  });

  it('every example compiles with tsc against the installed SDK', async () => {
    const compiled = await run('node', [TSC, '-p', 'tsconfig.json'], { cwd: project }).then(
      () => '',
      (e: { stdout?: string }) => e.stdout ?? String(e),
    );
    expect(compiled).toBe('');
  }, 120_000);

  it('the root README: a collection, a link, the visit, a lead and a sale, analytics, a refused link', async () => {
    // The scopes the README names, no more.
    const { key } = await ws.newKey(['collectionsWrite', 'linksWrite', 'conversionsWrite', 'analyticsRead']);
    const { stdout, stderr } = await runExample('readme-1', key);
    expect(stdout.split('\n')[0]).toMatch(new RegExp(`^${origin}/\\w+$`));
    expect(stdout).toMatch(/leads: 1,\s+sales: 1,\s+saleAmount: 4900/);
    expect(stderr.trim()).toMatch(/^400 invalid_field \[0\]\.url /);
    const events = await t.inject({ method: 'GET', url: '/api/events', headers: bearer(ws.key) });
    expect(events.json()).toEqual([
      expect.objectContaining({ type: 'sale', amount: 4900, customerExternalId: 'user-42', customerName: 'Ada Lovelace' }),
      expect.objectContaining({ type: 'lead', eventName: 'Sign up' }),
    ]);
  }, 60_000);

  it('the SDK README: each example runs after the quick start', async () => {
    const outputs: string[] = [];
    for (const e of examples.filter((x) => x.name.startsWith('sdk-'))) {
      const { stdout, stderr } = await runExample(e.name, ws.key);
      outputs.push(`${stdout}${stderr}`);
      expect(stdout.split('\n')[0], e.name).toMatch(new RegExp(`^${origin}/\\w+$`));
    }
    const [, pagination, errors, , chunks] = outputs;
    expect(pagination).toMatch(/^\d+$/m); // a page's length
    expect(errors).toMatch(/^400 invalid_field/m);
    // 2,500 links in requests of the workspace's 1,000: the first refused names the limit.
    expect(chunks!.match(/^\d+ links$/gm)).toEqual(['1000 links', '1000 links', '500 links']);
  }, 120_000);
});
