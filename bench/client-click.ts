/**
 * Browser tracking's click (operations.md §19) against the redirect, in the same run and the same
 * server: wrk on the short link (a 302 and a click) and wrk posting POST /api/track/click with the
 * publishable key from an allowed Origin (a click through the same batches, without the 302).
 * Both send each request from another visitor address (X-Forwarded-For with TRUST_PROXY), so
 * every one is a new visitor's click (the unique-visitor claims written alike) and none meets the
 * per-visitor window. Rounds alternate; the ratio is the median of the rounds'. Goal: at least 0.5.
 * Besides req/s, the CPU time per request of the instance, PostgreSQL and Redis (from /proc).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuPerRequest, cpuSnapshot } from './cpu.js';
import { ensureWrk, median, wrk } from './redirect.js';
import { seed, startServer } from './server.js';

const ROUNDS = Number(process.env.CLIENT_CLICK_ROUNDS ?? 3);
const SECONDS = Number(process.env.CLIENT_CLICK_SECONDS ?? 5);

/** A new visitor address for every request, and a desktop browser. */
const NEW_VISITOR_EACH_REQUEST = `local n = 0
wrk.headers["User-Agent"] = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36"
request = function()
  n = n + 1
  wrk.headers["X-Forwarded-For"] = "10." .. (n % 250) .. "." .. (math.floor(n / 250) % 250) .. "." .. (math.floor(n / 62500) % 250)
  return wrk.format()
end
`;

/** One measured run with the CPU each process spent per request. */
async function measured(pid: number, url: string, script: string) {
  const before = cpuSnapshot(pid);
  const run = await wrk(url, SECONDS, undefined, 32, script);
  return { ...run, cpu: cpuPerRequest(before, cpuSnapshot(pid), run.requests) };
}

export async function benchClientClick(): Promise<{ name: string; value: string }[]> {
  ensureWrk();
  const server = await startServer({ TRUST_PROXY: 'true', CLIENT_TRACKING_PER_MINUTE: '100000000' });
  try {
    const { link, headers } = await seed(server.base);
    const put = await fetch(`${server.base}/api/tracking`, {
      method: 'PUT',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ allowedHostnames: ['bench.example'] }),
    });
    const { publishableKey } = (await put.json()) as { publishableKey: string };
    const shortUrl = new URL(link.shortUrl as string);
    const shortId = shortUrl.pathname.slice(1);
    const dir = mkdtempSync(join(tmpdir(), 'lt-bench-click-'));
    const clickScript = join(dir, 'click.lua');
    const redirectScript = join(dir, 'redirect.lua');
    writeFileSync(
      clickScript,
      `wrk.method = "POST"
wrk.body = '{"shortId":"${shortId}","url":"https://bench.example/?utm_source=bench"}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer ${publishableKey}"
wrk.headers["Origin"] = "https://bench.example"
${NEW_VISITOR_EACH_REQUEST}`,
    );
    writeFileSync(redirectScript, NEW_VISITOR_EACH_REQUEST);
    const redirectUrl = `${server.base}${shortUrl.pathname}`;
    const clickUrl = `${server.base}/api/track/click`;
    const pid = server.child.pid!;
    // Warm both (the link cache, the key and link memos, the JIT).
    await wrk(redirectUrl, 2, undefined, 32, redirectScript);
    await wrk(clickUrl, 2, undefined, 32, clickScript);
    const redirect: Awaited<ReturnType<typeof measured>>[] = [];
    const click: Awaited<ReturnType<typeof measured>>[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      redirect.push(await measured(pid, redirectUrl, redirectScript));
      click.push(await measured(pid, clickUrl, clickScript));
    }
    const med = (runs: typeof click, f: (r: (typeof click)[number]) => number) => median(runs.map(f));
    const cpu = (runs: typeof click) =>
      ['instance', 'postgres', 'redis', 'total'].map((role) => `${role} ${med(runs, (r) => r.cpu[role]!).toFixed(0)}`).join(', ');
    return [
      { name: 'redirect 302 + click (req/s, median)', value: med(redirect, (r) => r.rps).toFixed(0) },
      { name: 'POST /api/track/click (req/s, median)', value: med(click, (r) => r.rps).toFixed(0) },
      { name: 'track/click ÷ redirect (median of rounds)', value: median(click.map((c, i) => c.rps / redirect[i]!.rps)).toFixed(2) },
      { name: 'redirect CPU µs per request (median)', value: cpu(redirect) },
      { name: 'track/click CPU µs per request (median)', value: cpu(click) },
      { name: 'answers other than 2xx/3xx (both)', value: String([...redirect, ...click].reduce((n, r) => n + r.non3xx, 0)) },
      { name: 'rounds × seconds', value: `${ROUNDS} × ${SECONDS}` },
    ];
  } finally {
    await server.stop();
  }
}
