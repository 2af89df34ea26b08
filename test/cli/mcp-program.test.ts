/**
 * The MCP server's partner-program tools (src/cli/mcp/program-tools.ts), spawned as a client
 * would against a live server: list_commissions with its filters, and payable_totals summed
 * exactly per currency across pages (past 2^53, never across currencies, leaving out what a
 * pending payout holds), a key without programsRead refused by name; and the summing itself.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { payableTotals, payableTotalsJson, type PayableCommission } from '../../src/cli/mcp/program-tools.js';
import { Sealer } from '../../src/core/sealed.js';
import { SECRET, startTestApp, type TestApp } from '../helpers/app.js';
import { workspaceWithCollection } from '../helpers/client.js';
import { ROOT } from '../helpers/process.js';

const texts = (result: CallToolResult) => result.content.map((c) => (c.type === 'text' ? c.text : ''));

describe('payableTotals', () => {
  test('sums per currency with BigInt, partners counted once, a pending payout’s commissions left out', () => {
    const rows: PayableCommission[] = [
      { partnerId: 'a', currency: 'usd', earnings: 1e12, payoutId: null },
      { partnerId: 'a', currency: 'usd', earnings: Number.MAX_SAFE_INTEGER - 1e12, payoutId: null },
      { partnerId: 'b', currency: 'usd', earnings: 2, payoutId: null },
      { partnerId: 'b', currency: 'eur', earnings: -5, payoutId: null },
      { partnerId: 'c', currency: 'usd', earnings: 99, payoutId: 'p1' },
    ];
    const totals = payableTotals(rows);
    expect(totals).toEqual([
      { currency: 'eur', total: -5n, partners: 1, commissions: 1 },
      { currency: 'usd', total: 9_007_199_254_740_993n, partners: 2, commissions: 3 },
    ]);
    expect(payableTotalsJson(totals)).toBe(
      '[{"currency":"eur","total":-5,"partners":1,"commissions":1},{"currency":"usd","total":9007199254740993,"partners":2,"commissions":3}]',
    );
  });

  test('property: each currency’s total is the exact sum of its own commissions only', () => {
    const row = fc.record({
      partnerId: fc.constantFrom('a', 'b', 'c'),
      currency: fc.constantFrom('usd', 'eur', 'jpy'),
      earnings: fc.integer({ min: -1e12, max: 1e12 }),
      payoutId: fc.constantFrom(null, 'p'),
    });
    fc.assert(
      fc.property(fc.array(row, { maxLength: 60 }), (rows) => {
        const totals = payableTotals(rows);
        for (const t of totals) {
          const own = rows.filter((r) => r.currency === t.currency && r.payoutId === null);
          expect(t.total).toBe(own.reduce((s, r) => s + BigInt(r.earnings), 0n));
          expect(t.partners).toBe(new Set(own.map((r) => r.partnerId)).size);
          expect(t.commissions).toBe(own.length);
        }
        expect(totals.map((t) => t.currency)).toEqual([...new Set(rows.filter((r) => r.payoutId === null).map((r) => r.currency))].sort());
      }),
    );
  });
});

describe('linktrail mcp: partner program tools', () => {
  let t: TestApp;
  const clients: Client[] = [];
  let full: Client;
  let limited: Client;
  const ids: Record<'ana' | 'ben' | 'cy', string> = { ana: '', ben: '', cy: '' };
  const made: { id: string; partnerId: string; currency: string; status: string }[] = [];

  async function startMcp(env: Record<string, string>): Promise<Client> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'mcp'],
      env: { PATH: process.env.PATH ?? '', ...env },
      cwd: ROOT,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'linktrail-test', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
    return (await client.callTool({ name, arguments: args })) as CallToolResult;
  }

  async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<string[]> {
    const result = await call(client, name, args);
    expect(result.isError, texts(result).join('\n')).toBeFalsy();
    return texts(result);
  }

  beforeAll(async () => {
    t = await startTestApp();
    await t.runtime.app.listen({ host: '127.0.0.1', port: 0 });
    const baseUrl = `http://127.0.0.1:${(t.runtime.app.server.address() as AddressInfo).port}`;
    const { ws, send } = await workspaceWithCollection(t);
    const ok201 = async (method: 'POST' | 'PUT' | 'PATCH', url: string, body: unknown, status: number) => {
      const res = await send(method, url, body);
      expect(res.statusCode, `${method} ${url}: ${res.body.slice(0, 300)}`).toBe(status);
      return res.json();
    };
    await ok201(
      'PUT',
      '/api/program',
      { name: 'Friends', slug: `m-${randomUUID().slice(0, 8)}`, landingUrl: 'https://shop.example/', currency: 'usd', holdingDays: 0, minPayout: {} },
      200,
    );
    const partners = await ok201('POST', '/api/partners', [{ name: 'Ana' }, { name: 'Ben' }, { name: 'Cy' }], 201);
    [ids.ana, ids.ben, ids.cy] = partners.map((p: { id: string }) => p.id);
    // Cy is paid by PayPal and has a payout pending: his commission is no longer payable.
    const sealed = new Sealer(SECRET).seal('payout-details', JSON.stringify({ method: 'paypal', email: 'cy@pay.example' }));
    await t.database.db.execute(
      sql`UPDATE partners SET payout_method = 'paypal', payout_details_sealed = ${sealed}, payout_destination_masked = 'c•••@pay.example' WHERE id = ${ids.cy}::uuid`,
    );
    const bonus = (partnerId: string, earnings: number, currency = 'usd') => ({ partnerId, earnings, currency, description: 'Bonus' });
    made.push(...(await ok201('POST', '/api/commissions', [bonus(ids.cy, 30)], 201)));
    await ok201('POST', '/api/payouts', { currency: 'usd', partnerIds: [ids.cy] }, 201);
    made.push(
      ...(await ok201(
        'POST',
        '/api/commissions',
        [bonus(ids.ana, 100), bonus(ids.ana, 200), bonus(ids.ben, 50), bonus(ids.ana, 700, 'eur'), bonus(ids.ben, 9)],
        201,
      )),
    );
    // Ben's 9 reversed: not payable.
    await ok201('PATCH', '/api/commissions', [{ id: made.at(-1)!.id, status: 'reversed' }], 200);
    // 9,008 × 10^12 + 999,999,999,999 on Ana: past 2^53 and odd, over two pages of 5,000.
    const big = Array.from({ length: 9_009 }, (_, i) => bonus(ids.ana, i === 0 ? 999_999_999_999 : 1e12));
    await ok201('POST', '/api/commissions', big, 201);
    const { key: linksOnly } = await ws.newKey(['linksRead']);
    [full, limited] = await Promise.all([
      startMcp({ LINKTRAIL_API_KEY: ws.key, LINKTRAIL_BASE_URL: baseUrl }),
      startMcp({ LINKTRAIL_API_KEY: linksOnly, LINKTRAIL_BASE_URL: baseUrl }),
    ]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t?.close();
  });

  test('both tools are listed, read-only, described', async () => {
    const { tools } = await full.listTools();
    const ours = tools.filter((tool) => ['list_commissions', 'payable_totals'].includes(tool.name));
    expect(ours.map((tool) => [tool.name, tool.annotations?.readOnlyHint])).toEqual([
      ['list_commissions', true],
      ['payable_totals', true],
    ]);
    for (const tool of ours) expect(tool.description!.length).toBeGreaterThan(80);
    expect(Object.keys(ours[0]!.inputSchema.properties!).sort()).toEqual(['currency', 'partnerId', 'skip', 'sort', 'status', 'take']);
  });

  test('list_commissions filters by partner, status and currency, and takes take', async () => {
    type Row = { id: string; partnerId: string; currency: string; status: string; earnings: number };
    const read = async (args: Record<string, unknown>) => JSON.parse((await ok(full, 'list_commissions', args)).at(-1)!) as Row[];
    expect((await read({ partnerId: ids.ana, currency: 'eur' })).map((c) => [c.partnerId, c.currency, c.earnings])).toEqual([[ids.ana, 'eur', 700]]);
    expect((await read({ status: 'reversed' })).map((c) => [c.partnerId, c.earnings])).toEqual([[ids.ben, 9]]);
    expect((await read({ partnerId: ids.ben, status: 'payable', sort: 'asc' })).map((c) => c.earnings)).toEqual([50]);
    expect(await read({ partnerId: ids.ana, currency: 'usd', take: 3 })).toHaveLength(3);
    const bad = await call(full, 'list_commissions', { currency: 'USD' });
    expect(bad.isError).toBe(true);
  });

  test('payable_totals: per currency, exact past 2^53, the pending payout left out, every page read', async () => {
    const [summary, json] = await ok(full, 'payable_totals');
    expect(summary).toBe('9014 payable commission(s) read; 1 already in a pending payout, left out; 2 currencies.');
    // 9,008,999,999,999,999 + 100 + 200 + 50: exact digits, no rounding to a double.
    expect(json).toBe(
      '[{"currency":"eur","total":700,"partners":1,"commissions":1},{"currency":"usd","total":9009000000000349,"partners":2,"commissions":9012}]',
    );
  });

  test('a key without programsRead is refused by name', async () => {
    const result = await call(limited, 'payable_totals');
    expect(result.isError).toBe(true);
    expect(texts(result).join('\n')).toContain('missingScopes: programsRead');
    expect(texts(await call(limited, 'list_commissions'))).toEqual([expect.stringContaining('missingScopes: programsRead')]);
  });
});
