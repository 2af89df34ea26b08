/**
 * `npx linktrail mcp` (operations.md §16) as an MCP client sees it: the SDK's own Client spawns
 * the CLI over stdio and calls its tools against a live server on a real socket. Covered: the
 * tool list, links created and found, analytics after real clicks, a lead and a sale on a click
 * id from a redirect, the key's scopes (a missing one is a tool error naming it), a missing key
 * and an unreachable server, and nothing on stdout but the protocol.
 */
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestApp, type TestApp, type WorkspaceFixture } from '../helpers/app.js';
import { freePort, ROOT } from '../helpers/process.js';
import { within } from '../helpers/wait.js';
import { DESKTOP, IP_GB, UUID } from '../helpers/visitors.js';

interface McpProcess {
  client: Client;
  /** What the server wrote to stderr so far. */
  stderr: () => string;
  /** Transport errors, such as a stdout line that is not a protocol message. */
  errors: Error[];
}

let t: TestApp;
let baseUrl: string;
let ws: WorkspaceFixture;
let full: McpProcess;
/** A key with linksRead only. */
let limited: McpProcess;
let keyless: McpProcess;
/** Pointed at a port nobody listens on. */
let lost: McpProcess;
let nowhere: string;
const started: McpProcess[] = [];

/** The CLI from source, as an MCP client configured with `env` would start it. */
async function startMcp(env: Record<string, string>): Promise<McpProcess> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'mcp'],
    // Only what the test sets: no DATABASE_URL, nor Vite's BASE_URL, leaking in.
    env: { PATH: process.env.PATH ?? '', ...env },
    cwd: ROOT,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr!.on('data', (chunk) => (stderr += String(chunk)));
  const errors: Error[] = [];
  const client = new Client({ name: 'linktrail-test', version: '1.0.0' });
  client.onerror = (err) => errors.push(err);
  await client.connect(transport);
  const mcp = { client, stderr: () => stderr, errors };
  started.push(mcp);
  return mcp;
}

async function call(mcp: McpProcess, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await mcp.client.callTool({ name, arguments: args })) as CallToolResult;
}

const texts = (result: CallToolResult) => result.content.map((c) => (c.type === 'text' ? c.text : ''));

/** A successful tool call's JSON (its last text block). */
async function ok<T>(mcp: McpProcess, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = await call(mcp, name, args);
  expect(result.isError, texts(result).join('\n')).toBeFalsy();
  return JSON.parse(texts(result).at(-1)!) as T;
}

/** A failed tool call's text. */
async function failure(mcp: McpProcess, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const result = await call(mcp, name, args);
  expect(result.isError, texts(result).join('\n')).toBe(true);
  return texts(result).join('\n');
}

/** A visitor opens the short link; the click id the redirect hands to the destination. */
async function click(shortUrl: string): Promise<string> {
  const res = await t.inject({ method: 'GET', url: new URL(shortUrl).pathname, remoteAddress: IP_GB, headers: { 'user-agent': DESKTOP } });
  expect(res.statusCode, res.body).toBe(302);
  return new URL(res.headers.location as string).searchParams.get('ltid')!;
}

interface Link {
  id: string;
  url: string;
  shortUrl: string;
  externalId: string | null;
}

beforeAll(async () => {
  t = await startTestApp();
  await t.runtime.app.listen({ host: '127.0.0.1', port: 0 });
  baseUrl = `http://127.0.0.1:${(t.runtime.app.server.address() as AddressInfo).port}`;
  ws = await t.workspace({ rateLimitPerMinute: 1_000_000 });
  const { key: linksReadKey } = await ws.newKey(['linksRead']);
  nowhere = `http://127.0.0.1:${await freePort()}`;
  // Started together: most of each start is loading the CLI from source.
  [full, limited, keyless, lost] = await Promise.all([
    startMcp({ LINKTRAIL_API_KEY: ws.key, LINKTRAIL_BASE_URL: baseUrl }),
    startMcp({ LINKTRAIL_API_KEY: linksReadKey, LINKTRAIL_BASE_URL: baseUrl }),
    startMcp({ LINKTRAIL_BASE_URL: baseUrl }),
    startMcp({ LINKTRAIL_API_KEY: ws.key, LINKTRAIL_BASE_URL: nowhere }),
  ]);
});

