/**
 * Embedded referrals in Chromium (operations.md §18): the page a token opens, put in an iframe by
 * two sites on this machine (Chromium's --host-resolver-rules maps allowed.test and refused.test
 * to 127.0.0.1). Embedding origins are https origins, so the two parent pages are served over
 * https with the test certificate (test/fixtures/tls, for which Chromium is told
 * --ignore-certificate-errors); the framed page itself comes from the app on http://127.0.0.1,
 * which a secure page may frame (loopback is potentially trustworthy, no mixed content). The
 * program's embedOrigins names allowed.test only: there the frame shows the partner's link and
 * figures, in English and Arabic at 1280 and 375 px; refused.test's frame is blocked by the
 * page's frame-ancestors. The page alone passes axe at both widths in both languages.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Frame, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.js';
import { startSmtp, type TestSmtp } from '../helpers/smtp.js';
import { within } from '../helpers/wait.js';
import { click } from '../modules/partner-portal/helpers.js';
import { DESKTOP, PHONE, SCREENSHOTS, dashboardRunnable, startDashboard, type Dashboard } from './dashboard-harness.js';

describe.runIf(dashboardRunnable())('an embedded referral page in the browser', () => {
  let d: Dashboard;
  let smtp: TestSmtp;
  let site: Server;
  let port: number;
  let key: string;
  let token: string;
  let shortUrl: string;

  beforeAll(async () => {
    site = createServer({ key: readFileSync('test/fixtures/tls/key.pem'), cert: readFileSync('test/fixtures/tls/cert.pem') }, (req, res) => {
      // The embedding product's page: the referral page in a frame, as the README shows.
      const src = new URL(req.url ?? '/', 'https://site.test').searchParams.get('src') ?? '';
      const escaped = src.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        `<!doctype html><html><head><meta name="viewport" content="width=device-width,initial-scale=1"><title>Host app</title>` +
          `<style>body{margin:0;font-family:sans-serif}header{padding:8px 12px;background:#222;color:#fff}iframe{display:block;border:0;width:100%;height:1000px}</style></head>` +
          `<body><header>Host app</header><iframe title="Referrals" allow="clipboard-write" src="${escaped}"></iframe></body></html>`,
      );
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    port = (site.address() as AddressInfo).port;
    smtp = await startSmtp();
    d = await startDashboard(
      { SMTP_URL: smtp.url, MAIL_FROM: 'Linktrail <links@lt.test>' },
      { browserArgs: ['--host-resolver-rules=MAP allowed.test 127.0.0.1, MAP refused.test 127.0.0.1', '--ignore-certificate-errors'] },
    );

    key = (await d.t.workspace()).key;
    const program = await d.t.inject({
      method: 'PUT',
      url: '/api/program',
      headers: bearer(key),
      payload: {
        name: 'Lamp Friends',
        slug: 'lamp-friends-embed',
        landingUrl: 'https://shop.example/',
        currency: 'usd',
        holdingDays: 0,
        embedOrigins: [`https://allowed.test:${port}`],
        fraudRules: { selfReferral: false, sameVisitor: false, disposableEmail: false, burst: false, duplicateCustomer: false },
      },
    });
    expect(program.statusCode, program.body).toBe(200);
    const groups = await d.t.inject({ method: 'GET', url: '/api/partner-groups', headers: bearer(key) });
    const group = groups.json<{ id: string }[]>()[0]!;
    await d.t.inject({
      method: 'PUT',
      url: '/api/partner-groups',
      headers: bearer(key),
      payload: [
        {
          id: group.id,
          rewards: [
            { event: 'lead', type: 'flat', amount: 300 },
            { event: 'sale', type: 'percentage', amount: 2000 },
          ],
        },
      ],
    });
    const minted = await d.t.inject({
      method: 'POST',
      url: '/api/embed-tokens',
      headers: bearer(key),
      payload: { tenantId: 'user-42', name: 'Ana Lima', email: 'ana@example.net' },
    });
    expect(minted.statusCode, minted.body).toBe(201);
    token = minted.json<{ token: string }>().token;

    // The partner's default link is made in the background: poll the page's API for it, then a click, a sign-up and a sale.
    const read = async () =>
      (await d.t.inject({ method: 'GET', url: '/api/embed/referrals', headers: bearer(token) })).json<{
        link: { shortUrl: string } | null;
        totals: { clicks: number };
      }>();
    expect(await within(10_000, async () => (await read()).link !== null), 'the default link is made').toBe(true);
    shortUrl = (await read()).link!.shortUrl;
    const clickId = await click(d.t, shortUrl);
    const track = (url: string, payload: object) => d.t.inject({ method: 'POST', url, headers: bearer(key), payload });
    expect((await track('/api/track/lead', { clickId, eventName: 'Sign up', customerExternalId: 'c-1', customerName: 'Jane Doe' })).statusCode).toBe(200);
    expect((await track('/api/track/sale', { customerExternalId: 'c-1', customerName: 'Jane Doe', amount: 12_500, currency: 'usd' })).statusCode).toBe(200);
    expect(await within(15_000, async () => (await read()).totals.clicks === 1), 'the click is counted').toBe(true);
  });
  afterEach(() => d.closeContexts());
  afterAll(async () => {
    await d?.close();
    await smtp?.close();
    await new Promise<void>((resolve) => (site ? (site.closeAllConnections(), site.close(() => resolve())) : resolve()));
  });

  const pageUrl = (lang: 'en' | 'ar') => `${d.origin}/embed/referrals?token=${token}&lang=${lang}`;
  const parent = (host: string, lang: 'en' | 'ar') => `https://${host}:${port}/?src=${encodeURIComponent(pageUrl(lang))}`;
  const framed = async (page: Page): Promise<Frame> => {
    await expect.poll(() => page.frames().some((f) => f.url().startsWith(`${d.origin}/embed/referrals`))).toBe(true);
    return page.frames().find((f) => f.url().startsWith(`${d.origin}/embed/referrals`))!;
  };

  const CASES = [
    {
      lang: 'en' as const,
      locale: 'en-US',
      texts: { link: 'Your link', clicks: 'Clicks', copy: 'Copy', copied: 'Copied', payouts: 'Set up payouts', sale: 'Sale' },
    },
    { lang: 'ar' as const, locale: 'ar', texts: { link: 'رابطك', clicks: 'النقرات', copy: 'نسخ', copied: 'تم النسخ', payouts: 'إعداد الدفعات', sale: 'بيع' } },
  ];

  for (const { lang, locale, texts } of CASES) {
    it(`on the allowed site the frame shows the partner's link and figures (${lang}, 1280 and 375 px)`, async () => {
      for (const viewport of [DESKTOP, PHONE]) {
        const page = await d.newPage(locale, viewport);
        await page.goto(parent('allowed.test', lang));
        const frame = await framed(page);
        await frame.locator('#embed[data-state="ready"]').waitFor();
        expect(await frame.locator('html').getAttribute('dir')).toBe(lang === 'ar' ? 'rtl' : 'ltr');
        await frame.getByRole('heading', { name: 'Lamp Friends' }).waitFor();
        await frame.getByRole('heading', { name: texts.link }).waitFor();
        expect(await frame.locator('#link').inputValue()).toBe(shortUrl);
        const figure = (id: string) => frame.locator(`#${id}`).textContent();
        const digits = (s: string | null) => (s ?? '').replace(/[\u0660-\u0669]/g, (c) => String(c.charCodeAt(0) - 0x660));
        expect(digits(await figure('clicks'))).toBe('1');
        expect(digits(await figure('leads'))).toBe('1');
        expect(digits(await figure('sales'))).toBe('1');
        // 3.00 for the sign-up and 20 % of 125.00: 28.00 earned.
        expect(digits(await figure('earnings'))).toMatch(/28[.,٫]00/);
        await frame.getByRole('cell', { name: texts.sale }).first().waitFor({ state: 'attached' });
        await frame.getByRole('button', { name: texts.payouts }).waitFor();
        await frame.getByRole('button', { name: texts.copy, exact: true }).click();
        await frame.getByRole('status').filter({ hasText: texts.copied }).waitFor();
        // Nothing wider than the frame.
        expect(await frame.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBeLessThanOrEqual(0);
        // The host's page as seen, and the whole frame (a full-page capture may catch the frame before its process paints it).
        await page.screenshot({ path: `${SCREENSHOTS}/embed-referrals-allowed-${lang}-${viewport.width}.png` });
        await page.locator('iframe').screenshot({ path: `${SCREENSHOTS}/embed-referrals-allowed-${lang}-${viewport.width}-frame.png` });
      }
    });
  }

  it('on a site not in embedOrigins the frame is blocked by frame-ancestors', async () => {
    const page = await d.newPage();
    const refusals: string[] = [];
    page.on('console', (m) => {
      if (/frame-ancestors/.test(m.text())) refusals.push(m.text());
    });
    const answered = page.waitForResponse((r) => r.url().startsWith(`${d.origin}/embed/referrals`));
    await page.goto(parent('refused.test', 'en'));
    // The server answered the page; the browser refused to show it in this site's frame.
    expect((await answered).headers()['content-security-policy']).toContain(`frame-ancestors https://allowed.test:${port}`);
    await expect.poll(() => refusals.length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(refusals[0]).toContain('frame-ancestors');
    for (const f of page.frames()) expect(await f.locator('#embed').count(), f.url()).toBe(0);
    await page.screenshot({ path: `${SCREENSHOTS}/embed-referrals-refused-1280.png` });
  });

  it('the page alone: accessible at 1280 and 375 px in both languages; "Set up payouts" mails the partner an invitation', async () => {
    // The refusal above is one on purpose; from here on, none.
    d.cspViolations.splice(0);
    for (const { lang, locale, texts } of CASES) {
      const page = await d.newPage(locale);
      await page.goto(pageUrl(lang));
      await page.locator('#embed[data-state="ready"]').waitFor();
      await d.checkAccessibility(page, `embed-referrals-${lang}`);
      if (lang === 'en') {
        await page.getByRole('button', { name: texts.payouts }).click();
        await page.locator('#payouts-status').filter({ hasText: /./ }).waitFor();
        expect(await page.locator('#payouts-status').textContent()).toBe('Invitation sent to a•••@example.net: open it to set up your payouts.');
        const mail = await smtp.messageTo('ana@example.net');
        expect(mail?.text).toMatch(/\/app\/partner\/invite\?token=[\w-]{43}/);
      }
    }
    expect(d.cspViolations).toEqual([]);
  });
});
