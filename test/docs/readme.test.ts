/**
 * The README, run as a newcomer would paste it: the `sh` blocks of "From nothing to the first
 * sale" and "Plans", verbatim and in order, in one bash in the repository — `npm start &`, the
 * CLI through `npx linktrail`, curl and node. Only the port differs (a free one instead of 3000)
 * and the data directory is a temporary one. Also: the plans table says what the code enforces.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLANS, PLAN_LIMITS } from '../../src/core/plans.js';
import { SECRET } from '../helpers/app.js';
import { ROOT, ensureBuilt, freePort, processEnv } from '../helpers/process.js';
import { sleep } from '../helpers/wait.js';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The text of a `## ` section, up to the next one. */
function section(title: string): string {
  const start = readme.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`README has no section "## ${title}"`);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

/** The fenced ```sh blocks of a text, in order. */
const shBlocks = (text: string): string[] => [...text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);

const MARK = '@@readme-step-done@@';

/**
 * What Stripe would post after a paid checkout carrying the walkthrough's click id: the fixture
 * event, signed by the official stripe package with the secret the README pasted.
 */
const STRIPE_CHECKOUT = `node -e '
const Stripe = require("stripe");
const event = JSON.parse(require("fs").readFileSync("test/fixtures/stripe/checkout.session.completed.json", "utf8"));
event.data.object.client_reference_id = process.argv[2];
const payload = JSON.stringify(event);
const header = new Stripe("sk_test_readme").webhooks.generateTestHeaderString({ payload, secret: process.argv[1] });
process.stdout.write(JSON.stringify({ payload, header }));
' "$STRIPE_SECRET" "$CLICK" > stripe-event.json
curl -s -w '\\n' -X POST "$WEBHOOK_URL" -H 'content-type: application/json' \\
  -H "stripe-signature: $(json .header < stripe-event.json)" --data-binary "$(json .payload < stripe-event.json)"
rm stripe-event.json`;

