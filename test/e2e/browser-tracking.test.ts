/**
 * Attribution from the browser (operations.md §19) as a visitor meets it, in Chromium: two
 * hostnames of this machine (`site.test`, `checkout.test`, and a refused `evil.test`, all mapped
 * to 127.0.0.1 with --host-resolver-rules) serve pages with /attribution.js; the app listens on
 * 127.0.0.1. A visitor lands on site.test/?via=<key>: the script records the click, a link to
 * checkout.test carries the click id, the checkout page tracks a lead with linktrail.trackLead,
 * and the partner earns its (held) commission. First-click keeps the first id; a refused origin
 * gets nothing; the cookie is first-party, on the configured domain, for the configured days.
 */
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/process.js';
import { launchChromium, chromiumAvailable } from '../helpers/requirements.js';
import { DESKTOP } from '../helpers/visitors.js';

const SCREENSHOTS = 'test/e2e/__screenshots__';

describe.skipIf(!chromiumAvailable('browser tracking in Chromium'))('browser tracking in Chromium', () => {
  let t: TestApp;
  let app: string;
  let pages: Server;
  let port: number;
  let browser: Browser;
  let publishableKey: string;
  let send: (method: string, url: string, body?: unknown) => Promise<{ statusCode: number; json(): any }>; // eslint-disable-line @typescript-eslint/no-explicit-any -- records as the API answers them
  const partners: { id: string; referralKey: string; defaultLinkId: string }[] = [];
  const contexts: BrowserContext[] = [];

  /** The script tag a page of the sites carries. */
  const tag = (extra: Record<string, string> = {}) => {
    const attrs = {
      'publishable-key': publishableKey,
      'api-host': app,
      'outbound-domains': 'checkout.test',
      'cookie-domain': 'site.test',
      'attribution-days': '30',
      ...extra,
    };
    return `<script src="${app}/attribution.js" ${Object.entries(attrs)
      .map(([k, v]) => `data-${k}="${v}"`)
      .join(' ')}></script>`;
  };

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const appPort = await freePort();
    app = `http://127.0.0.1:${appPort}`;
    t = await startTestApp({ env: { PORT: String(appPort), BASE_URL: app, SHORT_LINK_BASE_URL: app } });
    await t.runtime.app.listen({ port: appPort, host: '127.0.0.1' });

    const ws = await t.workspace({ rateLimitPerMinute: 100_000 });
    send = async (method, url, body) =>
      t.inject({
        method: method as 'GET',
        url,
        headers: { ...bearer(ws.key), 'content-type': 'application/json' },
        payload: body === undefined ? undefined : JSON.stringify(body),
      });
    const ok = async (method: string, url: string, body?: unknown, status = 200) => {
      const res = await send(method, url, body);
      expect(res.statusCode, `${method} ${url}`).toBe(status);
      return res.json();
    };
    await ok('PUT', '/api/program', { name: 'Site friends', slug: `bt-${randomUUID().slice(0, 8)}`, landingUrl: 'https://site.test/', currency: 'usd' });
    const [group] = await ok('GET', '/api/partner-groups');
    await ok('PUT', '/api/partner-groups', [{ id: group.id, rewards: [{ event: 'lead', type: 'flat', amount: 300 }] }]);
    for (const name of ['Ada Visitor', 'Bea Second', 'Cy Refused']) {
      const [p] = await ok('POST', '/api/partners', [{ name }], 201);
      let found: { defaultLinkId: string | null; referralKey: string } | undefined;
      // The default link is made by the approval's job: waited for (beforeAll has no expect.poll).
      for (let i = 0; i < 200 && !found?.defaultLinkId; i++) {
        found = (await ok('GET', '/api/partners?take=100')).find((x: { id: string }) => x.id === p.id);
        if (!found?.defaultLinkId) await new Promise((r) => setTimeout(r, 50));
      }
      expect(found?.defaultLinkId, `${name}'s default link`).toBeTruthy();
      partners.push({ id: p.id, referralKey: found!.referralKey, defaultLinkId: found!.defaultLinkId! });
    }
    publishableKey = (await ok('PUT', '/api/tracking', { allowedHostnames: ['site.test', 'checkout.test'] })).publishableKey;

    port = await freePort();
    pages = createServer((req, res) => {
      const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
      const host = url.hostname;
      let body: string;
      if (host === 'checkout.test') body = `<title>Checkout</title>${tag({ 'cookie-domain': '' })}<h1>Checkout</h1>`;
      else if (url.pathname === '/first') body = `<title>Site</title>${tag({ attribution: 'first-click' })}<h1>First click</h1>`;
      else
        body =
          `<title>Site</title>${tag()}<h1>Welcome</h1>` +
          `<a id="buy" href="http://checkout.test:${port}/checkout?plan=pro">Buy</a> <a id="stay" href="/about">About</a>` +
          `<form id="pay" method="get" action="http://checkout.test:${port}/pay"><button>Pay</button></form>`;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(`<!doctype html><html><head><meta charset="utf-8">${body}</head><body></body></html>`);
    });
    await new Promise<void>((resolve) => pages.listen(port, '127.0.0.1', resolve));

    browser = await launchChromium(['--host-resolver-rules=MAP site.test 127.0.0.1, MAP checkout.test 127.0.0.1, MAP evil.test 127.0.0.1']);
  });

  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close();
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    if (pages) {
      pages.closeAllConnections();
      await new Promise<void>((resolve) => pages.close(() => resolve()));
    }
  });

  async function visitor(): Promise<{ context: BrowserContext; page: Page }> {
    // A visitor's browser (a HeadlessChrome agent is a known bot: kept, never listed in analytics).
    const context = await browser.newContext({ viewport: { width: 1000, height: 700 }, userAgent: DESKTOP });
    contexts.push(context);
    return { context, page: await context.newPage() };
  }
  const clickId = (page: Page) => page.evaluate(() => (globalThis as unknown as { linktrail: { getClickId(): string | null } }).linktrail.getClickId());
  const ready = (page: Page) => page.evaluate(() => (globalThis as unknown as { linktrail: { ready: Promise<unknown> } }).linktrail.ready);
  const clicksOf = async (linkId: string) => (await send('GET', `/api/analytics?linkId=${linkId}`)).json() as { id: string; trigger: string }[];

  it('a via link: the click, the click id carried to the checkout, a lead tracked there, the partner’s commission', async () => {
    const ada = partners[0]!;
    const { context, page } = await visitor();
    await page.goto(`http://site.test:${port}/?via=${ada.referralKey}`);
    const answer = (await ready(page)) as { clickId: string; partner: { id: string } };
    expect(answer.partner.id).toBe(ada.id);
    const id = await clickId(page);
    expect(id).toBe(answer.clickId);
    // The click is the partner's, on their default link, trigger via.
    await expect.poll(async () => (await clicksOf(ada.defaultLinkId)).map((c) => [c.id, c.trigger]), { timeout: 10_000 }).toEqual([[id, 'via']]);
    // First-party cookie on .site.test for 30 days, SameSite=Lax.
    const [cookie] = (await context.cookies(`http://site.test:${port}/`)).filter((c) => c.name === 'ltid');
    expect(cookie).toMatchObject({ value: id, domain: '.site.test', sameSite: 'Lax', httpOnly: false, secure: false });
    const days = (cookie!.expires - Date.now() / 1000) / 86_400;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThan(30.1);
    expect(await context.cookies(`http://checkout.test:${port}/`)).toEqual([]);
    // The outbound link and form carry the click id; a link of the site itself does not.
    expect(new URL((await page.getAttribute('#buy', 'href'))!).searchParams.get('ltid')).toBe(id);
    expect(await page.getAttribute('#stay', 'href')).toBe('/about');
    expect(await page.inputValue('#pay input[name="ltid"]')).toBe(id);
    await page.click('#buy');
    await page.waitForURL(/checkout\.test/);
    expect(new URL(page.url()).searchParams.get('ltid')).toBe(id);
    expect(await clickId(page)).toBe(id);
    const lead = await page.evaluate(() =>
      (globalThis as unknown as { linktrail: { trackLead(b: object): Promise<unknown> } }).linktrail.trackLead({
        eventName: 'Sign up',
        customerExternalId: 'cu-browser',
        customerName: 'Eve Visitor',
      }),
    );
    expect(lead).toMatchObject({ clickId: id, source: 'client', linkId: ada.defaultLinkId });
    await page.screenshot({ path: `${SCREENSHOTS}/browser-tracking-checkout.png` });
    const commissions = (await send('GET', `/api/commissions?partnerId=${ada.id}`)).json();
    expect(commissions).toEqual([expect.objectContaining({ partnerId: ada.id, type: 'lead', earnings: 300, status: 'held', holdReasons: ['clientEvent'] })]);
  });

  it('first-click keeps the first click id; last-click takes the new one', async () => {
    const [ada, bea] = [partners[0]!, partners[1]!];
    const { page } = await visitor();
    await page.goto(`http://site.test:${port}/first?via=${ada.referralKey}`);
    const first = ((await ready(page)) as { clickId: string }).clickId;
    await page.goto(`http://site.test:${port}/first?via=${bea.referralKey}`);
    const second = ((await ready(page)) as { clickId: string }).clickId;
    expect(second).not.toBe(first);
    expect(await clickId(page)).toBe(first);
    // The default page (last-click): the newer click id replaces it.
    await page.goto(`http://site.test:${port}/?via=${bea.referralKey}`);
    expect(((await ready(page)) as { clickId: string }).clickId).toBe(second);
    expect(await clickId(page)).toBe(second);
  });

  it('a page of a refused origin gets nothing', async () => {
    const [bea, cy] = [partners[1]!, partners[2]!];
    const { context, page } = await visitor();
    // The preflight gets no CORS answer for this origin: the browser never sends the click.
    const failed: string[] = [];
    page.on('requestfailed', (r) => {
      if (r.url().endsWith('/api/track/click')) failed.push(r.method());
    });
    await page.goto(`http://evil.test:${port}/?via=${cy.referralKey}`);
    expect(await ready(page)).toBeNull();
    expect(await clickId(page)).toBeNull();
    expect(failed).toEqual(['POST']);
    expect((await context.cookies()).filter((c) => c.name === 'ltid')).toEqual([]);
    const lead = await page.evaluate(() =>
      (globalThis as unknown as { linktrail: { trackLead(b: object): Promise<unknown> } }).linktrail
        .trackLead({ eventName: 'x', customerExternalId: 'x', customerName: 'x', clickId: '00000000-0000-4000-8000-000000000000' })
        .then(
          () => 'accepted',
          () => 'refused',
        ),
    );
    expect(lead).toBe('refused');
    // A later allowed click is written (clicks go in batches, in order): the refused one never was.
    const other = await visitor();
    await other.page.goto(`http://site.test:${port}/?via=${bea.referralKey}`);
    const later = ((await ready(other.page)) as { clickId: string }).clickId;
    await expect.poll(async () => (await clicksOf(bea.defaultLinkId)).some((c) => c.id === later), { timeout: 10_000 }).toBe(true);
    expect(await clicksOf(cy.defaultLinkId)).toEqual([]);
  });
});
