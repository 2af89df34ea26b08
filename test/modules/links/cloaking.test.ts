/**
 * Cloaking (operations.md §5) against real local HTTPS servers, and the SSRF guard of the
 * destination check. Two apps: one with ALLOW_PRIVATE_DESTINATIONS=true so the check can
 * reach the servers on 127.0.0.1 (which vitest.config.ts makes trusted through
 * NODE_EXTRA_CA_CERTS), and one with the default (false), which must never reach them.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { frameChecker } from '../../../src/modules/links/frame-check.js';
import { BlockedAddressError, safeHead } from '../../../src/infra/safe-fetch.js';
import type { Plan } from '../../../src/core/plans.js';
import { bearer, startTestApp, type TestApp } from '../../helpers/app.js';

const TLS = { key: readFileSync('test/fixtures/tls/key.pem'), cert: readFileSync('test/fixtures/tls/cert.pem') };
/** test/helpers/app.ts sets BASE_URL to this, and SHORT_LINK_BASE_URL defaults to it: the embedder. */
const EMBEDDER = 'https://lt.test';

/** A local HTTPS server recording every request it gets. */
interface Site {
  port: number;
  /** https://127.0.0.1:port */
  origin: string;
  hits: { method: string; path: string }[];
  server: https.Server;
}

const sites: Site[] = [];

async function site(handler: (req: IncomingMessage, res: ServerResponse, self: Site) => void): Promise<Site> {
  const self = { hits: [] } as unknown as Site;
  self.server = https.createServer(TLS, (req, res) => {
    self.hits.push({ method: req.method ?? '', path: req.url ?? '' });
    handler(req, res, self);
  });
  await new Promise<void>((resolve) => self.server.listen(0, '127.0.0.1', resolve));
  self.port = (self.server.address() as AddressInfo).port;
  self.origin = `https://127.0.0.1:${self.port}`;
  sites.push(self);
  return self;
}

const page = (headers: Record<string, string | string[]>) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/html', ...headers });
  res.end('<!doctype html><p>destination</p>');
};

let open: TestApp; // ALLOW_PRIVATE_DESTINATIONS=true
let guarded: TestApp; // the default: private destinations refused
let deny: Site;
let cspNone: Site;
let allow: Site;
let namesEmbedder: Site;
let namesOther: Site;
let twoPolicies: Site;
let headRefused: Site;
let redirect: Site;
let closedPort: number;

beforeAll(async () => {
  deny = await site(page({ 'x-frame-options': 'DENY' }));
  cspNone = await site(page({ 'content-security-policy': "frame-ancestors 'none'" }));
  allow = await site(page({}));
  namesEmbedder = await site(page({ 'content-security-policy': `default-src 'self'; frame-ancestors ${EMBEDDER}` }));
  namesOther = await site(page({ 'content-security-policy': 'frame-ancestors https://partner.example' }));
  // Two CSP headers: the first forbids framing; the second only allows https images.
  twoPolicies = await site(page({ 'content-security-policy': ["frame-ancestors 'none'", 'img-src https:'] }));
  // Refuses HEAD; its GET answer decides (/deny sends DENY, anything else allows).
  headRefused = await site((req, res) => {
    if (req.method === 'HEAD') return void res.writeHead(405, { allow: 'GET' }).end();
    page(req.url === '/deny' ? { 'x-frame-options': 'DENY' } : {})(req, res);
  });
  // 302 to another server: /to-deny, /to-allow, /to-loopback (allowing, on 127.0.0.1 by IP).
  redirect = await site((req, res) => {
    const to: Record<string, string> = {
      '/to-deny': `${deny.origin}/landing`,
      '/to-allow': `https://localhost:${allow.port}/landing`,
      '/to-loopback': `${allow.origin}/from-redirect`,
    };
    const location = to[req.url ?? ''];
    if (!location) return void res.writeHead(404).end();
    res.writeHead(302, { location }).end();
  });
  const closed = await site(page({}));
  closedPort = closed.port;
  await new Promise<void>((resolve) => closed.server.close(() => resolve()));
  sites.splice(sites.indexOf(closed), 1);

  open = await startTestApp({ env: { ALLOW_PRIVATE_DESTINATIONS: 'true' } });
  guarded = await startTestApp();
});