/** A new empty database on the server of `url`, and how to drop it. */
async function createDatabase(url: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `lt_readme_${Date.now()}_${process.pid}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const fresh = new URL(url);
  fresh.pathname = `/${name}`;
  return {
    url: fresh.href,
    async drop() {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** SIGTERM to a process group, SIGKILL if it still runs after 10 s (Linux: reads /proc). */
async function stopGroup(pgid: number): Promise<void> {
  // A member that is running, not a zombie (a parent that exited leaves those to init).
  const alive = () =>
    readdirSync('/proc').some((pid) => {
      if (!/^\d+$/.test(pid)) return false;
      try {
        const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
          .replace(/^.*\) /s, '')
          .split(' ');
        return fields[0] !== 'Z' && Number(fields[2]) === pgid;
      } catch {
        return false; // ended while we looked
      }
    });
  if (!alive()) return;
  process.kill(-pgid, 'SIGTERM');
  for (let i = 0; i < 100 && alive(); i++) await sleep(100);
  if (alive()) process.kill(-pgid, 'SIGKILL');
}

interface Run {
  code: number | null;
  /** Output of each block (stdout and stderr), in block order. */
  steps: string[];
  all: string;
}

/**
 * Runs the blocks in one bash (its own process group, so `npm start &` and its children end
 * with it), `set -e` so a failing command stops the run, a marker line after each block.
 */
function runBlocks(blocks: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  const script = ['set -e -o pipefail', ...blocks.map((b) => `${b}\necho ${MARK}`)].join('\n');
  const child = spawn('bash', ['-c', script], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let all = '';
  child.stdout.on('data', (b: Buffer) => (all += b.toString()));
  child.stderr.on('data', (b: Buffer) => (all += b.toString()));
  return new Promise((resolve) => {
    child.once('exit', (code) => {
      // The server started by block 1 is still running in bash's process group: stop it and
      // wait until it is gone (bounded), so its data directory can be removed.
      void stopGroup(child.pid!).then(() => resolve({ code, steps: all.split(`${MARK}\n`), all }));
    });
  });
}

describe('README walkthrough, from nothing to the first sale', () => {
  const walkthrough = shBlocks(section('From nothing to the first sale'));
  const plans = shBlocks(section('Plans'));
  const connect = shBlocks(section('Connect an app'));
  const webhooks = shBlocks(section('Webhooks'));
  const stripe = shBlocks(section('Stripe'));
  let dataDir: string;
  let port: number;
  let run: Run;
  let freshDatabase: { url: string; drop(): Promise<void> } | undefined;

  beforeAll(async () => {
    ensureBuilt();
    dataDir = mkdtempSync(join(tmpdir(), 'lt-readme-'));
    port = await freePort();
    // The changes to the text: the port of block 1, and its data directory.
    const start = walkthrough[0]!;
    expect(start).toMatch(/^npm start\b.*&$/m);
    expect(start.match(/\bPORT=3000\b/g)).toHaveLength(1);
    // Block 1 exports DATA_DIR=./data-api: the temporary directory instead, so a second run starts afresh too.
    expect(start.match(/\bDATA_DIR=\.\/data-api\b/g)).toHaveLength(1);
    // Stripe's part needs an event Stripe signed: made here (the stripe package, the README's
    // secret, the walkthrough's click id) and posted between pasting the secret and listing.
    expect(stripe).toHaveLength(3);
    const blocks = [
      start.replace(/\bPORT=3000\b/, `PORT=${port}`).replace(/\bDATA_DIR=\.\/data-api\b/, `DATA_DIR=${dataDir}`),
      ...walkthrough.slice(1),
      ...plans,
      ...connect,
      ...webhooks,
      stripe[0]!,
      stripe[1]!,
      STRIPE_CHECKOUT,
      stripe[2]!,
    ];
    // Only what a fresh shell has, plus the engine under test (DATABASE_URL needs a SECRET). The
    // walkthrough starts from the setup URL, which exists only while nobody has an account: on
    // PostgreSQL it gets a database of its own.
    if (process.env.DATABASE_URL) freshDatabase = await createDatabase(process.env.DATABASE_URL);
    const engine = freshDatabase ? { DATABASE_URL: freshDatabase.url, SECRET } : {};
    const redis = process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {};
    run = await runBlocks(blocks, processEnv({ DATA_DIR: dataDir, ...engine, ...redis }));
  }, 170_000);

  afterAll(async () => {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    await freshDatabase?.drop();
  });

  it('has the steps a newcomer needs, and every block runs to its end', () => {
    expect(walkthrough.length).toBeGreaterThanOrEqual(7);
    expect(plans.length).toBeGreaterThanOrEqual(1);
    expect(run.all).not.toMatch(/"error":\{/);
    expect({ code: run.code, output: run.code === 0 ? '' : run.all }).toEqual({ code: 0, output: '' });
    expect(run.steps).toHaveLength(walkthrough.length + plans.length + connect.length + webhooks.length + stripe.length + 2);
  });

  it('creates the first person from the logged setup URL, who makes a key in the workspace settings; the key is accepted with its rate limit', () => {
    expect(run.steps[1]).toMatch(new RegExp(`^http://localhost:${port}/app/setup\\?code=[\\w-]+$`, 'm'));
    expect(run.steps[1]).toMatch(/workspace [0-9a-f-]{36}, key lt_\S+/);
    // The setup workspace is the operator's own: enterprise.
    expect(run.steps[2]).toMatch(/x-ratelimit-limit: 10000/i);
  });

  it('makes a short link and following it answers 302 with the UTM values and a click id', () => {
    const link = JSON.parse(run.steps[3]!.split('\n').find((l) => l.startsWith('[{'))!) as { shortUrl: string; url: string }[];
    expect(link[0]!.url).toBe('https://example.com/pricing');
    expect(link[0]!.shortUrl).toMatch(new RegExp(`^http://localhost:${port}/\\w+$`));
    expect(run.steps[4]).toMatch(/^HTTP\/1\.1 302 Found/m);
    expect(run.steps[4]).toMatch(/^location: https:\/\/example\.com\/pricing\?utm_source=newsletter&ltid=[0-9a-f-]{36}\r?$/im);
  });

  it('records a lead and a sale from that click id, and analytics shows the link selling', () => {
    const [lead, sale] = run.steps[5]!.trim()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lead).toMatchObject({ eventName: 'Sign up', customer: { externalId: 'user-42' } });
    expect(sale).toMatchObject({ eventName: 'Purchase', amount: 4900, currency: 'usd', leadId: lead!.id, clickId: lead!.clickId });
    const byLink = JSON.parse(run.steps[6]!.split('\n').find((l) => l.startsWith('['))!) as unknown[];
    expect(byLink).toEqual([
      {
        key: lead!.linkId,
        clicks: 1,
        visitors: 1,
        leads: 1,
        sales: 1,
        saleAmount: 4900,
        revenue: { usd: 4900 },
        refunded: { usd: 0 },
        shortUrl: expect.stringMatching(/^http:\/\/localhost:\d+\/\w+$/),
        title: null,
      },
    ]);
  });

  it("runs a partner program: a reward, a partner's link, a sale that earns 20 %, a payout that names who has no payout details", () => {
    const at = walkthrough.length - 5;
    const group = JSON.parse(run.steps[at]!.split('\n').find((l) => l.startsWith('[{'))!) as { name: string; rewards: unknown[] }[];
    expect(group).toMatchObject([{ name: 'default', rewards: [{ event: 'sale', type: 'percentage', amount: 2000, maxDuration: 12 }] }]);
    const commissions = JSON.parse(run.steps[at + 1]!.split('\n').find((l) => l.startsWith('[{'))!) as Record<string, unknown>[];
    expect(commissions).toMatchObject([{ type: 'sale', saleAmount: 9900, currency: 'usd', earnings: 1980, status: 'payable' }]);
    const payout = JSON.parse(run.steps[at + 2]!.split('\n').find((l) => l.startsWith('{'))!) as Record<string, unknown>;
    expect(payout).toMatchObject({
      status: 'pending',
      currency: 'usd',
      total: 0,
      items: [],
      skipped: [{ partnerId: commissions[0]!.partnerId, reason: 'no_payout_details' }],
    });
  });

  it('invites the partner, who accepts with a new account, partners in the program and uses her portal', () => {
    expect(run.steps[walkthrough.length - 2]).toMatch(/^Acme Partners: approved$/m);
    // In her portal: a link under the program's prefix, and the sale's 20 % payable to her.
    expect(run.steps[walkthrough.length - 2]).toMatch(/^https:\/\/example\.com\/pricing\?plan=team$/m);
    expect(run.steps[walkthrough.length - 2]).toMatch(/^1980$/m);
  });

  it("embeds the partner's referral page: framed by the program's embedding site only, its API shows their commission", () => {
    const step = run.steps[walkthrough.length - 1]!;
    expect(step).toMatch(/^frame-ancestors https:\/\/app\.example\.com$/m);
    expect(step).toMatch(/^sale 1980 payable$/m);
  });

  it('connects an app with OAuth: metadata, consent, code, tokens, and the token reads the links', () => {
    const at = walkthrough.length + plans.length;
    const metadata = JSON.parse(run.steps[at]!.split('\n').find((l) => l.startsWith('{'))!) as Record<string, unknown>;
    expect(metadata).toMatchObject({ issuer: `http://localhost:${port}`, code_challenge_methods_supported: ['S256'] });
    expect(run.steps[at + 1]).toMatch(/^http:\/\/localhost:8080\/callback\?code=ltac_[\w-]{43}&state=xyz$/m);
    const tokens = JSON.parse(run.steps[at + 2]!.split('\n').find((l) => l.startsWith('{'))!) as Record<string, unknown>;
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'linksRead analyticsRead' });
    expect(String(tokens.access_token)).toMatch(/^lto_/);
    const links = JSON.parse(run.steps[at + 2]!.split('\n').find((l) => l.startsWith('['))!) as { url: string }[];
    expect(links.map((l) => l.url)).toContain('https://example.com/pricing');
  });

  it('manages a webhook endpoint: register (secret once), list, roll, test, deliveries, retry, recover', () => {
    const at = walkthrough.length + plans.length + connect.length;
    const jsonLines = (step: string) =>
      step
        .split('\n')
        .filter((l) => /^[[{]/.test(l))
        .map((l) => JSON.parse(l) as unknown);
    const [created, listed] = jsonLines(run.steps[at]!) as [Record<string, unknown>, Record<string, unknown>[]];
    expect(created).toMatchObject({
      url: 'http://127.0.0.1:8080/webhooks',
      events: ['link.created', 'sale.created'],
      disabled: false,
      createdBy: { type: 'key' },
    });
    expect(String(created.secret)).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(listed).toEqual([expect.objectContaining({ id: created.id })]);
    expect(listed[0]).not.toHaveProperty('secret');
    const [rolled, test, deliveries] = jsonLines(run.steps[at + 1]!) as [Record<string, unknown>, Record<string, unknown>, Record<string, unknown>[]];
    expect(String(rolled.secret)).toMatch(/^whsec_/);
    expect(rolled.secret).not.toBe(created.secret);
    expect(deliveries).toEqual([expect.objectContaining({ eventId: test.eventId, eventType: 'webhook.test' })]);
    const [retried, recovered] = jsonLines(run.steps[at + 2]!) as [Record<string, unknown>, Record<string, unknown>];
    expect(retried).toMatchObject({ id: deliveries[0]!.id, status: 'pending' });
    expect(recovered).toEqual({ requeued: expect.any(Number) });
  });

  it('connects Stripe in two steps, and a checkout Stripe signed with the click id is listed as a sale', () => {
    const at = walkthrough.length + plans.length + connect.length + webhooks.length;
    const pending = JSON.parse(run.steps[at]!.split('\n').find((l) => l.startsWith('{'))!) as Record<string, unknown>;
    expect(pending).toMatchObject({
      status: 'pending',
      webhookUrl: expect.stringMatching(new RegExp(`^http://localhost:${port}/webhooks/stripe/[0-9a-f-]{36}$`)),
    });
    const connected = JSON.parse(run.steps[at + 1]!.split('\n').find((l) => l.startsWith('{'))!) as Record<string, unknown>;
    expect(connected).toMatchObject({ id: pending.id, status: 'connected', testMode: false });
    expect(run.steps[at + 1]).not.toContain('whsec_');
    expect(run.steps[at + 2]).toMatch(/^\{"received":true\}$/m);
    const events = JSON.parse(run.steps[at + 3]!.split('\n').find((l) => l.startsWith('['))!) as Record<string, unknown>[];
    expect(events).toEqual([
      expect.objectContaining({ type: 'checkout.session.completed', outcome: 'sale', saleId: expect.stringMatching(/^[0-9a-f-]{36}$/) }),
    ]);
  });

  it('changes the plan and the limits with the CLI', () => {
    expect(run.steps[walkthrough.length]).toMatch(/Acme\s+business\s+3000\s+10000/);
    expect(run.steps[walkthrough.length]).toMatch(/Acme\s+business\s+1200\s+5000/);
  });
});

