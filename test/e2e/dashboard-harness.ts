/**
 * What every dashboard browser test needs (operations.md §10): a real server with the built
 * dashboard, Debian's Chromium, pages in a locale and width, axe-core at desktop and 375 px
 * with a screenshot of each under test/e2e/__screenshots__/ (KEEP_SCREENSHOTS: outside CI), and a
 * signed-in owner made the way a person makes one (the setup code, then the API with the session cookie).
 * Browser tests run once, in the PGlite run (the pages are the same on PostgreSQL).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { issueSetupCode } from '../../src/modules/auth/service.js';
import { onPostgres, startTestApp, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/process.js';
import { launchChromium, dashboardAvailable, underCI } from '../helpers/requirements.js';

export const SCREENSHOTS = 'test/e2e/__screenshots__';
/**
 * Whether checkAccessibility keeps a screenshot of each page it checked: outside CI, unless
 * SCREENSHOTS=0; under CI only with SCREENSHOTS=1. They prove nothing (each is written after
 * that view's checks passed, so a failing view never has one) and CI keeps no files, while the
 * full-page PNGs took a sixth of the browser files' time (8 files: 101 s → 84 s without them).
 */
export const KEEP_SCREENSHOTS = underCI ? process.env.SCREENSHOTS === '1' : process.env.SCREENSHOTS !== '0';
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 375, height: 740 };
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Chromium and the built dashboard are there (a test that makes its own database may run on
 * either engine); under CI they must be (requirements.ts).
 */
export const browserRunnable = (): boolean => dashboardAvailable('Chromium with the built dashboard');
/** … and this is the PGlite run: the PostgreSQL run leaves the pages out by design, not for a missing need. */
export const dashboardRunnable = (): boolean => !onPostgres && browserRunnable();

export interface Person {
  name: string;
  email: string;
  password: string;
}

export interface Dashboard {
  t: TestApp;
  origin: string;
  browser: Browser;
  /** Console messages about the Content-Security-Policy: a test ends by expecting none. */
  cspViolations: string[];
  /**
   * A page in a browser context of its own (its own cookies): a new one, or one a finished test
   * gave back (closeContexts) reset — no cookies, permissions, storage of this origin, listeners,
   * routes or emulated media left.
   */
  newPage(locale?: string, viewport?: { width: number; height: number }): Promise<Page>;
  /** newPage, allowed to read and write the clipboard. */
  clipboardPage(locale?: string, viewport?: { width: number; height: number }): Promise<Page>;
  /** Navigates inside the app to `path` and waits for its heading and until nothing is loading. */
  open(page: Page, path: string, heading: string): Promise<void>;
  /** axe-core at the page's width (desktop when it is the phone's) and at 375 px, no serious or critical violations; a screenshot of each (KEEP_SCREENSHOTS). */
  checkAccessibility(page: Page, name: string): Promise<void>;
  /** The first user and workspace, made through the setup API; the page is signed in as them. */
  setUpOwner(page: Page, person?: Person & { workspaceName: string }): Promise<{ workspaceId: string; headers: Record<string, string> }>;
  /** Signs in through the sign-in form. */
  signIn(page: Page, person: Person): Promise<void>;
  /** Signs in through the API (POST /api/auth/login): the page's context gets the session, no form is shown. */
  signInWithApi(page: Page, person: Person): Promise<void>;
  /**
   * A workspace made by the operator (admin API, on the enterprise plan as the setup's is) with
   * `person`, a new person, as its owner: for a test that needs a workspace in a state of its own.
   * The headers are those of the person's session calls (a page signed in as them).
   */
  workspaceOf(person: Person): Promise<{ workspaceId: string; headers: Record<string, string> }>;
  /** Gives back the contexts lent since the last call (afterEach): each is reset for the next test, or closed. */
  closeContexts(): Promise<void>;
  close(): Promise<void>;
}

