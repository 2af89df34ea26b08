/**
 * Caches a link in the redirect fast path: HEADs (which record nothing) until one is answered
 * before the framework. One HEAD is not enough on Redis: any link change published while the
 * link loads (another test file's, on the shared channel) makes the cache use that load once and
 * keep nothing.
 */
export async function warmFastPath(base: string, path: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(base + path, { redirect: 'manual', method: 'HEAD' });
    if (res.headers.get('x-request-id') === null) return;
    if (Date.now() >= deadline) throw new Error(`${path} never reached the fast path`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
