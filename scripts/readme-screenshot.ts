/**
 * Makes docs/overview.png, the README's first picture: a server of its own (PGlite in memory),
 * four weeks of a small workspace loaded through the API and real redirects (six links in three
 * collections, visitors from eight countries on phones, tablets and desktops, leads and sales
 * tracked with their click ids), then the overview in Chromium at 1280 px.
 *
 *   npx tsx scripts/readme-screenshot.ts [out.png]     (needs /usr/bin/chromium and `npm run build`)
 *
 * To spread the visits over four weeks in a few seconds the script moves time back: the
 * server's clock (redirects stamp their clicks with it) and Date.now, which PGlite's now()
 * follows (leads and sales are stamped by the database). It only ever moves forward from
 * four weeks ago to the present, and the browser signs in at the real time.
 */
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname } from 'node:path';
import { chromium } from 'playwright-core';
import { loadConfig } from '../src/config.js';
import { issueSetupCode } from '../src/modules/auth/service.js';
import { createRuntime } from '../src/runtime.js';

const OUT = process.argv[2] ?? 'docs/overview.png';
const DAY = 86_400_000;
const DAYS = 28;
const OWNER = { name: 'Ada Lovelace', email: 'ada@example.com', password: 'a long passphrase of mine', workspaceName: 'Acme Coffee' };

// Addresses whose DB-IP country is known, weighted by how often each visits.
const VISITORS_BY_COUNTRY: [ip: string, weight: number][] = [
  ['8.8.8.8', 30], // US
  ['81.2.69.160', 18], // GB
  ['5.9.0.1', 14], // DE
  ['213.186.33.5', 9], // FR
  ['151.101.1.1', 8], // CA
  ['193.0.6.139', 7], // NL
  ['200.160.2.3', 6], // BR
  ['202.12.27.33', 5], // JP
];
const USER_AGENTS: [ua: string, weight: number][] = [
  ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1', 34],
  ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36', 22],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36', 26],
  ['Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15', 13],
  ['Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1', 5],
];
const REFERRERS: [referer: string | undefined, weight: number][] = [
  [undefined, 40],
  ['https://www.instagram.com/', 20],
  ['https://www.google.com/', 18],
  ['https://t.co/', 12],
  ['https://news.ycombinator.com/', 10],
];

// Collections, then links: a title, a destination, visits on a busy day, the day it went out
// (days ago), and the share of visitors who sign up.
const COLLECTIONS = ['Spring launch', 'Newsletter', 'Partners'];
const LINKS = [
  { collection: 0, title: 'Spring blend launch', url: 'https://acme-coffee.example/spring-blend', perDay: 46, from: 27, signUp: 0.07 },
  { collection: 0, title: 'Pricing page', url: 'https://acme-coffee.example/pricing', perDay: 24, from: 27, signUp: 0.1 },
  { collection: 1, title: 'Newsletter — April', url: 'https://acme-coffee.example/april', perDay: 30, from: 18, signUp: 0.05 },
  { collection: 2, title: 'Podcast ad: Morning Brew Show', url: 'https://acme-coffee.example/podcast', perDay: 18, from: 22, signUp: 0.08 },
  { collection: 2, title: 'Instagram bio', url: 'https://acme-coffee.example/shop', perDay: 14, from: 27, signUp: 0.04 },
  { collection: 1, title: 'Subscription gift card', url: 'https://acme-coffee.example/gift', perDay: 9, from: 10, signUp: 0.06 },
];
const PRICES = [1900, 2900, 4900, 9900];

// A repeatable picture: the same pseudo-random numbers on every run.
let seed = 20260401;
const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
const pick = <T>(items: [T, number][]): T => {
  let r = random() * items.reduce((n, [, w]) => n + w, 0);
  for (const [item, w] of items) if ((r -= w) < 0) return item;
  return items[0]![0];
};

// The clock: `behind` milliseconds in the past.
const realNow = Date.now.bind(Date);
let behind = DAYS * DAY;
Date.now = () => realNow() - behind;
const at = (time: number) => void (behind = Math.max(0, Math.min(behind, realNow() - time)));

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });

const port = await freePort();
const origin = `http://127.0.0.1:${port}`;
const config = loadConfig({
  DATA_DIR: 'memory://',
  LOG_LEVEL: 'error',
  BASE_URL: origin,
  SHORT_LINK_BASE_URL: 'https://go.acme-coffee.example',
  SECRET: 'readme-screenshot-secret-0123456789abcdef',
});
const runtime = await createRuntime(config, { clock: () => new Date(Date.now()) });
await runtime.app.listen({ port, host: '127.0.0.1' });
const inject = runtime.app.inject.bind(runtime.app);

/** An API call that must succeed; its JSON answer. */
async function call<T>(method: 'GET' | 'POST', url: string, headers: Record<string, string>, payload?: unknown): Promise<T> {
  const res = await inject({ method, url, headers: { origin, ...headers }, payload: payload as object });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json<T>();
}

