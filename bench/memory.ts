/**
 * One instance's resident memory (VmRSS from /proc, sampled every 20 ms): idle after its start,
 * under the redirect's load (wrk, every request a click), during a POST of 10,000 links in one
 * request, and idle again after. The soak (`npm run bench -- soak`, SOAK_SECONDS=600) shows the
 * same figure over ten minutes of mixed load.
 */
import { ensureWrk, wrk } from './redirect.js';
import { rssOf, seed, startServer } from './server.js';

const LOAD_SECONDS = Number(process.env.MEMORY_LOAD_SECONDS ?? 10);
const LINKS = 10_000;

/** The largest RSS (MB) of `pid` while `fn` runs, and what it returned. */
async function peakWhile<T>(pid: number, fn: () => Promise<T>): Promise<{ peak: number; result: T }> {
  let peak = rssOf(pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 20);
  try {
    const result = await fn();
    return { peak: Math.max(peak, rssOf(pid)), result };
  } finally {
    clearInterval(sampler);
  }
}

/** Waits `ms` (the instance's timers settle: batches written, caches swept). */
const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function benchMemory(): Promise<{ name: string; value: string }[]> {
  ensureWrk();
  const server = await startServer();
  try {
    const pid = server.child.pid!;
    const { link, headers } = await seed(server.base);
    const { collectionId } = link as { collectionId: string };
    await settle(2_000);
    const idle = rssOf(pid);
    const path = new URL(link.shortUrl as string).pathname;
    const redirects = await peakWhile(pid, () => wrk(`${server.base}${path}`, LOAD_SECONDS));
    await settle(2_000);
    const afterRedirects = rssOf(pid);
    const body = JSON.stringify(Array.from({ length: LINKS }, (_, i) => ({ url: `https://example.com/memory/${i}?utm_source=bench`, collectionId })));
    const post = await peakWhile(pid, async () => {
      const res = await fetch(`${server.base}/api/links`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
      const text = await res.text();
      if (res.status !== 201) throw new Error(`POST /api/links: ${res.status} ${text.slice(0, 300)}`);
      return res.status;
    });
    await settle(2_000);
    const afterPost = rssOf(pid);
    return [
      { name: 'RSS idle after start and seed (MB)', value: String(idle) },
      { name: `RSS peak under redirect load, ${LOAD_SECONDS} s of wrk -c32 (MB; req/s)`, value: `${redirects.peak}; ${redirects.result.rps.toFixed(0)}` },
      { name: 'RSS 2 s after the load (MB)', value: String(afterRedirects) },
      { name: `RSS peak during POST /api/links of ${LINKS.toLocaleString('en')} links (MB; status)`, value: `${post.peak}; ${post.result}` },
      { name: 'RSS 2 s after the POST (MB)', value: String(afterPost) },
    ];
  } finally {
    await server.stop();
  }
}