afterAll(async () => {
  await Promise.all(started.map((mcp) => mcp.client.close()));
  await t?.close();
});

describe('linktrail mcp', () => {
  test('lists its tools, each described with an input schema', async () => {
    const { tools } = await full.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'create_collection',
      'create_links',
      'find_links',
      'get_analytics',
      'list_collections',
      'list_commissions',
      'list_events',
      'payable_totals',
      'track_lead',
      'track_sale',
    ]);
    for (const tool of tools) {
      expect(tool.description!.length, tool.name).toBeGreaterThan(80);
      expect(tool.inputSchema.type).toBe('object');
    }
    const createLinks = tools.find((tool) => tool.name === 'create_links')!;
    const item = (createLinks.inputSchema.properties!.links as { items: { required: string[] } }).items;
    expect(item.required.sort()).toEqual(['collectionId', 'url']);
    const lead = tools.find((tool) => tool.name === 'track_lead')!;
    expect(lead.inputSchema.required!.sort()).toEqual(['clickId', 'customerExternalId', 'customerName', 'eventName']);
    expect(lead.annotations?.idempotentHint).toBe(false);
    expect(full.client.getInstructions()).toContain('create_links');
  });

  test('creates links in a new collection and finds them by externalId, search and collection', async () => {
    const [collection] = await ok<{ id: string; name: string }[]>(full, 'create_collection', { name: 'Spring sale' });
    expect(collection!.id).toMatch(UUID);
    expect((await ok<{ id: string }[]>(full, 'list_collections')).map((c) => c.id)).toContain(collection!.id);

    const links = await ok<Link[]>(full, 'create_links', {
      links: [
        { url: 'https://shop.example/spring', collectionId: collection!.id, title: 'Spring landing', externalId: 'spring-1', utm: { source: 'newsletter' } },
        { url: 'https://shop.example/boots', collectionId: collection!.id, title: 'Boots' },
      ],
    });
    expect(links.map((l) => l.url)).toEqual(['https://shop.example/spring', 'https://shop.example/boots']);
    expect(links[0]!.shortUrl).toMatch(/^https:\/\/lt\.test\/\w+$/);

    expect((await ok<Link[]>(full, 'find_links', { externalId: 'spring-1' })).map((l) => l.id)).toEqual([links[0]!.id]);
    expect((await ok<Link[]>(full, 'find_links', { search: 'BOOTS' })).map((l) => l.id)).toEqual([links[1]!.id]);
    const page = await call(full, 'find_links', { collectionId: collection!.id, take: 1, sort: 'asc' });
    expect(texts(page)[0]).toBe('1 link(s) shown of 2 matching in all (skip 0).');
    expect((JSON.parse(texts(page)[1]!) as Link[]).map((l) => l.id)).toEqual([links[0]!.id]);
  });

  test('a refused input comes back as a tool error with the server message and field', async () => {
    const [collection] = await ok<{ id: string }[]>(full, 'create_collection', { name: 'Refusals' });
    const text = await failure(full, 'create_links', { links: [{ url: 'http://shop.example/', collectionId: collection!.id }] });
    expect(text).toContain('HTTP 400 (invalid_field)');
    expect(text).toContain('field: [0].url');
    // The tool's own schema refuses first, as a tool error too.
    expect(await failure(full, 'create_links', { links: [] })).toContain('Input validation error');
  });

  test('records a lead and a sale on a click, and reads them in analytics and events', async () => {
    const [collection] = await ok<{ id: string }[]>(full, 'create_collection', { name: 'Conversions' });
    const [link] = await ok<Link[]>(full, 'create_links', { links: [{ url: 'https://shop.example/pricing', collectionId: collection!.id }] });
    await click(link!.shortUrl);
    const clickId = await click(link!.shortUrl);
    expect(clickId).toMatch(UUID);

    const lead = await ok<{ id: string; clickId: string; linkId: string; customer: { externalId: string } }>(full, 'track_lead', {
      clickId,
      eventName: 'Sign up',
      customerExternalId: 'cus_42',
      customerName: 'Ada Lovelace',
      customerEmail: 'ada@example.com',
    });
    expect(lead).toMatchObject({ clickId, linkId: link!.id, customer: { externalId: 'cus_42' } });
    const sale = await ok<{ amount: number; currency: string; leadId: string }>(full, 'track_sale', {
      customerExternalId: 'cus_42',
      customerName: 'Ada Lovelace',
      amount: 4999,
      currency: 'eur',
      leadEventName: 'Sign up',
    });
    expect(sale).toMatchObject({ amount: 4999, currency: 'eur', leadId: lead.id });

    // Clicks are written in batches: read until both are in.
    const clicks = async () => ok<{ id: string; linkId: string; country: string }[]>(full, 'get_analytics', { linkId: link!.id });
    expect(await within(10_000, async () => (await clicks()).length === 2)).toBe(true);
    expect((await clicks()).find((c) => c.id === clickId)).toMatchObject({ linkId: link!.id, country: 'GB' });
    const [row] = await ok<Record<string, unknown>[]>(full, 'get_analytics', { linkId: link!.id, groupBy: 'link' });
    expect(row).toMatchObject({ key: link!.id, clicks: 2, leads: 1, sales: 1, saleAmount: 4999, revenue: { eur: 4999 } });

    const [withStats] = await ok<{ stats: Record<string, unknown> }[]>(full, 'find_links', { id: link!.id, withStats: true });
    expect(withStats!.stats).toMatchObject({ clicks: 2, leads: 1, sales: 1, revenue: { eur: 4999 } });

    const events = await ok<{ type: string; id: string }[]>(full, 'list_events', { linkId: link!.id, sort: 'asc' });
    expect(events.map((e) => e.type)).toEqual(['lead', 'sale']);
    expect(events[0]!.id).toBe(lead.id);
  });

  test('acts with the key’s scopes: a missing scope is a tool error naming it', async () => {
    expect(Array.isArray(await ok<Link[]>(limited, 'find_links'))).toBe(true);

    const analytics = await failure(limited, 'get_analytics', { groupBy: 'country' });
    expect(analytics).toContain('HTTP 403 (missing_scopes)');
    expect(analytics).toContain('The credential lacks the scopes this operation needs: analyticsRead.');
    expect(analytics).toContain('missingScopes: analyticsRead');
    const lead = await failure(limited, 'track_lead', { clickId: '', eventName: 'Sign up', customerExternalId: 'c', customerName: 'C' });
    expect(lead).toContain('missingScopes: conversionsWrite');
    // The server keeps serving after refusals.
    expect((await limited.client.listTools()).tools.length).toBe(10);
  });

  test('without LINKTRAIL_API_KEY it still starts, and every tool says what to set', async () => {
    expect((await keyless.client.listTools()).tools.length).toBe(10);
    expect(await failure(keyless, 'find_links')).toMatch(/^LINKTRAIL_API_KEY is not set/);
    expect(keyless.stderr()).toContain('LINKTRAIL_API_KEY is not set');
  });

  test('a server out of reach is a tool error naming the address', async () => {
    const text = await failure(lost, 'list_collections');
    expect(text).toContain(`Cannot reach the Linktrail server at ${nowhere} (LINKTRAIL_BASE_URL)`);
  });

  test('writes nothing but protocol messages to stdout', () => {
    for (const mcp of started) expect(mcp.errors).toEqual([]);
    expect(full.stderr()).toContain(`serving on stdio, acting on ${baseUrl}`);
  });
});
