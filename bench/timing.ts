/**
 * Timings that tests used to assert (issue 42: a test asserts behaviour; time is measured here),
 * on the built server:
 * - a click id of another workspace answered as slowly as an unknown one on POST /api/track/lead
 *   (both wait for the instances' click queues; before issue 11's fix the foreign one answered
 *   ~100 times faster, which told a stranger the id exists): the ratio should stay near 1;
 * - a billion-laughs SVG and a billion <use>s refused as logos (a 400 each, within seconds);
 * - ten wrong passwords from one address, paced by the login throttle (250 ms, 500 ms, 1 s, 2 s,
 *   then 4 s before attempts 4 to 10: 15 s or more).
 */
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { BENCH_ADMIN, seed, startServer } from './server.js';

const SVG_HEAD = '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">';

export async function benchTiming(): Promise<{ name: string; value: string }[]> {
  if (!process.env.DATABASE_URL) throw new Error('benchTiming needs DATABASE_URL');
  const server = await startServer();
  const out: { name: string; value: string }[] = [];
  try {
    const a = await seed(server.base);
    const b = await seed(server.base);
    const post = (path: string, headers: Record<string, string>, body: unknown, type = 'application/json') =>
      fetch(`${server.base}${path}`, {
        method: 'POST',
        headers: { ...headers, 'content-type': type },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
    const timed = async (run: () => Promise<Response>, status: number): Promise<number> => {
      const t0 = performance.now();
      const res = await run();
      await res.text();
      if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}`);
      return performance.now() - t0;
    };
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;

    // B's click, stored (B tracked a lead on it); A asks about it and about an id nobody has.
    const visit = await fetch(`${server.base}${new URL(b.link.shortUrl).pathname}`, { redirect: 'manual' });
    const bClick = new URL(visit.headers.get('location')!).searchParams.get('ltid')!;
    const lead = (clickId: string) => ({ clickId, eventName: 'Sign up', customerExternalId: 'user-1', customerName: 'N' });
    await timed(() => post('/api/track/lead', b.headers, lead(bClick)), 200);
    const foreign: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 5; i++) {
      foreign.push(await timed(() => post('/api/track/lead', a.headers, lead(bClick)), 400));
      unknown.push(await timed(() => post('/api/track/lead', a.headers, lead(randomUUID())), 400));
    }
    out.push(
      { name: 'track/lead, foreign click id (ms, median of 5)', value: median(foreign).toFixed(0) },
      { name: 'track/lead, unknown click id (ms, median of 5)', value: median(unknown).toFixed(0) },
      { name: 'foreign / unknown (near 1; tests once required > 1/3)', value: (median(foreign) / median(unknown)).toFixed(2) },
    );

    const lols = Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`).join('');
    const laughs = `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY lol "lol">${lols}]>${SVG_HEAD}<text>&lol9;</text></svg>`;
    let uses = '<defs><rect id="a0" width="1" height="1"/>';
    for (let i = 1; i <= 11; i++) uses += `<g id="a${i}">${`<use href="#a${i - 1}"/>`.repeat(10)}</g>`;
    const useBomb = `${SVG_HEAD}${uses}</defs><use href="#a11"/></svg>`;
    out.push(
      { name: 'billion-laughs SVG logo refused (ms)', value: (await timed(() => post('/api/qr-logos', a.headers, laughs, 'image/svg+xml'), 400)).toFixed(0) },
      { name: 'billion <use>s SVG logo refused (ms)', value: (await timed(() => post('/api/qr-logos', a.headers, useBomb, 'image/svg+xml'), 400)).toFixed(0) },
    );

    const person = { email: `timing-${randomUUID()}@example.com`, name: 'Timing', password: 'violet-harbour-91-lantern' };
    await timed(() => post('/admin/users', { authorization: `Bearer ${BENCH_ADMIN}` }, person), 201);
    const t0 = performance.now();
    for (let i = 1; i <= 10; i++) await timed(() => post('/api/auth/login', {}, { email: person.email, password: `wrong guess number ${i}` }), 401);
    out.push({ name: 'ten wrong passwords from one address, throttled (s; 15 or more)', value: ((performance.now() - t0) / 1000).toFixed(1) });
  } finally {
    await server.stop();
  }
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await benchTiming());
}
