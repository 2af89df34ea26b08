/** The tools that read what happened: GET /api/analytics (clicks and totals) and /api/events (leads and sales). */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { DIMENSION_FILTERS, GROUP_BYS } from '../../modules/analytics/schemas.js';
import { callApi, toolResult, type Connection } from './api.js';
import { dateBounds, dateRange, paging } from './shared-schemas.js';

/** One optional filter per breakdown: a row key of groupBy=<dimension> selects those clicks. */
const dimensionFilters = Object.fromEntries(
  Object.entries(DIMENSION_FILTERS).map(([param, groupBy]) => {
    const kind = param === 'collectionId' || param === 'tagId' ? z.string().uuid() : z.string().min(1).max(2048);
    return [
      param,
      kind
        .optional()
        .describe(`Only clicks whose ${groupBy} is this value (a row key of groupBy=${groupBy}; "(unknown)" or "(none)" selects clicks without one)`),
    ];
  }),
) as Record<keyof typeof DIMENSION_FILTERS, z.ZodOptional<z.ZodString>>;

const analyticsInput = {
  linkId: z.string().uuid().optional().describe('Only clicks of this link (see find_links)'),
  partnerId: z.string().uuid().optional().describe('Only clicks of this partner'),
  ...dateRange('Range of the clicks'),
  groupBy: z
    .enum(GROUP_BYS)
    .optional()
    .describe(
      'Totals per group instead of click records. timeseries: one row per hour, day or month (interval); link: one row per link (with shortUrl and title); the others break down by that dimension. Omitted: the click records themselves',
    ),
  interval: z.enum(['hour', 'day', 'month']).optional().describe('With groupBy=timeseries: bucket size (default day); buckets follow timezone'),
  compare: z
    .enum(['previous', 'year'])
    .optional()
    .describe(
      'With groupBy and startDate: each row gains previous { clicks, leads, sales, revenue } for the period just before, or the same dates a year before',
    ),
  ...dimensionFilters,
  ...paging,
};

function getAnalytics(server: McpServer, conn: Connection): void {
  server.registerTool(
    'get_analytics',
    {
      title: 'Read click analytics',
      description:
        'Read the click analytics of the workspace, optionally for one link or partner, over a date range, filtered by dimensions. Without groupBy, a JSON array of clicks: { id (the click id), linkId, partnerId, createdAt, country, device, browser, os, referrer, referrerUrl, utmSource…utmContent, trigger }. With groupBy, a JSON array of totals per group: { key, clicks, visitors, leads, sales, saleAmount, revenue, refunded } where amounts are integers in minor units (cents) and revenue/refunded map a lowercase currency code to an amount. Bots are never counted. Needs the analyticsRead scope.',
      inputSchema: analyticsInput,
      annotations: { readOnlyHint: true },
    },
    (args) => toolResult(async () => [(await callApi(conn, { method: 'GET', path: '/api/analytics', query: args })).json]),
  );
}

const eventsInput = {
  type: z.enum(['lead', 'sale']).optional().describe('Only leads or only sales (default both)'),
  id: z.string().uuid().optional().describe('Only the event with this id'),
  linkId: z.string().uuid().optional().describe('Only events attributed to this link'),
  customerExternalId: z.string().min(1).max(100).optional().describe('Only events of the customer with this externalId (your id for them)'),
  ...dateBounds('Range of the events', { timezone: false }),
  ...paging,
};

function listEvents(server: McpServer, conn: Connection): void {
  server.registerTool(
    'list_events',
    {
      title: 'List leads and sales',
      description:
        'List the recorded lead and sale events (conversions) of the workspace. Result: a JSON array of { type (lead or sale), id, eventName, linkId, clickId, customerId, customerExternalId, customerName, customerEmail, leadId, amount and refundedAmount (sales: integer minor units; leads: null), currency (sales: lowercase ISO 4217), metadata, shortUrl, linkTitle, createdAt }, newest first unless sort is asc. Needs the analyticsRead scope.',
      inputSchema: eventsInput,
      annotations: { readOnlyHint: true },
    },
    (args) => toolResult(async () => [(await callApi(conn, { method: 'GET', path: '/api/events', query: args })).json]),
  );
}

export function registerAnalyticsTools(server: McpServer, conn: Connection): void {
  getAnalytics(server, conn);
  listEvents(server, conn);
}