afterAll(async () => {
  await open?.close();
  await guarded?.close();
  for (const s of sites) {
    s.server.closeAllConnections();
    await new Promise<void>((resolve) => s.server.close(() => resolve()));
  }
});

type Item = Record<string, unknown>;
interface Link {
  id: string;
  url: string;
  cloaked: boolean;
  title: string | null;
  [field: string]: unknown;
}

/** A client of a fresh workspace (business or enterprise: cloaking allowed) with a collection. */
async function workspace(app: TestApp, plan: Plan = 'enterprise') {
  const ws = await app.workspace({ plan, rateLimitPerMinute: 1_000_000 });
  const send = (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown): Promise<LightMyRequestResponse> =>
    body === undefined
      ? app.inject({ method, url, headers: bearer(ws.key) })
      : app.inject({ method, url, headers: { ...bearer(ws.key), 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  const col = await send('POST', '/api/collections', [{ name: 'Cloaked' }]);
  expect(col.statusCode, col.body).toBe(201);
  const collectionId = col.json<{ id: string }[]>()[0]!.id;
  const all = async () => {
    const res = await send('GET', '/api/links?take=5000&sort=asc');
    expect(res.statusCode, res.body).toBe(200);
    return res.json<Link[]>();
  };
  return {
    post: (items: Item[]) => send('POST', '/api/links', items),
    put: (items: Item[]) => send('PUT', '/api/links', items),
    all,
    item: (url: string, extra: Item = {}): Item => ({ url, collectionId, cloaked: true, ...extra }),
  };
}

function expect400(res: LightMyRequestResponse, field: string, reason?: RegExp): string {
  expect(res.statusCode, res.body).toBe(400);
  const { error } = res.json<{ error: { en: string; ar: string; code: string } }>();
  expect(error.code).toBe('invalid_field');
  expect(error.en).toContain(`${field}:`);
  expect(error.ar).toContain(field);
  if (reason) expect(error.en).toMatch(reason);
  return error.en;
}

/** The frame_blocked reason (the unreachable one also mentions frames, so name the headers). */
const FRAMING = /X-Frame-Options|frame-ancestors/;
const PRIVATE = /private|loopback/i;
const UNREACHABLE = /reach/i;

describe('the test HTTPS servers', () => {
  it('are trusted by this worker without extra options (NODE_EXTRA_CA_CERTS from vitest.config.ts)', async () => {
    const status = (url: string) =>
      new Promise<number | string>((resolve) => {
        https
          .get(url, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          })
          .on('error', (err) => resolve(`${(err as NodeJS.ErrnoException).code ?? ''} ${err.message}`));
      });
    const hint = `NODE_EXTRA_CA_CERTS=${process.env.NODE_EXTRA_CA_CERTS} must name test/fixtures/tls/cert.pem (or a bundle with it)`;
    expect(await status(`${allow.origin}/`), hint).toBe(200);
    expect(await status(`https://localhost:${allow.port}/`), hint).toBe(200);
  });
});

describe('cloaking with ALLOW_PRIVATE_DESTINATIONS=true', () => {
  it('X-Frame-Options: DENY → 400 naming [i].url, after fetching the destination; nothing written', async () => {
    const api = await workspace(open);
    const before = deny.hits.length;
    expect400(await api.post([api.item(`${allow.origin}/ok`), api.item(`${deny.origin}/landing`)]), '[1].url', FRAMING);
    expect(deny.hits.length).toBeGreaterThan(before);
    expect(await api.all()).toEqual([]);
  });

  it("CSP frame-ancestors 'none' → 400", async () => {
    const api = await workspace(open, 'business');
    expect400(await api.post([api.item(`${cspNone.origin}/landing`)]), '[0].url', FRAMING);
    expect(cspNone.hits.length).toBeGreaterThan(0);
    expect(await api.all()).toEqual([]);
  });

  it('a destination that allows framing → 201 with cloaked true', async () => {
    const api = await workspace(open, 'business');
    const before = allow.hits.length;
    const res = await api.post([api.item(`${allow.origin}/welcome?x=1`)]);
    expect(res.statusCode, res.body).toBe(201);
    const [link] = res.json<Link[]>();
    expect(link).toMatchObject({ url: `${allow.origin}/welcome?x=1`, cloaked: true });
    expect(allow.hits.slice(before)).toContainEqual(expect.objectContaining({ path: '/welcome?x=1' }));
    expect(await api.all()).toEqual([link]);
  });

  it('CSP frame-ancestors naming the short-link origin allows; naming another origin refuses', async () => {
    const api = await workspace(open);
    const ok = await api.post([api.item(`${namesEmbedder.origin}/`)]);
    expect(ok.statusCode, ok.body).toBe(201);
    expect400(await api.post([api.item(`${namesOther.origin}/`)]), '[0].url', FRAMING);
    expect(await api.all()).toEqual(ok.json());
  });

  it('two CSP headers, the first forbidding framing → 400 (every policy must allow it)', async () => {
    const api = await workspace(open);
    expect400(await api.post([api.item(`${twoPolicies.origin}/`)]), '[0].url', FRAMING);
    expect(twoPolicies.hits.length).toBeGreaterThan(0);
    expect(await api.all()).toEqual([]);
  });

  it('a destination refusing HEAD is checked with GET', async () => {
    const api = await workspace(open);
    expect400(await api.post([api.item(`${headRefused.origin}/deny`)]), '[0].url', FRAMING);
    expect(headRefused.hits).toContainEqual({ method: 'GET', path: '/deny' });
    const ok = await api.post([api.item(`${headRefused.origin}/fine`)]);
    expect(ok.statusCode, ok.body).toBe(201);
    expect(headRefused.hits).toContainEqual({ method: 'GET', path: '/fine' });
  });

  it('redirects are followed and the final page decides', async () => {
    const api = await workspace(open);
    const denied = deny.hits.length;
    expect400(await api.post([api.item(`${redirect.origin}/to-deny`)]), '[0].url', FRAMING);
    expect(deny.hits.length).toBeGreaterThan(denied);
    const allowed = allow.hits.length;
    const ok = await api.post([api.item(`${redirect.origin}/to-allow`)]);
    expect(ok.statusCode, ok.body).toBe(201);
    expect(allow.hits.length).toBeGreaterThan(allowed);
    // The link keeps the URL given, not where it redirected.
    expect(ok.json<Link[]>()[0]!.url).toBe(`${redirect.origin}/to-allow`);
  });

  it('an unreachable destination → 400', async () => {
    const api = await workspace(open);
    expect400(await api.post([api.item(`https://127.0.0.1:${closedPort}/`)]), '[0].url', UNREACHABLE);
    expect400(await api.post([api.item('https://no-such-host.invalid/')]), '[0].url', UNREACHABLE);
    expect(await api.all()).toEqual([]);
  });

  it('without cloaking, or without the plan, the destination is not fetched', async () => {
    const api = await workspace(open);
    const before = deny.hits.length;
    const res = await api.post([api.item(`${deny.origin}/plain`, { cloaked: false }), { ...api.item(`${deny.origin}/plain`), cloaked: undefined }]);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json<Link[]>().map((l) => l.cloaked)).toEqual([false, false]);

    const pro = await workspace(open, 'pro');
    expect400(await pro.post([pro.item(`${deny.origin}/pro`)]), '[0].cloaked', /cloaking/i);
    expect(deny.hits.length).toBe(before);
  });

  it('PUT turning cloaking on, or moving a cloaked link, onto a page that forbids framing → 400 and the link is unchanged', async () => {
    const api = await workspace(open);
    const created = await api.post([api.item(`${deny.origin}/x`, { cloaked: false }), api.item(`${allow.origin}/y`)]);
    expect(created.statusCode, created.body).toBe(201);
    const [plain, cloaked] = created.json<Link[]>();
    const before = await api.all();

    expect400(await api.put([{ id: plain!.id, cloaked: true, title: 'now cloaked' }]), '[0].url', FRAMING);
    expect400(await api.put([{ id: cloaked!.id, url: `${cspNone.origin}/moved` }]), '[0].url', FRAMING);
    expect400(
      await api.put([
        { id: plain!.id, url: `${allow.origin}/z`, title: 'ok' },
        { id: cloaked!.id, url: `${deny.origin}/moved` },
      ]),
      '[1].url',
      FRAMING,
    );
    expect(await api.all()).toEqual(before);

    // Onto a page that allows framing, both succeed.
    const res = await api.put([
      { id: plain!.id, url: `${allow.origin}/now`, cloaked: true },
      { id: cloaked!.id, url: `${namesEmbedder.origin}/moved` },
    ]);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<Link[]>().map((l) => [l.url, l.cloaked])).toEqual([
      [`${allow.origin}/now`, true],
      [`${namesEmbedder.origin}/moved`, true],
    ]);
  });

  it('checks every cloaked item of a request: 20 allowed → 201; one refusing among 20 → 400 naming it', async () => {
    const api = await workspace(open);
    const before = allow.hits.length;
    const items = Array.from({ length: 20 }, (_, i) => api.item(`${allow.origin}/bulk/${i}`));
    const res = await api.post(items);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json<Link[]>().every((l) => l.cloaked)).toBe(true);
    const paths = new Set(allow.hits.slice(before).map((h) => h.path));
    for (let i = 0; i < 20; i++) expect(paths).toContain(`/bulk/${i}`);

    const stored = await api.all();
    const mixed = items.map((item, i) => (i === 13 ? api.item(`${deny.origin}/bulk/13`) : item));
    expect400(await api.post(mixed), '[13].url', FRAMING);
    expect(await api.all()).toEqual(stored);
  });
});

