/** The tools that record conversions: POST /api/track/lead and /api/track/sale. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { callApi, toolResult, type Connection } from './api.js';

const CLICK_ID =
  "A click id is what Linktrail added to the destination URL when the visitor opened the short link (the ltid query parameter, unless the server renamed it; the site's attribution script keeps it in a cookie), or the id of a click from get_analytics.";
const ONCE = 'Every call records a new event, retries included: do not repeat a call that succeeded.';

const customer = {
  customerExternalId: z
    .string()
    .min(1)
    .max(100)
    .describe('Your own id for the customer (required, 1 to 100 characters): the customer is created or updated by it'),
  customerName: z.string().max(100).describe("The customer's name (required, at most 100 characters; may be empty)"),
  customerEmail: z.string().max(100).nullable().optional().describe("The customer's email address (null clears it)"),
  customerAvatar: z.string().max(2048).nullable().optional().describe("https URL of the customer's picture (null clears it)"),
};
const metadata = z.record(z.string(), z.unknown()).optional().describe('Any JSON object to store with the event (e.g. order or plan details)');

function trackLead(server: McpServer, conn: Connection): void {
  server.registerTool(
    'track_lead',
    {
      title: 'Record a lead',
      description: `Record a lead (a sign-up, a form sent…) attributed to the click that brought the customer. ${CLICK_ID} ${ONCE} Result: the JSON lead event { id, eventName, clickId, linkId, customer { id, externalId, name, email, avatar, … }, metadata, createdAt }. Needs the conversionsWrite scope.`,
      inputSchema: {
        clickId: z
          .string()
          .max(100)
          .describe(
            "The click to attribute the lead to (required). An empty string attributes it to the click of this customer's most recent lead instead (an error when they have none)",
          ),
        eventName: z.string().min(1).max(255).describe('What happened, e.g. "Sign up" (required, 1 to 255 characters)'),
        ...customer,
        metadata,
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    },
    (args) => toolResult(async () => [(await callApi(conn, { method: 'POST', path: '/api/track/lead', body: args })).json]),
  );
}

function trackSale(server: McpServer, conn: Connection): void {
  server.registerTool(
    'track_sale',
    {
      title: 'Record a sale',
      description: `Record a sale of a customer. It is attributed to the customer's latest lead named leadEventName if given, else to clickId if given, else to the customer's most recent lead; with none of them, an error. ${CLICK_ID} ${ONCE} Result: the JSON sale event { id, eventName, amount, currency, leadId, clickId, linkId, customer { … }, metadata, createdAt }. Needs the conversionsWrite scope.`,
      inputSchema: {
        amount: z.number().int().min(0).max(1_000_000_000_000).describe("The amount in the currency's minor unit, an integer (required): 4999 is 49.99 USD"),
        currency: z.string().max(3).optional().describe('Lowercase ISO 4217 code (default usd)'),
        eventName: z.string().min(1).max(255).optional().describe('What was sold, e.g. "Purchase" (the default)'),
        leadEventName: z.string().min(1).max(255).optional().describe("Attribute the sale to the customer's latest lead with this eventName"),
        clickId: z.string().max(100).optional().describe('Attribute the sale to this click directly'),
        ...customer,
        metadata,
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    },
    (args) => toolResult(async () => [(await callApi(conn, { method: 'POST', path: '/api/track/sale', body: args })).json]),
  );
}

export function registerConversionTools(server: McpServer, conn: Connection): void {
  trackLead(server, conn);
  trackSale(server, conn);
}