export const OWNER = { name: 'Maya Founder', email: 'maya@example.com', password: 'violet-harbour-91-lantern', workspaceName: 'Acme Campaigns' };

/**
 * `clock`: the app's clock (clicks made at chosen times, as the analytics tests make them).
 * `host`: the origin's host name — `localhost` for WebAuthn, whose relying-party id cannot be an
 * IP address (the server still listens on 127.0.0.1).
 * `browserArgs`: more Chromium switches (`--host-resolver-rules` for another site on this machine).
 */
export async function startDashboard(
  env: Record<string, string> = {},
  options: { clock?: () => Date; host?: 'localhost'; browserArgs?: string[]; reuseContexts?: boolean } = {},
): Promise<Dashboard> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const port = await freePort();
  const origin = `http://${options.host ?? '127.0.0.1'}:${port}`;
  const t = await startTestApp({ env: { BASE_URL: origin, ...env }, clock: options.clock });
  await t.runtime.app.listen({ port, host: '127.0.0.1' });
  const browser = await launchChromium(options.browserArgs);
  const lent: Lent[] = [];
  const idle: Lent[] = [];
  const cspViolations: string[] = [];
  const watchCsp = (page: Page) =>
    page.on('console', (m) => {
      if (/content security policy/i.test(m.text())) cspViolations.push(m.text());
    });
  const dashboard: Dashboard = {
    t,
    origin,
    browser,
    cspViolations,
    async newPage(locale = 'en-US', viewport = DESKTOP) {
      const reused = idle.findIndex((c) => c.locale === locale);
      if (reused >= 0) {
        const given = idle.splice(reused, 1)[0]!;
        lent.push(given);
        await given.page.setViewportSize(viewport);
        return given.page;
      }
      const context = await browser.newContext({ locale, viewport });
      const page = await context.newPage();
      watchCsp(page);
      lent.push({ context, page, locale });
      return page;
    },
    async clipboardPage(locale, viewport) {
      const page = await dashboard.newPage(locale, viewport);
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
      return page;
    },
    async open(page, path, heading) {
      await page.goto(`${origin}/app${path}`);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      await expect.poll(() => page.locator('[aria-busy="true"]').count()).toBe(0);
    },
    async checkAccessibility(page, name) {
      const size = page.viewportSize() ?? DESKTOP;
      // Always a desktop and a phone width, so each page is seen in each language at both.
      for (const viewport of size.width === PHONE.width ? [DESKTOP, PHONE] : [size, PHONE]) {
        await page.setViewportSize(viewport);
        // Evaluated through the DevTools protocol, so the page's CSP (no inline script) is kept;
        // once per page (a resize keeps it: half a megabyte of script parsed once, not twice).
        if ((await page.evaluate<string>('typeof axe')) === 'undefined') await page.evaluate(AXE_SOURCE);
        // Strings run in the page (this file is type-checked without the DOM library). Only the
        // violations are read: axe then builds no selectors for what passed (143 → 92 ms a run in-page).
        const violations = await page.evaluate<string[]>(`axe.run({ resultTypes: ['violations'] }).then((r) => r.violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => v.id + ': ' + v.help + ' ' + JSON.stringify(v.nodes.map((n) => n.target))))`);
        expect(violations, `${name} at ${viewport.width}px`).toEqual([]);
        const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
        expect(overflow, `${name} at ${viewport.width}px: horizontal overflow`).toBeLessThanOrEqual(0);
        if (KEEP_SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/dashboard-${name}-${viewport.width}.png`, fullPage: true });
      }
      await page.setViewportSize(size);
    },
    async setUpOwner(page, person = OWNER) {
      const code = await issueSetupCode({ ctx: { db: t.database.db, now: new Date() } });
      expect(code, 'a setup code (is there a user already?)').toBeTruthy();
      const res = await page.request.post(`${origin}/api/setup`, { headers: { origin }, data: { code, ...person } });
      expect(res.status(), await res.text()).toBeLessThan(300);
      const me = await (await page.request.get(`${origin}/api/me`)).json();
      const workspaceId = me.workspaces[0].id as string;
      return { workspaceId, headers: { 'x-workspace-id': workspaceId, origin } };
    },
    async signIn(page, person) {
      await page.goto(`${origin}/app`);
      await page.getByLabel('Email').fill(person.email);
      await page.getByLabel('Password').fill(person.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('navigation').first().waitFor();
    },
    async signInWithApi(page, person) {
      const res = await page.request.post(`${origin}/api/auth/login`, { headers: { origin }, data: { email: person.email, password: person.password } });
      expect(res.status(), await res.text()).toBe(200);
    },
    async workspaceOf(person) {
      const workspace = await t.admin('POST', '/workspaces', { name: `${person.name}'s workspace`, plan: 'enterprise' });
      expect(workspace.statusCode, workspace.body).toBe(201);
      const workspaceId = workspace.json<{ id: string }>().id;
      const user = await t.admin('POST', '/users', person);
      expect(user.statusCode, user.body).toBe(201);
      const member = await t.admin('POST', `/workspaces/${workspaceId}/members`, { userId: user.json<{ id: string }>().id, role: 'owner' });
      expect(member.statusCode, member.body).toBe(201);
      return { workspaceId, headers: { 'x-workspace-id': workspaceId, origin } };
    },
    async closeContexts() {
      for (const c of lent.splice(0)) {
        if (options.reuseContexts !== false && (await resetForReuse(c, origin, watchCsp))) idle.push(c);
        else await c.context.close().catch(() => undefined);
      }
    },
    async close() {
      await browser.close();
      await t.close();
    },
  };
  return dashboard;
}

/** A context lent to a test with its one page. */
interface Lent {
  context: BrowserContext;
  page: Page;
  locale: string;
}

/**
 * Makes a context a finished test gave back fit for the next one, and says whether it is: a new
 * context costs Chromium about 3 s of CPU (its process, and the dashboard's script compiled
 * again without a cache), most of a dashboard file's. Reused only when its one page is still
 * open; cookies, permissions, this origin's storage, the page's listeners and routes and any
 * emulated media are cleared, and the page left on about:blank.
 */
async function resetForReuse(c: Lent, origin: string, watchCsp: (page: Page) => void): Promise<boolean> {
  const pages = c.context.pages();
  if (c.page.isClosed() || pages.length !== 1 || pages[0] !== c.page) return false;
  try {
    await c.page.removeAllListeners(undefined, { behavior: 'ignoreErrors' });
    watchCsp(c.page);
    await c.page.unrouteAll({ behavior: 'ignoreErrors' });
    await c.context.unrouteAll({ behavior: 'ignoreErrors' });
    await c.page.emulateMedia({ media: null });
    await c.context.clearCookies();
    await c.context.clearPermissions();
    // Storage of the origin (the saved workspace, the shortcuts setting), read on a page that loads no script.
    await c.page.goto(`${origin}/healthz`);
    await c.page.evaluate('localStorage.clear(); sessionStorage.clear()');
    await c.page.goto('about:blank');
    return true;
  } catch {
    return false;
  }
}

/** The value under a total's name (the first dl.totals of the page). */
export async function total(page: Page, name: string): Promise<string> {
  const dd = page
    .locator('dl.totals')
    .first()
    .locator('.total')
    .filter({ has: page.getByText(name, { exact: true }) })
    .locator('dd');
  return (await dd.textContent()) ?? '';
}

/** Reloads the page until a total reads `value` (clicks show once their batch is written). */
export async function reloadUntilTotal(page: Page, name: string, value: string): Promise<void> {
  await expect
    .poll(
      async () => {
        await page.reload();
        await page.locator('dl.totals').first().waitFor();
        return total(page, name);
      },
      { timeout: 20_000, interval: 500 },
    )
    .toBe(value);
}