describe('every destination a cloaked visitor can land on is checked (url, ios, android, each geo value)', () => {
  it('POST: a non-framable ios, android or geo destination → 400 naming that field, after fetching it; nothing written', async () => {
    const api = await workspace(open, 'business');
    const ok = `${allow.origin}/ok`;
    const cases: [Item, string][] = [
      [{ ios: `${deny.origin}/ios` }, '[0].ios'],
      [{ android: `${cspNone.origin}/android` }, '[0].android'],
      [{ geo: { FR: `${allow.origin}/fr`, DE: `${deny.origin}/de` } }, '[0].geo.DE'],
      [{ ios: ok, android: ok, geo: { JP: `${namesOther.origin}/jp` } }, '[0].geo.JP'],
    ];
    for (const [extra, field] of cases) {
      const before = { deny: deny.hits.length, cspNone: cspNone.hits.length, namesOther: namesOther.hits.length };
      expect400(await api.post([api.item(ok, extra)]), field, FRAMING);
      const fetched = deny.hits.length + cspNone.hits.length + namesOther.hits.length - before.deny - before.cspNone - before.namesOther;
      expect(fetched, field).toBeGreaterThan(0);
    }
    // The second item's ios is named by its index.
    expect400(await api.post([api.item(ok), api.item(ok, { ios: `${deny.origin}/second` })]), '[1].ios', FRAMING);
    expect(await api.all()).toEqual([]);
  });

  it('POST: unreachable device and geo destinations are refused too', async () => {
    const api = await workspace(open, 'business');
    expect400(await api.post([api.item(`${allow.origin}/ok`, { android: `https://127.0.0.1:${closedPort}/` })]), '[0].android', UNREACHABLE);
    expect400(await api.post([api.item(`${allow.origin}/ok`, { geo: { DE: 'https://no-such-host.invalid/' } })]), '[0].geo.DE', UNREACHABLE);
  });

  it('POST: every destination framable → 201, each one fetched', async () => {
    const api = await workspace(open, 'business');
    const before = allow.hits.length;
    const res = await api.post([
      api.item(`${allow.origin}/u`, {
        ios: `${allow.origin}/i`,
        android: `${allow.origin}/a`,
        geo: { DE: `${allow.origin}/de`, FR: `${namesEmbedder.origin}/fr` },
      }),
    ]);
    expect(res.statusCode, res.body).toBe(201);
    const paths = allow.hits.slice(before).map((h) => h.path);
    for (const p of ['/u', '/i', '/a', '/de']) expect(paths).toContain(p);
  });

  it('PUT: the merged final set is checked when any destination or cloaked changes; the link stays unchanged on a 400', async () => {
    const api = await workspace(open, 'business');
    const created = await api.post([
      api.item(`${allow.origin}/c`, { ios: `${allow.origin}/ci`, geo: { DE: `${allow.origin}/cde` } }),
      // Not cloaked, with destinations that forbid framing.
      api.item(`${allow.origin}/p`, { cloaked: false, android: `${deny.origin}/pa`, geo: { FR: `${cspNone.origin}/pfr` } }),
    ]);
    expect(created.statusCode, created.body).toBe(201);
    const [cloaked, plain] = created.json<Link[]>();
    const before = await api.all();

    expect400(await api.put([{ id: cloaked!.id, geo: { DE: `${allow.origin}/ok`, JP: `${deny.origin}/jp` } }]), '[0].geo.JP', FRAMING);
    expect400(await api.put([{ id: cloaked!.id, ios: `${deny.origin}/ios` }]), '[0].ios', FRAMING);
    expect400(await api.put([{ id: cloaked!.id, android: `${cspNone.origin}/and` }]), '[0].android', FRAMING);
    // Turning cloaking on checks the stored destinations it did not change.
    expect400(await api.put([{ id: plain!.id, cloaked: true }]), '[0].android', FRAMING);
    expect400(await api.put([{ id: plain!.id, cloaked: true, android: null }]), '[0].geo.FR', FRAMING);
    expect(await api.all()).toEqual(before);

    // Clearing the refusing ones while turning cloaking on succeeds.
    const fixed = await api.put([{ id: plain!.id, cloaked: true, android: null, geo: null }]);
    expect(fixed.statusCode, fixed.body).toBe(200);
    expect(fixed.json<Link[]>()[0]).toMatchObject({ cloaked: true, android: null, geo: null });
  });

  it('PUT that changes no destination and not cloaked fetches nothing', async () => {
    const api = await workspace(open, 'business');
    const created = await api.post([api.item(`${allow.origin}/t`, { ios: `${allow.origin}/ti` })]);
    expect(created.statusCode, created.body).toBe(201);
    const hits = allow.hits.length;
    const res = await api.put([{ id: created.json<Link[]>()[0]!.id, title: 'renamed' }]);
    expect(res.statusCode, res.body).toBe(200);
    expect(allow.hits.length).toBe(hits);
  });
});

