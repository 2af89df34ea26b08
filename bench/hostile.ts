/**
 * Hostile bodies (issue 11, defect 2): each is sent to the built server with a valid key while
 * a client pings /healthz; the server's own event-loop delay (monitorEventLoopDelay, read from
 * GET /admin/metrics and reset before each body) gives the longest stall. Target: < 100 ms.
 */
import { BENCH_ADMIN, seed, startServer } from './server.js';

const BODIES: [string, string, () => string][] = [
  ['30 MB of zeros (15 M items)', '/api/tags', () => `[${'0,'.repeat(15_000_000)}0]`],
  ['one item with 2 M zeros', '/api/tags', () => `[{"name":"x","color":[${'0,'.repeat(2_000_000)}0]}]`],
  [
    '2 M keys in metadata',
    '/api/track/lead',
    () => `{"clickId":"x","eventName":"s","customer":{"externalId":"c"},"metadata":{${Array.from({ length: 2_000_000 }, (_, i) => `"k${i}":0`).join(',')}}}`,
  ],
  [
    '10,000 items × 50 distinct keys',
    '/api/tags',
    () => `[${Array.from({ length: 10_000 }, (_, i) => `{${Array.from({ length: 50 }, (_, j) => `"k${i}_${j}":0`).join(',')}}`).join(',')}]`,
  ],
  [
    '10,000 items × 40 shuffled keys',
    '/api/tags',
    () => {
      const keys = Array.from({ length: 40 }, (_, i) => `"k${i}":0`);
      return `[${Array.from({ length: 10_000 }, () => `{${[...keys].sort(() => Math.random() - 0.5).join(',')}}`).join(',')}]`;
    },
  ],
  ['nesting 1 M deep', '/api/tags', () => '['.repeat(1_000_000) + ']'.repeat(1_000_000)],
  ['a 25 MB string', '/api/tags', () => `[{"name":"${'a'.repeat(25_000_000)}"}]`],
];

export async function benchHostile(): Promise<{ name: string; value: string }[]> {
  const server = await startServer();
  const { headers } = await seed(server.base);
  const admin = { authorization: `Bearer ${BENCH_ADMIN}` };
  const metrics = async (): Promise<{ eventLoopDelay: { maxMs: number }; memory: { heapUsedBytes: number } }> =>
    (await fetch(`${server.base}/admin/metrics?reset=true`, { headers: admin })).json() as never;

  const send = async (path: string, body: string) => {
    const res = await fetch(`${server.base}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
    const json = (await res.json()) as { error?: { code: string } };
    return `${res.status} ${json.error?.code ?? ''}`.trim();
  };

  const rows: { name: string; value: string }[] = [];
  let worst = 0;
  for (const [name, path, make] of BODIES) {
    const body = make();
    await metrics();
    // Outside view: the longest wait for a /healthz answer while the body is handled.
    let stop = false;
    let longestPing = 0;
    const pinger = (async () => {
      while (!stop) {
        const t = performance.now();
        await (await fetch(`${server.base}/healthz`)).arrayBuffer();
        longestPing = Math.max(longestPing, performance.now() - t);
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const answers = name.startsWith('30 MB') ? await Promise.all([send(path, body), send(path, body)]) : [await send(path, body)];
    stop = true;
    await pinger;
    const m = await metrics();
    worst = Math.max(worst, m.eventLoopDelay.maxMs);
    rows.push({
      name: `${name}${answers.length > 1 ? ', two at once' : ''} (${(body.length / 1e6).toFixed(1)} MB)`,
      value: `${answers.join(', ')}; server stall ${m.eventLoopDelay.maxMs.toFixed(0)} ms; slowest /healthz ${longestPing.toFixed(0)} ms; heap ${(m.memory.heapUsedBytes / 1e6).toFixed(0)} MB after`,
    });
  }
  rows.push({ name: 'longest server event-loop stall over all bodies (target < 100 ms)', value: `${worst.toFixed(0)} ms` });
  await server.stop();
  return rows;
}
