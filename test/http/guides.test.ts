/**
 * The product's own guides (docs/*.md) served at /docs/guides and linked from /docs; and the
 * user-facing text — READMEs, guides, `linktrail --help` — cites no document outside the
 * repository (the specification files operations.md and api.md).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { ROOT } from '../helpers/process.js';

const GUIDES = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md'));
const OUTSIDE = /operations\.md|api\.md/;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe('GET /docs/guides', () => {
  it('lists every guide of docs/, linked', async () => {
    const res = await t.inject({ method: 'GET', url: '/docs/guides' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(GUIDES).toEqual(expect.arrayContaining(['local-testing.md', 'imports.md', 'deploy.md']));
    for (const guide of GUIDES) expect(res.body).toContain(`href="/docs/guides/${guide}"`);
  });

  it('serves each guide as UTF-8 text, as it is in the repository, loading nothing', async () => {
    for (const guide of GUIDES) {
      const res = await t.inject({ method: 'GET', url: `/docs/guides/${guide}` });
      expect({ guide, status: res.statusCode }).toEqual({ guide, status: 200 });
      expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(res.headers['content-security-policy']).toMatch(/^default-src 'none'/);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.body).toBe(readFileSync(join(ROOT, 'docs', guide), 'utf8'));
    }
  });

  it('has the local-testing section: webhooks to localhost need WEBHOOK_ALLOWED_CIDRS, Stripe needs a reachable URL', async () => {
    const text = (await t.inject({ method: 'GET', url: '/docs/guides/local-testing.md' })).body;
    expect(text).toMatch(/WEBHOOK_ALLOWED_CIDRS=127\.0\.0\.0\/8,::1\/128/);
    expect(text).toMatch(/stripe listen --forward-to/);
  });

  it('answers 404 for anything else, a path outside docs/ included', async () => {
    for (const url of ['/docs/guides/nope.md', '/docs/guides/..%2Fpackage.json', '/docs/guides/overview.png', '/docs/guides/deploy']) {
      expect({ url, status: (await t.inject({ method: 'GET', url })).statusCode }).toEqual({ url, status: 404 });
    }
  });

  it('is linked from the introduction of /docs, each link to a guide that exists', async () => {
    const doc = (await t.inject({ method: 'GET', url: '/api/openapi.json' })).json<{ info: { description: string } }>();
    const links = [...doc.info.description.matchAll(/\]\((\/docs\/guides[^)]*)\)/g)].map((m) => m[1]!);
    expect(links).toContain('/docs/guides/local-testing.md');
    for (const link of links) expect({ link, status: (await t.inject({ method: 'GET', url: link })).statusCode }).toEqual({ link, status: 200 });
  });
});

describe('user-facing text stands alone', () => {
  it('the READMEs and the guides cite no operations.md or api.md, and their links to docs/ resolve', () => {
    for (const file of ['README.md', 'packages/sdk/README.md', ...GUIDES.map((g) => `docs/${g}`)]) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      expect({ file, cites: text.match(OUTSIDE)?.[0] }).toEqual({ file, cites: undefined });
      for (const [, target] of text.matchAll(/\]\((?:docs\/)?([\w-]+\.md)(?:#[\w-]*)?\)/g)) {
        if (target === 'README.md') continue;
        expect({ file, target, exists: GUIDES.includes(target!) }).toEqual({ file, target, exists: true });
      }
    }
  });

  it('the API reference at /docs (every description of the OpenAPI document) cites neither', async () => {
    const doc = (await t.inject({ method: 'GET', url: '/api/openapi.json' })).json<unknown>();
    const citing: string[] = [];
    const walk = (node: unknown, at: string): void => {
      if (typeof node === 'string') {
        if (OUTSIDE.test(node)) citing.push(`${at}: ${node.slice(0, 80)}`);
      } else if (node && typeof node === 'object') {
        for (const [k, v] of Object.entries(node)) walk(v, `${at}/${k}`);
      }
    };
    walk(doc, '');
    expect(citing).toEqual([]);
  });

  it('linktrail --help and each command’s help cite neither', async () => {
    const texts: string[] = [];
    const out = (s: string) => texts.push(s);
    await run(['--help'], {}, out);
    for (const command of ['import', 'export', 'mcp', 'sso verify-domain', 'key create', 'secrets reseal'])
      await run([...command.split(' '), '--help'], {}, out);
    expect(texts).toHaveLength(7);
    for (const text of texts) expect(text).not.toMatch(OUTSIDE);
  });
});