describe('the SSRF guard (default: ALLOW_PRIVATE_DESTINATIONS=false)', () => {
  it('refuses loopback destinations by IP and never connects', async () => {
    const api = await workspace(guarded);
    const before = allow.hits.length;
    for (const host of ['127.0.0.1', '[::1]', '[::ffff:127.0.0.1]', '127.1']) {
      const res = await api.post([api.item(`https://${host}:${allow.port}/`)]);
      expect(res.statusCode, host).toBe(400);
      expect400(res, '[0].url', PRIVATE);
    }
    expect(allow.hits.length).toBe(before);
    expect(await api.all()).toEqual([]);
  });

  it('refuses loopback written inside IPv6 (IPv4-compatible, mapped, NAT64, 6to4, Teredo) and never connects', async () => {
    const api = await workspace(guarded);
    const before = allow.hits.length;
    const hosts = ['[::127.0.0.1]', '[::7f00:1]', '[::ffff:7f00:1]', '[64:ff9b::127.0.0.1]', '[2002:7f00:1::1]', '[2001:0:4136:e378:8000:63bf:80ff:fffe]'];
    for (const host of hosts) expect400(await api.post([api.item(`https://${host}:${allow.port}/`)]), '[0].url', PRIVATE);
    expect(allow.hits.length).toBe(before);
    expect(await api.all()).toEqual([]);
  });

  it('refuses a DNS name resolving to loopback (localhost) and never connects', async () => {
    const api = await workspace(guarded);
    const before = allow.hits.length;
    expect400(await api.post([api.item(`https://localhost:${allow.port}/`)]), '[0].url', PRIVATE);
    expect(allow.hits.length).toBe(before);
  });

  it('refuses private and link-local addresses (10.0.0.1, 169.254.169.254, 192.168.0.1) without trying them', async () => {
    const api = await workspace(guarded);
    for (const url of ['https://10.0.0.1/', 'https://169.254.169.254/latest/meta-data/', 'https://192.168.0.1/', 'https://100.64.0.1/']) {
      expect400(await api.post([api.item(url)]), '[0].url', PRIVATE);
    }
    expect(await api.all()).toEqual([]);
  });

  it('a redirecting server on a private address is refused at the first hop: no request reaches it', async () => {
    const before = { redirect: redirect.hits.length, allow: allow.hits.length };
    const options = { allowPrivate: false, timeoutMs: 4000, maxRedirects: 5 };
    await expect(safeHead(`${redirect.origin}/to-loopback`, 'HEAD', options)).rejects.toBeInstanceOf(BlockedAddressError);
    await expect(safeHead(`https://localhost:${redirect.port}/to-loopback`, 'GET', options)).rejects.toBeInstanceOf(BlockedAddressError);
    expect(await frameChecker(EMBEDDER, { allowPrivate: false })(`${redirect.origin}/to-allow`)).toEqual({ ok: false, reason: 'private_address' });
    expect(redirect.hits.length).toBe(before.redirect);
    expect(allow.hits.length).toBe(before.allow);
  });

  it('links that are not cloaked may point anywhere: nothing is fetched', async () => {
    const api = await workspace(guarded);
    const res = await api.post([api.item('https://10.0.0.1/', { cloaked: false }), api.item(`https://localhost:${allow.port}/`, { cloaked: false })]);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json<Link[]>().map((l) => l.cloaked)).toEqual([false, false]);
  });

  it('an unknown host is unreachable, not a 500', async () => {
    const api = await workspace(guarded);
    expect400(await api.post([api.item(`https://${randomUUID()}.invalid/`)]), '[0].url', UNREACHABLE);
  });
});

