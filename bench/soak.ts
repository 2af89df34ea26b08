/**
 * Mixed workload against two instances on one PostgreSQL and one Redis, for a bounded time:
 * redirects, link writes, lists, leads, sales and analytics. Reports throughput, p50/p99 per
 * endpoint, RSS per process at start and end, and integrity afterwards (clicks = redirects
 * served, events = tracking calls accepted, one rate limit held across both instances).
 */
import http from 'node:http';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { BENCH_ADMIN, rssOf, seed, startServer, type BenchServer } from './server.js';

function noteRefusal(
  refusals: Record<string, { count: number; firstAt: number; lastAt: number }>,
  name: string,
  res: { status: number; body: string },
  at: number,
): void {
  let code = '';
  try {
    const body = JSON.parse(res.body) as { error?: { code?: string }; field?: string; reason?: string };
    code = [body.error?.code, body.field, body.reason].filter(Boolean).join(' ');
  } catch {
    code = 'no JSON body';
  }
  const r = (refusals[`${name} ${res.status} ${code}`] ??= { count: 0, firstAt: at, lastAt: at });
  r.count++;
  r.lastAt = at;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function request(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(`${base}${path}`, {
      method,
      agent,
      headers: payload ? { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : headers,
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

const pct = (xs: number[], p: number) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]! : NaN);

export async function benchSoak(seconds = 30, concurrency = 32): Promise<{ name: string; value: string }[]> {
  if (!process.env.DATABASE_URL || !process.env.REDIS_URL) throw new Error('benchSoak needs DATABASE_URL and REDIS_URL');
  const servers: BenchServer[] = [await startServer(), await startServer()];
  const out: { name: string; value: string }[] = [];
  try {
    const bases = servers.map((s) => s.base);
    const { headers, workspaceId } = await seed(bases[0]!);
    const collection = JSON.parse((await request(bases[0]!, 'POST', '/api/collections', headers, [{ name: 'soak' }])).body)[0];
    const links = JSON.parse(
      (
        await request(
          bases[0]!,
          'POST',
          '/api/links',
          headers,
          Array.from({ length: 200 }, (_, i) => ({ url: `https://example.com/p/${i}`, collectionId: collection.id })),
        )
      ).body,
    ) as { id: string; shortUrl: string }[];
    const paths = links.map((l) => new URL(l.shortUrl).pathname);
    const rssStart = servers.map((s) => rssOf(s.child.pid!));

    const latencies: Record<string, number[]> = {};
    const statuses: Record<string, Record<number, number>> = {};
    // Why each refused call was refused, and how far into the run: a 4xx the load itself
    // provokes (a lead before any click) is not one the service should not have given.
    const refusals: Record<string, { count: number; firstAt: number; lastAt: number }> = {};
    const clickIds: string[] = [];
    const customersWithLead: string[] = [];
    let redirects = 0;
    let leads = 0;
    let sales = 0;
    let n = 0;
    const ops: [string, number, (base: string, k: number) => Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>][] = [
      ['redirect', 60, (b, k) => request(b, 'GET', paths[k % paths.length]!, {})],
      ['GET /api/links', 8, (b) => request(b, 'GET', '/api/links?take=100', headers)],
      [
        'POST /api/links (10)',
        4,
        (b, k) =>
          request(
            b,
            'POST',
            '/api/links',
            headers,
            Array.from({ length: 10 }, (_, i) => ({ url: `https://example.com/new/${k}/${i}`, collectionId: collection.id })),
          ),
      ],
      [
        'POST /api/track/lead',
        12,
        (b, k) =>
          request(b, 'POST', '/api/track/lead', headers, {
            clickId: clickIds[k % Math.max(1, clickIds.length)] ?? '',
            eventName: 'Sign up',
            customerExternalId: `soak-${k}`,
            customerName: 'Soak',
          }),
      ],
      [
        'POST /api/track/sale',
        8,
        // Sales for customers that already have a lead (attributed to it), and some by click id.
        (b, k) =>
          request(b, 'POST', '/api/track/sale', headers, {
            customerExternalId: customersWithLead[k % Math.max(1, customersWithLead.length)] ?? `soak-none`,
            customerName: 'Soak',
            amount: 1000 + (k % 500),
            ...(k % 3 === 0 && clickIds.length ? { clickId: clickIds[k % clickIds.length] } : {}),
          }),
      ],
      ['GET /api/analytics', 8, (b) => request(b, 'GET', '/api/analytics?groupBy=link&take=50', headers)],
    ];
    const weights = ops.reduce((a, [, w]) => a + w, 0);
    const deadline = Date.now() + seconds * 1000;
    // RSS every tenth of the run: growth that keeps going is a leak, a plateau is warm-up.
    const rssSeries: number[][] = [];
    const sampler = setInterval(() => rssSeries.push(servers.map((sv) => rssOf(sv.child.pid!))), (seconds * 1000) / 10);
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async (_, worker) => {
        while (Date.now() < deadline) {
          const k = n++;
          let r = (k * 7919) % weights;
          const [name, , run] = ops.find(([, w]) => (r -= w) < 0)!;
          const start = performance.now();
          const res = await run(bases[(k + worker) % 2]!, k);
          (latencies[name] ??= []).push(performance.now() - start);
          (statuses[name] ??= {})[res.status] = ((statuses[name] ??= {})[res.status] ?? 0) + 1;
          if (res.status >= 400) noteRefusal(refusals, name, res, (performance.now() - t0) / 1000);
          if (name === 'redirect' && res.status === 302) {
            redirects++;
            const id = new URL(String(res.headers.location)).searchParams.get('ltid');
            if (id && clickIds.length < 5000) clickIds.push(id);
          }
          if (name === 'POST /api/track/lead' && res.status === 200) {
            leads++;
            if (customersWithLead.length < 5000) customersWithLead.push(`soak-${k}`);
          }
          if (name === 'POST /api/track/sale' && res.status === 200) sales++;
        }
      }),
    );
    const elapsed = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    const rssEnd = servers.map((s) => rssOf(s.child.pid!));

    // One workspace limit across both instances: 120/min, 300 attempts split over A and B.
    const admin = { authorization: `Bearer ${BENCH_ADMIN}` };
    const limited = JSON.parse((await request(bases[0]!, 'POST', '/admin/workspaces', admin, { name: 'limited', plan: 'free' })).body);
    await request(bases[0]!, 'PATCH', `/admin/workspaces/${limited.id}`, admin, { rateLimitPerMinute: 120 });
    const lkey = JSON.parse((await request(bases[0]!, 'POST', `/admin/workspaces/${limited.id}/keys`, admin, { name: 'l', scopes: ['tagsRead'] })).body).key;
    let allowed = 0;
    for (let i = 0; i < 300; i++) if ((await request(bases[i % 2]!, 'GET', '/api/tags', { authorization: `Bearer ${lkey}` })).status === 200) allowed++;

    await Promise.all(servers.map((s) => s.stop()));
    // Every error the instances logged (a 500 is one), with its message: a soak must show none.
    const errors = servers.flatMap((sv) =>
      sv
        .log()
        .split('\n')
        .filter((l) => /"level":(50|60)/.test(l)),
    );
    for (const line of errors.slice(0, 5)) {
      const { msg, err } = JSON.parse(line) as { msg?: string; err?: { message?: string; code?: string; cause?: { message?: string; code?: string } } };
      const cause = err?.cause ?? err;
      process.stderr.write(`soak: server error: ${msg} — ${cause?.code ?? ''} ${cause?.message ?? ''}`.slice(0, 400) + '\n');
    }
    out.push({ name: 'errors logged by the instances', value: String(errors.length) });
    const db = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
    const count = async (q: string) => Number((await db.query(q, [workspaceId])).rows[0].count);
    const clicks = await count('SELECT count(*) FROM clicks WHERE workspace_id = $1');
    const leadRows = await count('SELECT count(*) FROM lead_events WHERE workspace_id = $1');
    const saleRows = await count('SELECT count(*) FROM sale_events WHERE workspace_id = $1');
    await db.end();

    const total = Object.values(latencies).reduce((a, l) => a + l.length, 0);
    out.push({ name: `throughput, all endpoints (req/s over ${elapsed.toFixed(0)} s, ${concurrency} clients)`, value: (total / elapsed).toFixed(0) });
    for (const [name, l] of Object.entries(latencies)) {
      const codes = Object.entries(statuses[name]!)
        .map(([c, k]) => `${c}×${k}`)
        .join(' ');
      out.push({ name: `${name}: n, p50 / p99 ms, statuses`, value: `${l.length}, ${pct(l, 50).toFixed(1)} / ${pct(l, 99).toFixed(1)}, ${codes}` });
    }
    for (const [why, r] of Object.entries(refusals)) {
      out.push({ name: `refused: ${why}`, value: `${r.count} (at ${r.firstAt.toFixed(1)}–${r.lastAt.toFixed(1)} s)` });
    }
    out.push(
      { name: 'RSS instance A start → end (MB)', value: `${rssStart[0]} → ${rssEnd[0]}` },
      { name: 'RSS instance B start → end (MB)', value: `${rssStart[1]} → ${rssEnd[1]}` },
      { name: 'RSS A every tenth of the run (MB)', value: rssSeries.map((r) => r[0]).join(' ') },
      { name: 'RSS B every tenth of the run (MB)', value: rssSeries.map((r) => r[1]).join(' ') },
      { name: 'redirects served (302) / clicks in database', value: `${redirects} / ${clicks}` },
      { name: 'leads accepted / lead events stored', value: `${leads} / ${leadRows}` },
      { name: 'sales accepted / sale events stored', value: `${sales} / ${saleRows}` },
      { name: 'rate limit 120/min over two instances: allowed of 300', value: String(allowed) },
    );
  } finally {
    await Promise.all(servers.map((s) => (s.child.exitCode === null ? s.stop() : undefined)));
    agent.destroy();
  }
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await benchSoak(Number(process.env.SOAK_SECONDS ?? 30)));
}