describe('README plans table', () => {
  it('states each plan’s features, requests per minute and bulk limit as enforced', () => {
    const rows = section('Plans')
      .split('\n')
      .filter((l) => /^\| `\w+`/.test(l))
      .map((l) =>
        l
          .split('|')
          .slice(1, -1)
          .map((c) => c.trim()),
      );
    expect(rows.map((r) => r[0]!.match(/`(\w+)`/)![1])).toEqual([...PLANS]);
    const features = ['expiration', 'password', 'cloaking', 'deviceTargeting', 'geoTargeting'] as const;
    const number = (cell: string) => Number(cell.replace(/,/g, ''));
    for (const [i, plan] of PLANS.entries()) {
      const row = rows[i]!;
      const limits = PLAN_LIMITS[plan];
      expect({ plan, features: features.filter((_, f) => row[1 + f] === 'yes') }).toEqual({ plan, features: features.filter((f) => limits.features.has(f)) });
      expect({ plan, perMinute: number(row[6]!), bulk: number(row[7]!) }).toEqual({ plan, perMinute: limits.requestsPerMinute, bulk: limits.maxBulkItems });
    }
  });
});

describe('README and the fast suite’s banner', () => {
  it('give the same time for npm run test:all', () => {
    const banner = readFileSync(join(ROOT, 'vitest.fast.config.ts'), 'utf8');
    const readmeSays = readme.match(/^npm run test:all\s+#[^\n]*~(\d+) min/m)?.[1];
    const bannerSays = banner.match(/npm run test:all \([^)]*~(\d+) min/)?.[1];
    expect(readmeSays).toMatch(/^\d+$/);
    expect(bannerSays).toBe(readmeSays);
  });
});
