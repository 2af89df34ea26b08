/**
 * Conversion scenarios on PostgreSQL (DATABASE_URL): sustained POST /api/track/lead through a
 * real socket (autocannon, one server process), and groupBy=timeseries over one million clicks.
 */
import autocannon from 'autocannon';
import pg from 'pg';
import { pathToFileURL } from 'node:url';
import { seed, startServer } from './server.js';

export async function benchConversions(seconds = 10): Promise<{ name: string; value: string }[]> {
  if (!process.env.DATABASE_URL) throw new Error('benchConversions needs DATABASE_URL');
  const server = await startServer();
  const out: { name: string; value: string }[] = [];
  try {
    const { headers, link, workspaceId } = await seed(server.base);
    // Real clicks to attribute leads to.
    const clickIds: string[] = [];
    for (let i = 0; i < 50; i++) {
      const res = await fetch(`${server.base}${new URL(link.shortUrl).pathname}`, { redirect: 'manual' });
      clickIds.push(new URL(res.headers.get('location')!).searchParams.get('ltid')!);
    }
    let n = 0;
    const result = await autocannon({
      url: `${server.base}/api/track/lead`,
      method: 'POST',
      connections: 32,
      duration: seconds,
      headers: { ...headers, 'content-type': 'application/json' },
      requests: [
        {
          setupRequest: (req) => {
            n++;
            return {
              ...req,
              body: JSON.stringify({
                clickId: clickIds[n % clickIds.length],
                eventName: 'Sign up',
                customerExternalId: `customer-${n}`,
                customerName: `Customer ${n}`,
                customerEmail: `c${n}@example.com`,
              }),
            };
          },
        },
      ],
    });
    out.push(
      { name: 'track/lead sustained (req/s, mean)', value: result.requests.average.toFixed(0) },
      { name: 'track/lead p99 latency (ms)', value: String(result.latency.p99) },
      { name: 'track/lead non-2xx responses', value: String(result.non2xx + result.errors) },
    );

    // One million clicks of one workspace, spread over 90 days, then a daily time series.
    const db = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
    await db.query(
      `INSERT INTO clicks (id, workspace_id, link_id, partner_id, created_at, country, device, browser, os, referrer, referrer_url, bot)
       SELECT gen_random_uuid(), $1, $2, NULL, now() - (random() * interval '90 days'),
              (ARRAY['US','GB','DE','FR','IN'])[1 + (g % 5)], (ARRAY['desktop','mobile','tablet'])[1 + (g % 3)],
              'Chrome', 'Windows', '(direct)', NULL, g % 50 = 0
       FROM generate_series(1, 1000000) AS g`,
      [workspaceId, link.id],
    );
    await db.query('VACUUM ANALYZE clicks');
    await db.end();
    const timings: number[] = [];
    for (let i = 0; i < 7; i++) {
      const t0 = performance.now();
      const res = await fetch(`${server.base}/api/analytics?groupBy=timeseries&interval=day&take=500`, { headers });
      await res.text();
      timings.push(performance.now() - t0);
      if (!res.ok) throw new Error(`analytics ${res.status}`);
    }
    timings.sort((a, b) => a - b);
    out.push({ name: 'groupBy=timeseries over 1M clicks (ms, median of 7)', value: timings[3]!.toFixed(0) });
  } finally {
    await server.stop();
  }
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await benchConversions());
}
