/**
 * The dashboard's files under /app (operations.md §10): hashed assets cached for a year,
 * index.html for every other /app path and never cached, a strict CSP, 404 text without a
 * build, and `/` sent to /app only when short links share BASE_URL's origin.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_CSP, dashboardRoutes } from '../../src/modules/dashboard/routes.js';

const INDEX = '<!doctype html><title>Linktrail</title><script type="module" src="/app/assets/index-AbC123.js"></script>';

async function serve(options: { root: string; shortLinkBaseUrl?: string }): Promise<FastifyInstance> {
  const app = Fastify();
  await app.register(dashboardRoutes, { baseUrl: 'https://lt.test', shortLinkBaseUrl: options.shortLinkBaseUrl ?? 'https://lt.test', root: options.root });
  await app.ready();
  return app;
}

describe('dashboard files', () => {
  let dir: string;
  let app: FastifyInstance;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lt-web-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), INDEX);
    writeFileSync(join(dir, 'assets', 'index-AbC123.js'), 'console.log(1)');
    writeFileSync(join(dir, 'assets', 'index-AbC123.css'), 'body{}');
    app = await serve({ root: dir });
  });
  afterAll(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves index.html at /app and for client-side routes, not cached, with the CSP', async () => {
    for (const url of ['/app', '/app/', '/app/setup?code=x', '/app/links/abc']) {
      const res = await app.inject({ url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['content-security-policy']).toBe(DASHBOARD_CSP);
      expect(res.body).toBe(INDEX);
    }
    expect(DASHBOARD_CSP).toContain("script-src 'self'");
    expect(DASHBOARD_CSP).not.toContain('unsafe-inline');
  });

  it('serves hashed assets for a year with their types; an unknown asset is 404, not the page', async () => {
    const js = await app.inject({ url: '/app/assets/index-AbC123.js' });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toMatch(/^text\/javascript/);
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(js.body).toBe('console.log(1)');
    const css = await app.inject({ url: '/app/assets/index-AbC123.css' });
    expect(css.headers['content-type']).toMatch(/^text\/css/);
    const missing = await app.inject({ url: '/app/assets/gone-123.js' });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['cache-control']).toBe('no-store');
    expect(missing.headers['content-type']).toMatch(/^text\/html/);
    const escape = await app.inject({ url: '/app/assets/..%2F..%2Fpackage.json' });
    expect(escape.statusCode).toBe(404);
  });

  it('redirects / to /app when short links share the origin, and leaves / alone otherwise', async () => {
    const res = await app.inject({ url: '/' });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/app');
    const other = await serve({ root: dir, shortLinkBaseUrl: 'https://go.test' });
    expect((await other.inject({ url: '/' })).statusCode).toBe(404);
    await other.close();
  });

  it('answers 404 with a short HTML page when the dashboard is not built', async () => {
    const bare = await serve({ root: join(dir, 'missing') });
    for (const url of ['/app', '/app/overview', '/app/assets/index-AbC123.js']) {
      const res = await bare.inject({ url });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
    }
    await bare.close();
  });
});