try {
  // Four weeks ago: the first person, their workspace, a key for the shop's backend, the links.
  const setup = await inject({
    method: 'POST',
    url: '/api/setup',
    headers: { origin },
    payload: { code: await issueSetupCode({ ctx: { db: runtime.database.db, now: new Date() } }), ...OWNER },
  });
  if (setup.statusCode >= 300) throw new Error(`setup: ${setup.body}`);
  const cookie = setup.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  const workspaceId = setup.json<{ workspace: { id: string } }>().workspace.id;
  const scopes = ['collectionsWrite', 'linksWrite', 'conversionsWrite', 'analyticsRead'];
  const { key } = await call<{ key: string }>('POST', `/api/workspaces/${workspaceId}/keys`, { cookie }, { name: 'Shop backend', scopes });
  const auth = { authorization: `Bearer ${key}` };
  const collections = await call<{ id: string }[]>(
    'POST',
    '/api/collections',
    auth,
    COLLECTIONS.map((name) => ({ name })),
  );
  const links = await call<{ shortUrl: string }[]>(
    'POST',
    '/api/links',
    auth,
    LINKS.map((l) => ({ collectionId: collections[l.collection]!.id, url: l.url, title: l.title, utm: { source: 'acme', campaign: 'spring' } })),
  );

  // Every visit, lead and sale of four weeks, in time order.
  type Step = { time: number; run: () => Promise<void> };
  const steps: Step[] = [];
  const now = realNow();
  let visits = 0;
  let leads = 0;
  let sales = 0;
  let customers = 0;
  LINKS.forEach((l, i) => {
    const path = new URL(links[i]!.shortUrl).pathname;
    for (let d = l.from; d >= 0; d--) {
      // A launch peak that settles, busier on weekdays, a little noise.
      const age = l.from - d;
      const weekday = new Date(now - d * DAY).getDay();
      const n = Math.round(l.perDay * (0.55 + 0.9 * Math.exp(-age / 4)) * (weekday === 0 || weekday === 6 ? 0.7 : 1) * (0.75 + 0.5 * random()));
      for (let k = 0; k < n; k++) {
        const time = now - (d + random()) * DAY;
        const visitor = { ip: pick(VISITORS_BY_COUNTRY), ua: pick(USER_AGENTS), referer: pick(REFERRERS) };
        const signsUp = random() < l.signUp;
        const buys = signsUp && random() < 0.45;
        const price = PRICES[Math.floor(random() * PRICES.length)]!;
        const leadAfter = (3 + 40 * random()) * 60_000;
        const saleAfter = leadAfter + (5 + 120 * random()) * 60_000;
        steps.push({
          time,
          run: async () => {
            const res = await inject({
              method: 'GET',
              url: path,
              remoteAddress: visitor.ip,
              headers: { 'user-agent': visitor.ua, ...(visitor.referer ? { referer: visitor.referer } : {}) },
            });
            if (res.statusCode !== 302) throw new Error(`visit ${path}: ${res.statusCode}`);
            visits++;
            if (!signsUp) return;
            const clickId = new URL(String(res.headers.location)).searchParams.get('ltid')!;
            const customer = { customerExternalId: `user-${++customers}`, customerName: `Customer ${customers}` };
            steps.push({
              time: Math.min(now, time + leadAfter),
              run: async () => void (await call('POST', '/api/track/lead', auth, { clickId, eventName: 'Sign up', ...customer }), leads++),
            });
            if (buys)
              steps.push({
                time: Math.min(now, time + saleAfter),
                run: async () =>
                  void (await call('POST', '/api/track/sale', auth, { ...customer, amount: price, currency: 'usd', eventName: 'First order' }), sales++),
              });
            steps.sort((a, b) => a.time - b.time);
          },
        });
      }
    }
  });
  steps.sort((a, b) => a.time - b.time);
  while (steps.length) {
    const step = steps.shift()!;
    at(step.time);
    await step.run();
  }
  behind = 0;
  console.log(`loaded ${visits} visits, ${leads} leads, ${sales} sales over ${DAYS} days`);

  // Clicks are written in batches: wait until analytics counts them all.
  for (let i = 0; ; i++) {
    const rows = await call<{ clicks: number }[]>('GET', '/api/analytics?groupBy=link', auth);
    if (rows.reduce((n, r) => n + r.clicks, 0) === visits) break;
    if (i > 60) throw new Error('the clicks were not all written within 30 s');
    await new Promise((r) => setTimeout(r, 500));
  }

  // The overview in Chromium, signed in through the sign-in page.
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await (await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 }, timezoneId: 'UTC' })).newPage();
    await page.goto(`${origin}/app`);
    await page.getByLabel('Email').fill(OWNER.email);
    await page.getByLabel('Password').fill(OWNER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Top links' }).waitFor();
    await page.getByRole('img', { name: 'Clicks, leads and sales per day' }).waitFor();
    mkdirSync(dirname(OUT), { recursive: true });
    await page.screenshot({ path: OUT, fullPage: true });
    console.log(`wrote ${OUT}`);
  } finally {
    await browser.close();
  }
} finally {
  await runtime.close();
}
