/**
 * Tags bulk scenario: POST of 10,000 tags, GET take=5000 and DELETE of the 10,000 ids,
 * through HTTP (Fastify inject) on the PostgreSQL database named by DATABASE_URL.
 * Each run uses a fresh enterprise workspace; the result of each step is the median.
 *
 * Directly: DATABASE_URL=postgres://… node --import tsx bench/tags.ts
 */
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../src/config.js';
import { SCOPES } from '../src/core/scopes.js';
import { createRuntime } from '../src/runtime.js';

const ADMIN_TOKEN = 'bench-admin-token-0123456789';
const SECRET = 'bench-secret-0123456789-0123456789-0123456789';
const ITEMS = 10_000;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

interface Reply {
  statusCode: number;
  body: string;
}

export async function benchTags(runs = 5): Promise<{ name: string; ms: number }[]> {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error('bench/tags.ts needs DATABASE_URL (a PostgreSQL database)');
  const config = loadConfig({ DATA_DIR: 'memory://', DATABASE_URL: databaseUrl, SECRET, ADMIN_TOKEN, LOG_LEVEL: 'silent' });
  const runtime = await createRuntime(config);
  await runtime.app.ready();
  const inject = runtime.app.inject.bind(runtime.app);
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

  const steps = {
    post: `tags POST ${ITEMS.toLocaleString('en')}`,
    get: 'tags GET take=5000',
    del: `tags DELETE ${ITEMS.toLocaleString('en')}`,
  } as const;
  const timings: Record<string, number[]> = { [steps.post]: [], [steps.get]: [], [steps.del]: [] };

  /** Times one request and checks that it did what the scenario expects. */
  async function time(name: string, status: number, send: () => Promise<Reply>): Promise<Reply> {
    const t0 = performance.now();
    const res = await send();
    timings[name]!.push(performance.now() - t0);
    if (res.statusCode !== status) throw new Error(`${name}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    return res;
  }

  try {
    for (let run = 0; run < runs; run++) {
      const created = await inject({ method: 'POST', url: '/admin/workspaces', headers: admin, payload: { name: `bench-tags-${run}`, plan: 'enterprise' } });
      if (created.statusCode !== 201) throw new Error(`workspace: ${created.statusCode} ${created.body}`);
      const ws = created.json<{ id: string }>();
      const keyRes = await inject({ method: 'POST', url: `/admin/workspaces/${ws.id}/keys`, headers: admin, payload: { name: 'bench', scopes: SCOPES } });
      if (keyRes.statusCode !== 201) throw new Error(`key: ${keyRes.statusCode} ${keyRes.body}`);
      const headers = { authorization: `Bearer ${keyRes.json<{ key: string }>().key}` };
      const items = Array.from({ length: ITEMS }, (_, i) => ({ name: `Tag ${run}-${i}`, color: i % 3 === 0 ? '#3366ff' : undefined }));

      const post = await time(steps.post, 201, () => inject({ method: 'POST', url: '/api/tags', headers, payload: items }));
      const ids = (JSON.parse(post.body) as { id: string }[]).map((t) => t.id);
      if (ids.length !== ITEMS) throw new Error(`POST returned ${ids.length} tags`);

      const list = await time(steps.get, 200, () => inject({ method: 'GET', url: '/api/tags?take=5000', headers }));
      if ((JSON.parse(list.body) as unknown[]).length !== 5000) throw new Error('GET take=5000 did not return 5000 tags');

      const del = await time(steps.del, 200, () => inject({ method: 'DELETE', url: '/api/tags', headers, payload: ids }));
      if ((JSON.parse(del.body) as { deletedIds: string[] }).deletedIds.length !== ITEMS) throw new Error('DELETE did not delete every tag');
    }
  } finally {
    await runtime.close();
  }
  return Object.entries(timings).map(([name, xs]) => ({ name, ms: Math.round(median(xs)) }));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const results = await benchTags();
  console.log(`Tags bench on PostgreSQL, median of 5 runs (ms):`);
  console.table(results);
}
