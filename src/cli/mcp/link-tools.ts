/** The tools over links and their collections: GET and POST /api/links, /api/collections. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { callApi, toolResult, type Connection } from './api.js';
import { dateRange, paging } from './shared-schemas.js';

const uuid = (what: string) => z.string().uuid().describe(what);
const httpsUrl = (what: string) => z.string().max(4096).describe(`${what}: an absolute https URL`);

const utm = z
  .object({
    source: z.string().max(500).optional(),
    medium: z.string().max(500).optional(),
    campaign: z.string().max(500).optional(),
    term: z.string().max(500).optional(),
    content: z.string().max(500).optional(),
    referral: z.string().max(500).optional().describe('Sent to the destination as ref'),
  })
  .describe('UTM values added to the destination URL when a visitor opens the short link');

const newLink = z.object({
  url: httpsUrl('Destination the short link leads to (required)'),
  collectionId: uuid('Id of an existing collection of the workspace (required): see list_collections, or create_collection'),
  title: z.string().max(500).optional(),
  description: z.string().max(2000).optional(),
  tagIds: z.array(z.string().uuid()).max(100).optional().describe('Ids of existing tags'),
  utm: utm.optional(),
  externalId: z.string().min(1).max(255).optional().describe("Your own id for the link, unique among the workspace's links; find_links can look it up"),
  tenantId: z.string().max(255).optional().describe('Free-form tenant label'),
  partnerId: uuid('An active partner of the workspace').optional(),
  image: httpsUrl('Preview image').optional(),
  expiresAt: z.string().optional().describe('ISO 8601 date-time with a timezone offset, e.g. 2030-01-31T00:00:00Z (needs a plan with link expiration)'),
  expiredUrl: httpsUrl('Where visitors go after expiresAt (needs link expiration)').optional(),
  password: z.string().min(1).max(128).optional().describe('Visitors must enter it (needs password protection)'),
  ios: httpsUrl('Destination for iOS visitors (needs device targeting)').optional(),
  android: httpsUrl('Destination for Android visitors (needs device targeting)').optional(),
  geo: z
    .record(z.string(), z.string())
    .optional()
    .describe(
      'Uppercase ISO 3166-1 alpha-2 country code → https destination for visitors from that country, e.g. {"DE":"https://shop.example/de"} (needs geo targeting)',
    ),
  cloaked: z
    .boolean()
    .optional()
    .describe('Show the destination inside a full-page frame under the short URL (needs link cloaking; the destination must allow framing)'),
});

function listCollections(server: McpServer, conn: Connection): void {
  server.registerTool(
    'list_collections',
    {
      title: 'List collections',
      description:
        'List the collections of the workspace (every link belongs to one; create_links needs a collectionId). Result: a JSON array of { id, name, description, createdAt, updatedAt }, newest first unless sort is asc. Needs the collectionsRead scope.',
      inputSchema: { ...paging },
      annotations: { readOnlyHint: true },
    },
    (args) => toolResult(async () => [(await callApi(conn, { method: 'GET', path: '/api/collections', query: args })).json]),
  );
}

function createCollection(server: McpServer, conn: Connection): void {
  server.registerTool(
    'create_collection',
    {
      title: 'Create a collection',
      description:
        'Create one collection to put links in (for example one per campaign or channel). Result: a JSON array holding the created collection { id, name, description, createdAt, updatedAt }; its id is the collectionId of create_links. Needs the collectionsWrite scope.',
      inputSchema: { name: z.string().min(1).max(190).describe('Name of the collection (required)'), description: z.string().max(2000).optional() },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    },
    (args) => toolResult(async () => [(await callApi(conn, { method: 'POST', path: '/api/collections', body: [args] })).json]),
  );
}

function createLinks(server: McpServer, conn: Connection): void {
  server.registerTool(
    'create_links',
    {
      title: 'Create short links',
      description:
        'Create one or more short links in one request (all are created, or none when one is refused: the error names the item and field, e.g. [1].url). Each needs url (https) and collectionId. Result: a JSON array of the created links in input order, each with id, url, shortUrl (the address to share), qrCode (URL of its QR image) and the other fields. Plan-gated fields (expiresAt, expiredUrl, password, ios, android, geo, cloaked) are refused with an error when the plan lacks the feature. Needs the linksWrite scope.',
      inputSchema: { links: z.array(newLink).min(1).describe('The links to create (1 or more; the plan may cap how many per request)') },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    },
    ({ links }) => toolResult(async () => [(await callApi(conn, { method: 'POST', path: '/api/links', body: links })).json]),
  );
}

const findLinksInput = {
  id: uuid('Only the link with this id').optional(),
  externalId: z.string().optional().describe('Only the link with this externalId'),
  tenantId: z.string().optional().describe('Only links with this tenantId'),
  partnerId: uuid('Only links of this partner').optional(),
  collectionId: uuid('Only links of this collection').optional(),
  tagId: uuid('Only links carrying this tag').optional(),
  search: z.string().max(200).optional().describe('Only links whose title, destination url or short id contains this text (case-insensitive, taken literally)'),
  ...paging,
  withStats: z
    .boolean()
    .optional()
    .describe(
      'true: each link gains stats { clicks, leads, sales, revenue, refunded } over startDate–endDate (default: the last 30 days); needs the analyticsRead scope too',
    ),
  ...dateRange('With withStats'),
  orderBy: z
    .enum(['clicks', 'leads', 'sales', 'revenue', 'createdAt'])
    .optional()
    .describe('What sort orders by (default createdAt); clicks, leads, sales and revenue need withStats=true, revenue also currency'),
  currency: z.string().max(3).optional().describe('With orderBy=revenue: ISO 4217 code (e.g. usd) whose revenue orders the list'),
};

function findLinks(server: McpServer, conn: Connection): void {
  server.registerTool(
    'find_links',
    {
      title: 'Find links',
      description:
        'Find links of the workspace. id, externalId, tenantId and partnerId match any of them (an OR); collectionId, tagId and search must each hold as well. Without filters: every link, a page at a time (take, skip). Result: first a line with how many links match in all, then a JSON array of links (id, url, shortUrl, qrCode, title, collectionId, tagIds, externalId, createdAt, …), newest first unless sort is asc. Needs the linksRead scope.',
      inputSchema: findLinksInput,
      annotations: { readOnlyHint: true },
    },
    (args) =>
      toolResult(async () => {
        const answer = await callApi(conn, { method: 'GET', path: '/api/links', query: args });
        const total = answer.headers.get('x-total-count');
        const shown = (JSON.parse(answer.json) as unknown[]).length;
        return [`${shown} link(s) shown${total === null ? '' : ` of ${total} matching in all`} (skip ${args.skip ?? 0}).`, answer.json];
      }),
  );
}

export function registerLinkTools(server: McpServer, conn: Connection): void {
  listCollections(server, conn);
  createCollection(server, conn);
  createLinks(server, conn);
  findLinks(server, conn);
}