describe('redirect hops', () => {
  it('safeHead follows every redirect hop itself (so each hop goes through the same address guard)', async () => {
    // With private addresses allowed the hops are observable: the redirect is answered by
    // safeHead's own loop, and the second server is asked too.
    const before = { redirect: redirect.hits.length, allow: allow.hits.length };
    const res = await safeHead(`${redirect.origin}/to-loopback`, 'HEAD', { allowPrivate: true, timeoutMs: 4000, maxRedirects: 5 });
    expect(res.status).toBe(200);
    expect(res.url).toBe(`${allow.origin}/from-redirect`);
    expect(redirect.hits.slice(before.redirect)).toEqual([{ method: 'HEAD', path: '/to-loopback' }]);
    expect(allow.hits.slice(before.allow)).toEqual([{ method: 'HEAD', path: '/from-redirect' }]);
    // No more hops than allowed.
    await expect(safeHead(`${redirect.origin}/to-loopback`, 'HEAD', { allowPrivate: true, timeoutMs: 4000, maxRedirects: 0 })).rejects.toThrow(/redirect/i);
    expect(await frameChecker(EMBEDDER, { allowPrivate: true })(`${redirect.origin}/to-deny`)).toEqual({ ok: false, reason: 'frame_blocked' });
  });
});

describe('a redirect to a forbidden address', () => {
  it('is refused at that hop: the first server is asked, the one it points to never is', async () => {
    // The first hop (127.0.0.1) stands in for a public site; the redirect points at ::1, which
    // stands in for a private address. Both are checked by the same guard.
    const target = https.createServer(TLS, (_req, res) => {
      targetHits++;
      res.end('never');
    });
    let targetHits = 0;
    await new Promise<void>((resolve) => target.listen(0, '::1', resolve));
    const targetPort = (target.address() as AddressInfo).port;
    const hop = await site((_req, res) => {
      res.writeHead(302, { location: `https://[::1]:${targetPort}/inside` });
      res.end();
    });
    const onlyFirstHop = { allowPrivate: false, isAllowedAddress: (a: string) => a === '127.0.0.1' };
    try {
      await expect(safeHead(`${hop.origin}/out`, 'HEAD', { ...onlyFirstHop, timeoutMs: 4000, maxRedirects: 5 })).rejects.toBeInstanceOf(BlockedAddressError);
      expect(await frameChecker(EMBEDDER, onlyFirstHop)(`${hop.origin}/out`)).toEqual({ ok: false, reason: 'private_address' });
      expect(hop.hits.map((h) => h.path)).toEqual(['/out', '/out']);
      expect(targetHits).toBe(0);
    } finally {
      await new Promise((resolve) => target.close(resolve));
    }
  });
});
