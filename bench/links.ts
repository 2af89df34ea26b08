/**
 * Links bulk scenario: POST, PUT and DELETE of 10,000 links and GET take=5000, through HTTP
 * (Fastify inject) on the database named by DATABASE_URL (PGlite in memory when unset).
 */
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../src/config.js';
import { SCOPES } from '../src/core/scopes.js';
import { createRuntime } from '../src/runtime.js';

const ADMIN = 'bench-admin-token-0123456789';
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function benchLinks(runs = 3): Promise<{ name: string; ms: number }[]> {
  const config = loadConfig({
    DATA_DIR: 'memory://',
    DATABASE_URL: process.env.DATABASE_URL,
    SECRET: 'bench-secret-0123456789-0123456789-0123456789',
    ADMIN_TOKEN: ADMIN,
    LOG_LEVEL: 'silent',
  });
  const rt = await createRuntime(config);
  const inject = rt.app.inject.bind(rt.app);
  const admin = { authorization: `Bearer ${ADMIN}` };
  const timings: Record<string, number[]> = { 'links POST 10k': [], 'links PUT 10k': [], 'links GET take=5000': [], 'links DELETE 10k': [] };
  try {
    for (let run = 0; run < runs; run++) {
      const ws = (await inject({ method: 'POST', url: '/admin/workspaces', headers: admin, payload: { name: 'bench', plan: 'enterprise' } })).json();
      await inject({ method: 'PATCH', url: `/admin/workspaces/${ws.id}`, headers: admin, payload: { rateLimitPerMinute: 1_000_000 } });
      const key = (await inject({ method: 'POST', url: `/admin/workspaces/${ws.id}/keys`, headers: admin, payload: { name: 'b', scopes: SCOPES } })).json().key;
      const h = { authorization: `Bearer ${key}` };
      const [collection] = (await inject({ method: 'POST', url: '/api/collections', headers: h, payload: [{ name: 'c' }] })).json();
      const tags = (await inject({ method: 'POST', url: '/api/tags', headers: h, payload: [{ name: 'a' }, { name: 'b' }] })).json();
      const items = Array.from({ length: 10_000 }, (_, i) => ({
        url: `https://example.com/p/${i}?x=1`,
        collectionId: collection.id,
        tagIds: [tags[i % 2].id],
        title: `Link ${i}`,
        utm: { source: 'bench', campaign: `c${i % 10}` },
        externalId: `ext-${i}`,
        password: i % 5 === 0 ? 'secret' : undefined,
      }));
      const time = async (name: string, fn: () => Promise<{ statusCode: number; body: string }>) => {
        const t0 = performance.now();
        const res = await fn();
        timings[name]!.push(performance.now() - t0);
        if (res.statusCode >= 300) throw new Error(`${name}: ${res.statusCode} ${res.body.slice(0, 300)}`);
        return res;
      };
      const created = (await time('links POST 10k', () => inject({ method: 'POST', url: '/api/links', headers: h, payload: items }))).body;
      const ids = (JSON.parse(created) as { id: string }[]).map((l) => l.id);
      await time('links PUT 10k', () =>
        inject({ method: 'PUT', url: '/api/links', headers: h, payload: ids.map((id, i) => ({ id, title: `Renamed ${i}`, tagIds: [tags[(i + 1) % 2].id] })) }),
      );
      await time('links GET take=5000', () => inject({ method: 'GET', url: '/api/links?take=5000', headers: h }));
      await time('links DELETE 10k', () => inject({ method: 'DELETE', url: '/api/links', headers: h, payload: ids }));
    }
  } finally {
    await rt.close();
  }
  return Object.entries(timings).map(([name, xs]) => ({ name, ms: Math.round(median(xs)) }));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await benchLinks());
}
