/**
 * The cost of a partner program on tracking (operations.md §18): POST /api/track/lead and
 * /api/track/sale on a partner's link (the commission written in the event's transaction) against
 * the same calls on a link without a partner, in one workspace with a program, one server, the
 * same run. Rounds alternate A/B/A/B so drift hits both; the ratio is partner / plain of the
 * median round. Each kind warms up both sides, then ANALYZEs. PostgreSQL (DATABASE_URL).
 * Each round also reads the CPU time the instance and PostgreSQL spent per request (/proc, as the
 * redirect bench does): on two cores both sides run the machine near full, so the CPU ratio tells
 * the cost apart from what the req/s ratio mixes with latency. CONVERSIONS_ROUNDS and
 * CONVERSIONS_SECONDS (default 3 of 5 s): more rounds, a steadier median. CONVERSIONS_KINDS: lead, sale
 * or both (the default, `lead,sale`).
 */
import autocannon from 'autocannon';
import pg from 'pg';
import { pathToFileURL } from 'node:url';
import { FRAUD_RULES } from '../src/modules/program/schemas.js';
import { cpuPerRequest, cpuSnapshot } from './cpu.js';
import { seed, startServer } from './server.js';

type Json = Record<string, unknown> & { id: string; shortUrl: string };

async function clicksOf(base: string, shortUrl: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${base}${new URL(shortUrl).pathname}`, { redirect: 'manual', headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64)' } });
    ids.push(new URL(res.headers.get('location')!).searchParams.get('ltid')!);
  }
  return ids;
}

let customers = 0;

/** One round of `kind` on these clicks: requests per second (mean), p99 latency and CPU µs per request of the instance and PostgreSQL. */
async function round(base: string, pid: number, headers: Record<string, string>, kind: 'lead' | 'sale', clickIds: string[], seconds: number) {
  const before = cpuSnapshot(pid);
  const result = await autocannon({
    url: `${base}/api/track/${kind}`,
    method: 'POST',
    connections: Number(process.env.BENCH_CONNECTIONS ?? 16),
    duration: seconds,
    headers: { ...headers, 'content-type': 'application/json' },
    requests: [
      {
        setupRequest: (req) => {
          const n = ++customers;
          const clickId = clickIds[n % clickIds.length];
          const body =
            kind === 'lead'
              ? { clickId, eventName: 'Sign up', customerExternalId: `c-${n}`, customerName: `Customer ${n}`, customerEmail: `c${n}@example.com` }
              : { clickId, customerExternalId: `c-${n}`, customerName: `Customer ${n}`, amount: 4900 + (n % 100), currency: 'usd' };
          return { ...req, body: JSON.stringify(body) };
        },
      },
    ],
  });
  if (result.non2xx + result.errors > 0) throw new Error(`track/${kind}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  const cpu = cpuPerRequest(before, cpuSnapshot(pid), result.requests.total);
  return { rps: result.requests.average, p99: result.latency.p99, instance: cpu.instance!, postgres: cpu.postgres! };
}

async function analyze(): Promise<void> {
  const db = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await db.connect();
  try {
    await db.query('ANALYZE');
  } finally {
    await db.end();
  }
}

