/**
 * Browser tracking's click (operations.md §19) against the redirect, in the same run and the same
 * server: wrk on the short link (a 302 and a click) and wrk posting POST /api/track/click with the
 * publishable key from an allowed Origin (a click through the same batches, without the 302),
 * each request from another visitor address (X-Forwarded-For with TRUST_PROXY), so every one is
 * a new click and none meets the per-visitor window. Rounds alternate; the ratio is the median
 * of the rounds'. Goal: at least 0.5.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ensureWrk, median, wrk } from './redirect.js';
import { seed, startServer } from './server.js';

const ROUNDS = Number(process.env.CLIENT_CLICK_ROUNDS ?? 3);
const SECONDS = Number(process.env.CLIENT_CLICK_SECONDS ?? 5);

/** wrk with a Lua script (a POST whose X-Forwarded-For changes every request). */
async function wrkScript(url: string, script: string, seconds: number, connections = 32): Promise<{ rps: number; p50: string; non2xx: number }> {
  const { stdout } = await promisify(execFile)('wrk', ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', script, url], { encoding: 'utf8' });
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? NaN),
    p50: /^\s+50%\s+(\S+)/m.exec(stdout)?.[1] ?? '?',
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0),
  };
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
    const script = join(mkdtempSync(join(tmpdir(), 'lt-bench-click-')), 'click.lua');
    writeFileSync(
      script,
      `local n = 0
wrk.method = "POST"
wrk.body = '{"shortId":"${shortId}","url":"https://bench.example/?utm_source=bench"}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer ${publishableKey}"
wrk.headers["Origin"] = "https://bench.example"
wrk.headers["User-Agent"] = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36"
request = function()
  n = n + 1
  wrk.headers["X-Forwarded-For"] = "10." .. (n % 250) .. "." .. (math.floor(n / 250) % 250) .. "." .. (math.floor(n / 62500) % 250)
  return wrk.format()
end
`,
    );
    // Warm both (the link cache, the key and link memos, the JIT).
    await wrk(`${server.base}${shortUrl.pathname}`, 2);
    await wrkScript(`${server.base}/api/track/click`, script, 2);
    const redirect: number[] = [];
    const click: number[] = [];
    const ratios: number[] = [];
    let refused = 0;
    for (let i = 0; i < ROUNDS; i++) {
      const r = await wrk(`${server.base}${shortUrl.pathname}`, SECONDS);
      const c = await wrkScript(`${server.base}/api/track/click`, script, SECONDS);
      redirect.push(r.rps);
      click.push(c.rps);
      refused += c.non2xx;
      ratios.push(c.rps / r.rps);
    }
    return [
      { name: 'redirect 302 + click (req/s, median)', value: median(redirect).toFixed(0) },
      { name: 'POST /api/track/click (req/s, median)', value: median(click).toFixed(0) },
      { name: 'track/click ÷ redirect (median of rounds)', value: median(ratios).toFixed(2) },
      { name: 'track/click answers other than 2xx', value: String(refused) },
      { name: 'rounds × seconds', value: `${ROUNDS} × ${SECONDS}` },
    ];
  } finally {
    await server.stop();
  }
}
