/**
 * `npx linktrail` outside the checkout: the package as `npm pack` makes it (package.json
 * `files`), laid out in a temporary project as `npm install` of the tarball would — extracted
 * to node_modules/linktrail, its `bin` linked in node_modules/.bin. Its dependencies are the
 * checkout's node_modules, linked: an offline `npm install` of the tarball is impossible here
 * (the npm cache holds the packages' files, not the registry's metadata npm asks for first).
 * Then the installed CLI answers --version and --help, and the installed server starts from
 * the package alone (migrations, the PGlite seed, the dashboard's build, the guides) and the
 * CLI talks to it.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN_TOKEN } from '../helpers/app.js';
import { ROOT, ensureBuilt, freePort, processEnv, spawnService, waitHealthy, type Service } from '../helpers/process.js';

const run = promisify(execFile);
let project: string;
let installed: string;
let files: string[];
let service: Service | undefined;

beforeAll(async () => {
  ensureBuilt();
  project = mkdtempSync(join(tmpdir(), 'lt-installed-'));
  // --ignore-scripts: dist/ is built above (prepare would build it again).
  await run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', project], { cwd: ROOT, timeout: 120_000 });
  const tarball = join(project, `linktrail-${(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version}.tgz`);
  files = (await run('tar', ['-tzf', tarball], { maxBuffer: 16 * 1024 * 1024 })).stdout.split('\n').filter(Boolean);
  installed = join(project, 'node_modules', 'linktrail');
  mkdirSync(installed, { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
  symlinkSync(join(ROOT, 'node_modules'), join(installed, 'node_modules'));
  const { bin } = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { bin: Record<string, string> };
  mkdirSync(join(project, 'node_modules', '.bin'));
  for (const [name, file] of Object.entries(bin)) symlinkSync(join('..', 'linktrail', file), join(project, 'node_modules', '.bin', name));
}, 180_000);

afterAll(async () => {
  if (service && !service.hasExited()) {
    service.child.kill('SIGTERM');
    await service.exited;
  }
  if (project) rmSync(project, { recursive: true, force: true });
});

/** `npx linktrail …` in the temporary project, as a user there types it. */
const npx = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  run('npx', ['--offline', 'linktrail', ...args], { cwd: project, timeout: 60_000, env: processEnv({ npm_config_update_notifier: 'false', ...env }) });

it('packs what the CLI and the server need, and nothing of the sources or tests', () => {
  for (const needed of [
    'package/dist/cli/main.js',
    'package/dist/main.js',
    'package/dist/pglite-seed.tar.gz',
    'package/dist/web/index.html',
    'package/dist/db/migrations/0001_foundation.sql',
    'package/docs/local-testing.md',
    'package/README.md',
  ]) {
    expect(files).toContain(needed);
  }
  expect(files.filter((f) => /^package\/(src|test|web\/src|scripts)\//.test(f))).toEqual([]);
});

it('answers --version and --help from outside the checkout', async () => {
  expect((await npx(['--version'])).stdout.trim()).toBe('0.0.1');
  const help = (await npx(['--help'])).stdout;
  expect(help).toMatch(/^Usage: linktrail <command>/);
  expect(help).toContain('/docs/guides');
}, 120_000);

it('runs the installed server from the package alone, and the installed CLI talks to it', async () => {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const env = { PORT: String(port), HOST: '127.0.0.1', BASE_URL: origin, DATA_DIR: join(project, 'data'), ADMIN_TOKEN, LOG_LEVEL: 'warn' };
  service = spawnService(origin, { cwd: project, env: processEnv(env), main: join(installed, 'dist', 'main.js') });
  await waitHealthy(service, 90_000);
  const guide = await fetch(`${origin}/docs/guides/local-testing.md`);
  expect(guide.status).toBe(200);
  expect(await guide.text()).toContain('WEBHOOK_ALLOWED_CIDRS');
  const dashboard = await fetch(`${origin}/app`);
  expect(dashboard.status).toBe(200);
  expect(await dashboard.text()).toMatch(/<script type="module"/);
  const created = JSON.parse((await npx(['workspace', 'create', '--name', 'Acme', '--json', '--url', origin], { ADMIN_TOKEN })).stdout) as { name: string };
  expect(created).toMatchObject({ name: 'Acme', plan: 'free' });
}, 180_000);
