/**
 * `npx linktrail mcp` (operations.md §16): a Model Context Protocol server on stdio whose tools
 * call the service's REST API with LINKTRAIL_API_KEY, so an assistant can do what that key's
 * scopes allow and nothing more. stdout carries the protocol only; words for people go to stderr.
 */
import { readFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { configProblem, type Connection } from './api.js';
import { registerAnalyticsTools } from './analytics-tools.js';
import { registerConversionTools } from './conversion-tools.js';
import { registerLinkTools } from './link-tools.js';
import { registerProgramTools } from './program-tools.js';

const INSTRUCTIONS = `Linktrail is a link-attribution service: short links, the clicks on them, and the leads and sales those clicks bring.
- To make a short link: create_links needs a collectionId (list_collections, or create_collection first). Share the shortUrl it returns.
- To see results: get_analytics (clicks, or totals per day, country, link… with groupBy) and list_events (leads and sales).
- To record conversions: track_lead with the click id of the visit, then track_sale. Amounts are integers in minor units (cents).
- Partner program: list_commissions (what partners earned), payable_totals (what is owed now, per currency).
Each tool needs a scope of the API key; a refusal names the missing scopes.`;

/** The package's version, for the MCP handshake (package.json sits three levels above src/cli/mcp and dist/cli/mcp). */
function version(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

export function createMcpServer(conn: Connection): McpServer {
  const server = new McpServer({ name: 'linktrail', title: 'Linktrail', version: version() }, { instructions: INSTRUCTIONS });
  registerLinkTools(server, conn);
  registerAnalyticsTools(server, conn);
  registerConversionTools(server, conn);
  registerProgramTools(server, conn);
  return server;
}

/**
 * Serves until stdin closes. A missing key does not stop the server: the client would only show
 * "failed to start", while each tool's error tells the assistant (and so the person) what to set.
 */
export async function serveMcp(conn: Connection, log: NodeJS.WritableStream): Promise<void> {
  const problem = configProblem(conn);
  log.write(problem ? `linktrail mcp: ${problem} Every tool will answer with this error.\n` : `linktrail mcp: serving on stdio, acting on ${conn.baseUrl}\n`);
  const transport = new StdioServerTransport();
  await createMcpServer(conn).connect(transport);
}
