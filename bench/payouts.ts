/**
 * A payout at scale (operations.md §18; issue 44's goals): 10,000 partners with payout details and
 * 1,000,000 payable commissions loaded through the API (POST /api/commissions, 10,000 a request),
 * then POST /api/payouts timed (goal < 5 s), its CSV file streamed while the server's resident
 * memory is sampled (goal: flat), GET /api/commissions p50 at that size (goal < 50 ms), and the
 * payout completed (every commission marked paid; no goal, measured).
 * PostgreSQL (DATABASE_URL); BENCH_PAYOUT_COMMISSIONS scales it down for a quick look.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { Sealer } from '../src/core/sealed.js';
import { BENCH_SECRET, seed, startServer } from './server.js';

const rssOf = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

export async function benchPayouts(): Promise<{ name: string; value: string }[]> {
  if (!process.env.DATABASE_URL) throw new Error('benchPayouts needs DATABASE_URL');
  const total = Number(process.env.BENCH_PAYOUT_COMMISSIONS ?? 1_000_000);
  const partnersCount = Math.min(10_000, total);
  const server = await startServer();
  const out: { name: string; value: string }[] = [];
  try {
    const { headers, workspaceId } = await seed(server.base);
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${server.base}${path}`, {
        method,
        headers: { ...headers, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${(await res.text()).slice(0, 300)}`);
      return res;
    };
    await call('PUT', '/api/program', {
      name: 'Bench',
      slug: `payouts-${Date.now()}`,
      landingUrl: 'https://example.com/',
      currency: 'usd',
      holdingDays: 0,
      minPayout: {},
    });
    const partners = (await (
      await call(
        'POST',
        '/api/partners',
        Array.from({ length: partnersCount }, (_, i) => ({ name: `Partner ${i}` })),
      )
    ).json()) as { id: string }[];
    // Payout details as the partner portal sets them: sealed with SECRET, masked beside them.
    const db = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
    const sealer = new Sealer(BENCH_SECRET);
    const sealed = sealer.seal('payout-details', JSON.stringify({ method: 'paypal', email: 'partner@pay.example' }));
    await db.query(
      `UPDATE partners SET payout_method = 'paypal', payout_details_sealed = $1, payout_destination_masked = 'p•••@pay.example' WHERE workspace_id = $2`,
      [sealed, workspaceId],
    );
    const t0 = performance.now();
    for (let sent = 0; sent < total; sent += 10_000) {
      const batch = Array.from({ length: Math.min(10_000, total - sent) }, (_, i) => ({
        partnerId: partners[(sent + i) % partners.length]!.id,
        earnings: 100 + ((sent + i) % 997),
        currency: 'usd',
        description: 'Bench',
      }));
      await call('POST', '/api/commissions', batch);
    }
    out.push({
      name: `${total.toLocaleString('en')} commissions loaded through POST /api/commissions (s)`,
      value: ((performance.now() - t0) / 1000).toFixed(1),
    });
    await db.query('VACUUM ANALYZE commissions');

    /** GET /api/commissions take=100, 30 times (all, by partner, payable; `payoutId` when given): p50 / p95. */
    const listTimes = async (payoutId?: string): Promise<string> => {
      const lists: number[] = [];
      for (let i = 0; i < 30; i++) {
        const filter = i % 3 === 1 ? `&partnerId=${partners[i]!.id}` : i % 3 === 2 ? (payoutId ? `&payoutId=${payoutId}` : '&status=payable') : '';
        const started = performance.now();
        await (await call('GET', `/api/commissions?take=100${filter}`)).text();
        lists.push(performance.now() - started);
      }
      lists.sort((a, b) => a - b);
      return `${lists[15]!.toFixed(1)} / ${lists[28]!.toFixed(1)}`;
    };
    out.push({ name: 'GET /api/commissions take=100 p50 / p95 (ms; all, by partner, payable)', value: await listTimes() });

    const rssBefore = rssOf(server.child.pid!);
    const made = performance.now();
    const payout = (await (await call('POST', '/api/payouts', { currency: 'usd' })).json()) as { id: string; items: unknown[]; total: number };
    out.push(
      { name: `POST /api/payouts over ${partnersCount.toLocaleString('en')} partners (s; goal < 5)`, value: ((performance.now() - made) / 1000).toFixed(2) },
      { name: 'payout items / total', value: `${payout.items.length} / ${payout.total}` },
    );
    // Every commission is now in the payout: each row's payoutId is read from its partner's claim set.
    out.push({ name: 'the same with every commission in the payout (ms; all, by partner, by payoutId)', value: await listTimes(payout.id) });
    let peak = rssOf(server.child.pid!);
    const sampler = setInterval(() => (peak = Math.max(peak, rssOf(server.child.pid!))), 20);
    const streamed = performance.now();
    const file = await call('GET', `/api/payouts/${payout.id}/file?format=csv`);
    let bytes = 0;
    for await (const chunk of file.body!) bytes += (chunk as Uint8Array).length;
    clearInterval(sampler);
    out.push(
      { name: 'CSV file streamed (s, MB)', value: `${((performance.now() - streamed) / 1000).toFixed(2)}, ${(bytes / 1e6).toFixed(1)}` },
      { name: 'server RSS before the payout / peak while streaming the file (MB)', value: `${rssBefore.toFixed(0)} / ${peak.toFixed(0)}` },
    );
    // Completing marks every commission of the payout paid (no goal in the issue; measured).
    const completing = performance.now();
    await call('POST', `/api/payouts/${payout.id}/complete`, {});
    const paid = await db.query(`SELECT count(*)::int AS n FROM commissions WHERE workspace_id = $1 AND status = 'paid'`, [workspaceId]);
    out.push({
      name: 'POST /api/payouts/{id}/complete (s; commissions paid)',
      value: `${((performance.now() - completing) / 1000).toFixed(2)}; ${paid.rows[0].n}`,
    });
    await db.end();
  } finally {
    await server.stop();
  }
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await benchPayouts());
}