export async function benchConversionsPartner(seconds = 5, rounds = 3): Promise<{ name: string; value: string }[]> {
  if (!process.env.DATABASE_URL) throw new Error('benchConversionsPartner needs DATABASE_URL');
  const server = await startServer();
  try {
    const { headers, link: plain } = await seed(server.base);
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${server.base}${path}`, {
        method,
        headers: { ...headers, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      return res.json() as Promise<Json & Json[]>;
    };
    // BENCH_FRAUD_RULES=off: the program without its fraud rules, to tell their reads' share of the partner's cost.
    const fraudRules = process.env.BENCH_FRAUD_RULES === 'off' ? { fraudRules: Object.fromEntries(FRAUD_RULES.map((r) => [r, false])) } : {};
    const program = await call('PUT', '/api/program', {
      name: 'Bench',
      slug: `bench-${Date.now()}`,
      landingUrl: 'https://example.com/',
      currency: 'usd',
      ...fraudRules,
    });
    const [group] = await call('GET', '/api/partner-groups');
    await call('PUT', '/api/partner-groups', [
      {
        id: group!.id,
        rewards: [
          { event: 'lead', type: 'flat', amount: 300, conditions: [{ field: 'eventName', op: 'eq', value: 'Sign up' }] },
          { event: 'sale', type: 'percentage', amount: 2000, maxDuration: 12 },
        ],
      },
    ]);
    const [partner] = await call('POST', '/api/partners', [{ name: 'Bench Partner', email: 'partner@example.com' }]);
    const [partnered] = await call('POST', '/api/links', [{ url: 'https://example.com/p', collectionId: program.collectionId, partnerId: partner!.id }]);
    const clicks = { plain: await clicksOf(server.base, plain.shortUrl as string, 50), partner: await clicksOf(server.base, partnered!.shortUrl, 50) };
    const out: { name: string; value: string }[] = [];
    for (const kind of (process.env.CONVERSIONS_KINDS ?? 'lead,sale').split(',') as ('lead' | 'sale')[]) {
      const got: Record<'plain' | 'partner', Awaited<ReturnType<typeof round>>[]> = { plain: [], partner: [] };
      // Warm-up on both sides, then ANALYZE, as autovacuum does within a minute on a live database:
      // the rounds measure steady state, not plans made for the empty tables of a database made a second ago.
      await round(server.base, server.child.pid!, headers, kind, clicks.plain, 2);
      await round(server.base, server.child.pid!, headers, kind, clicks.partner, 2);
      await analyze();
      for (let r = 0; r < rounds; r++) {
        for (const side of r % 2 === 0 ? (['plain', 'partner'] as const) : (['partner', 'plain'] as const)) {
          got[side].push(await round(server.base, server.child.pid!, headers, kind, clicks[side], seconds));
        }
      }
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      const plainRps = median(got.plain.map((g) => g.rps));
      const partnerRps = median(got.partner.map((g) => g.rps));
      out.push(
        { name: `track/${kind} without a partner (req/s, median of ${rounds})`, value: plainRps.toFixed(0) },
        { name: `track/${kind} on a partner link, commission written (req/s)`, value: partnerRps.toFixed(0) },
        { name: `track/${kind} cost ratio (plain req/s ÷ partner req/s; goal ≤ 1.3)`, value: (plainRps / partnerRps).toFixed(2) },
        { name: `track/${kind} p99 plain / partner (ms)`, value: `${median(got.plain.map((g) => g.p99))} / ${median(got.partner.map((g) => g.p99))}` },
        ...(['plain', 'partner'] as const).map((side) => ({
          name: `track/${kind} CPU µs per request, ${side}: instance + PostgreSQL (medians)`,
          value: `${median(got[side].map((g) => g.instance)).toFixed(0)} + ${median(got[side].map((g) => g.postgres)).toFixed(0)}`,
        })),
        {
          name: `track/${kind} CPU ratio partner / plain (median of rounds)`,
          value: median(got.partner.map((g, i) => (g.instance + g.postgres) / (got.plain[i]!.instance + got.plain[i]!.postgres))).toFixed(2),
        },
      );
    }
    const commissions = await call('GET', `/api/commissions?partnerId=${partner!.id}&take=1`);
    if (commissions.length === 0) throw new Error('no commission was written: the partner side measured nothing');
    return out;
  } catch (e) {
    // The server's own errors say why a round's answers were not 2xx.
    console.error(
      server
        .log()
        .split('\n')
        .filter((l) => l.includes('"level":50'))
        .slice(0, 3)
        .join('\n'),
    );
    throw e;
  } finally {
    await server.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await benchConversionsPartner());
}
