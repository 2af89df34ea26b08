/**
 * The visitor side in a real browser (operations.md §5–6): the password form, a cloaked page
 * and the attribution script, with the app on a real socket at http://localhost:<port>
 * (Chromium treats localhost as a secure context, so the `Secure` password cookie is kept)
 * and the destinations on a local HTTPS server whose certificate the browser context ignores.
 * Skips itself, saying why, when Chromium is not installed; fails under CI (helpers/requirements.ts).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { type Browser, type BrowserContext } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/connect.js';
import type { Plan } from '../../src/core/plans.js';
import { bearer, startTestApp, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/process.js';
import { launchChromium, chromiumAvailable } from '../helpers/requirements.js';

const SCREENSHOTS = 'test/e2e/__screenshots__';
const TLS = { key: readFileSync('test/fixtures/tls/key.pem'), cert: readFileSync('test/fixtures/tls/cert.pem') };

interface ShortLink {
  id: string;
  url: string;
  shortUrl: string;
}

describe.skipIf(!chromiumAvailable('short links in Chromium'))('short links in Chromium', () => {
  let t: TestApp;
  let appOrigin: string;
  let dest: Server;
  let destOrigin: string;
  /** Paths the destination server was asked for. */
  const destHits: string[] = [];
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const appPort = await freePort();
    appOrigin = `http://localhost:${appPort}`;

    dest = createServer(TLS, (req: IncomingMessage, res: ServerResponse) => {
      const path = new URL(req.url ?? '/', 'https://localhost').pathname;
      destHits.push(path);
      const body =
        path === '/attributed'
          ? `<!doctype html><html><head><title>Destination</title><script src="${appOrigin}/attribution.js"></script></head>` +
            '<body><h1>Destination OK</h1></body></html>'
          : '<!doctype html><html><head><title>Destination</title></head><body><h1>Destination OK</h1></body></html>';
      // No X-Frame-Options or frame-ancestors: any page may frame it.
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : body);
    });
    await new Promise<void>((resolve) => dest.listen(0, '127.0.0.1', resolve));
    destOrigin = `https://localhost:${(dest.address() as AddressInfo).port}`;

    t = await startTestApp({
      env: { PORT: String(appPort), BASE_URL: appOrigin, SHORT_LINK_BASE_URL: appOrigin, ALLOW_PRIVATE_DESTINATIONS: 'true' },
    });
    await t.runtime.app.listen({ port: appPort, host: '127.0.0.1' });

    browser = await launchChromium();
  });

  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close();
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    if (dest) {
      dest.closeAllConnections();
      await new Promise<void>((resolve) => dest.close(() => resolve()));
    }
  });

  async function newContext(extra: { userAgent?: string } = {}): Promise<BrowserContext> {
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1000, height: 700 }, ...extra });
    contexts.push(context);
    return context;
  }

  /** One link in a fresh workspace of `plan`, made through the API like a client would. */
  async function createLink(plan: Plan, item: Record<string, unknown>): Promise<ShortLink & { key: string }> {
    const ws = await t.workspace({ plan });
    const send = (url: string, body: unknown): Promise<LightMyRequestResponse> =>
      t.inject({ method: 'POST', url, headers: { ...bearer(ws.key), 'content-type': 'application/json' }, payload: JSON.stringify(body) });
    const col = await send('/api/collections', [{ name: 'Browser' }]);
    expect(col.statusCode, col.body).toBe(201);
    const collectionId = col.json<{ id: string }[]>()[0]!.id;
    const res = await send('/api/links', [{ collectionId, ...item }]);
    expect(res.statusCode, res.body).toBe(201);
    const link = res.json<ShortLink[]>()[0]!;
    expect(link.shortUrl.startsWith(`${appOrigin}/`)).toBe(true);
    return { ...link, key: ws.key };
  }

  /** The click row with this id, waiting (bounded) for the click writer's batch. */
  async function clickRow(id: string): Promise<{ id: string; link_id: string } | undefined> {
    for (let i = 0; i < 100; i++) {
      const found = await rows<{ id: string; link_id: string }>(t.database.db, sql`select id, link_id from clicks where id = ${id}`);
      if (found[0]) return found[0];
      await new Promise((r) => setTimeout(r, 100));
    }
    return undefined;
  }

  it('password form: hides the destination, rejects a wrong password, unlocks with the right one and remembers it', async () => {
    const destination = `${destOrigin}/dest`;
    const link = await createLink('pro', { url: destination, password: 'correct horse battery' });
    const context = await newContext();
    const page = await context.newPage();

    const form = await page.goto(link.shortUrl);
    expect(form?.status()).toBe(401);
    const html = await form!.text();
    expect(html).not.toContain(destination);
    expect(html).not.toContain(destOrigin);
    expect(html).not.toContain('Destination OK');
    await expect(page.locator('input[name="password"][type="password"]').count()).resolves.toBe(1);
    expect(page.url()).toBe(link.shortUrl);
    await page.screenshot({ path: `${SCREENSHOTS}/password-form.png`, fullPage: true });

    // Wrong password: the form again, with an error, still 401, still no destination.
    await page.fill('input[name="password"]', 'wrong password');
    const [wrong] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click('button[type="submit"]')]);
    expect(wrong.status()).toBe(401);
    await page.waitForLoadState('load');
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/wrong password/i);
    expect(page.url()).toBe(link.shortUrl);
    expect(await page.content()).not.toContain(destOrigin);
    expect(destHits.filter((p) => p === '/dest')).toHaveLength(0);
    await page.screenshot({ path: `${SCREENSHOTS}/password-wrong.png`, fullPage: true });

    // Right password: 303 back to the short link, which now forwards to the destination.
    await page.fill('input[name="password"]', 'correct horse battery');
    await Promise.all([page.waitForURL((u) => u.origin === destOrigin, { timeout: 15_000 }), page.click('button[type="submit"]')]);
    const landed = new URL(page.url());
    expect(landed.pathname).toBe('/dest');
    expect(landed.searchParams.get('ltid')).toMatch(/^[0-9a-f-]{36}$/);
    await expect(page.locator('h1').textContent()).resolves.toBe('Destination OK');

    const cookie = (await context.cookies(link.shortUrl)).find((c) => c.name === 'lt_pass');
    expect(cookie).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax', path: new URL(link.shortUrl).pathname });

    // Same context, same short link: the cookie is remembered, no form this time.
    const again = await page.goto(link.shortUrl);
    expect(again?.status()).toBe(200);
    const hop = again!.request().redirectedFrom();
    expect(hop?.url()).toBe(link.shortUrl);
    expect((await hop!.response())?.status()).toBe(302);
    expect(new URL(page.url()).origin).toBe(destOrigin);
    await expect(page.locator('h1').textContent()).resolves.toBe('Destination OK');
    await expect(page.locator('input[name="password"]').count()).resolves.toBe(0);
    const secondClick = new URL(page.url()).searchParams.get('ltid');
    expect(secondClick).toBeTruthy();
    expect(secondClick).not.toBe(landed.searchParams.get('ltid'));
  });

  it('cloaked link: the destination shows in a full-page frame while the address bar keeps the short link', async () => {
    const link = await createLink('business', { url: `${destOrigin}/framed`, cloaked: true });
    const context = await newContext();
    const page = await context.newPage();

    const res = await page.goto(link.shortUrl);
    expect(res?.status()).toBe(200);
    expect(res?.request().redirectedFrom()).toBeNull();
    await expect(page.frameLocator('iframe').locator('h1').textContent({ timeout: 15_000 })).resolves.toBe('Destination OK');
    expect(page.url()).toBe(link.shortUrl);

    const frame = page.frames().find((f) => f !== page.mainFrame());
    expect(frame).toBeDefined();
    const framed = new URL(frame!.url());
    expect(framed.origin).toBe(destOrigin);
    expect(framed.pathname).toBe('/framed');
    const clickId = framed.searchParams.get('ltid');
    expect(clickId).toBeTruthy();
    // The frame fills the viewport.
    const box = await page.locator('iframe').boundingBox();
    expect(box).toMatchObject({ x: 0, y: 0, width: 1000, height: 700 });
    await page.screenshot({ path: `${SCREENSHOTS}/cloaked.png` });

    await expect(clickRow(clickId!)).resolves.toEqual({ id: clickId, link_id: link.id });
  });

  it('attribution script: keeps the click id from the URL in the ltid cookie and exposes it', async () => {
    const link = await createLink('free', { url: `${destOrigin}/attributed` });
    // Headless Chromium announces itself (and is rightly flagged as a bot): look like a visitor.
    const context = await newContext({
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
    });
    const page = await context.newPage();

    const script = page.waitForResponse((r) => r.url() === `${appOrigin}/attribution.js`);
    const res = await page.goto(link.shortUrl);
    expect(res?.status()).toBe(200);
    expect((await script).status()).toBe(200);
    await page.waitForLoadState('load');

    const landed = new URL(page.url());
    expect(landed.origin).toBe(destOrigin);
    expect(landed.pathname).toBe('/attributed');
    const clickId = landed.searchParams.get('ltid');
    expect(clickId).toMatch(/^[0-9a-f-]{36}$/);
    await expect(page.locator('h1').textContent()).resolves.toBe('Destination OK');

    await expect(page.evaluate(() => (globalThis as unknown as { linktrail: { getClickId(): string | null } }).linktrail.getClickId())).resolves.toBe(clickId);
    const cookie = (await context.cookies(destOrigin)).find((c) => c.name === 'ltid');
    expect(cookie?.value).toBe(clickId);
    expect(cookie?.sameSite).toBe('Lax');
    expect(cookie?.path).toBe('/');
    // About 90 days (a session cookie would have expires -1).
    const days = (cookie!.expires - Date.now() / 1000) / 86_400;
    expect(days).toBeGreaterThan(89);
    expect(days).toBeLessThanOrEqual(90);
    await page.screenshot({ path: `${SCREENSHOTS}/destination-attribution.png` });

    await expect(clickRow(clickId!)).resolves.toEqual({ id: clickId, link_id: link.id });

    // The site's backend sends the cookie's click id with the sign-up, then the purchase:
    // the sale is attributed to that lead, and analytics credits the link with both.
    const api = (url: string, payload: unknown) =>
      t.inject({ method: 'POST', url, headers: { ...bearer(link.key), 'content-type': 'application/json' }, payload: JSON.stringify(payload) });
    const lead = await api('/api/track/lead', {
      clickId: cookie!.value,
      eventName: 'Sign up',
      customerExternalId: 'browser-user',
      customerName: 'Browser User',
    });
    expect(lead.statusCode, lead.body).toBe(200);
    expect(lead.json()).toMatchObject({ clickId, linkId: link.id, customer: { externalId: 'browser-user' } });
    const sale = await api('/api/track/sale', { customerExternalId: 'browser-user', customerName: 'Browser User', amount: 4900, currency: 'eur' });
    expect(sale.statusCode, sale.body).toBe(200);
    expect(sale.json()).toMatchObject({ clickId, linkId: link.id, leadId: lead.json().id, amount: 4900, currency: 'eur' });
    const byLink = await t.inject({ method: 'GET', url: '/api/analytics?groupBy=link', headers: bearer(link.key) });
    expect(byLink.json()).toEqual([
      {
        key: link.id,
        clicks: 1,
        visitors: 1,
        leads: 1,
        sales: 1,
        saleAmount: 4900,
        revenue: { eur: 4900 },
        refunded: { eur: 0 },
        shortUrl: link.shortUrl,
        title: null,
      },
    ]);
  });
});
