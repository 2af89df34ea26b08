/**
 * The MCP server's side of HTTP: every tool is one call to the service's own REST API with the
 * configured key, so it can do exactly what that key's scopes allow. Failures become a
 * `ToolFailure` whose message is written for the model (and the person) reading it.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** Where the server is and the key to act with, as the environment gave them. */
export interface Connection {
  baseUrl: string;
  apiKey: string | undefined;
}

export interface ApiCall {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
}

/** A successful answer: its JSON text as the server wrote it (exact numbers), and its headers. */
export interface Answer {
  json: string;
  headers: Headers;
}

/** A failure to report to the model as a tool error, never a crash of the server. */
export class ToolFailure extends Error {}

/** A slow analytics read is fine; a server that never answers is not. */
const TIMEOUT_MS = 60_000;

interface ErrorBody {
  error?: { en?: string; code?: string };
  missingScopes?: string[];
  field?: string;
  retryAfter?: number;
  limit?: number;
}

/** Why this configuration cannot work, or undefined when it can. */
export function configProblem(conn: Connection): string | undefined {
  if (!conn.apiKey) {
    return "LINKTRAIL_API_KEY is not set: add a Linktrail API key to this MCP server's env in the MCP client's configuration (keys are made in the workspace settings, with the scopes the tools need).";
  }
  if (!URL.canParse(conn.baseUrl) || !/^https?:$/.test(new URL(conn.baseUrl).protocol)) {
    return `LINKTRAIL_BASE_URL is not an http(s) address: ${conn.baseUrl}`;
  }
  return undefined;
}

function urlOf(conn: Connection, { path, query = {} }: ApiCall): string {
  const url = new URL(conn.baseUrl.replace(/\/+$/, '') + path);
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  return url.href;
}

/** The server's error body in one paragraph: its English message, code, and the fields that say what to do. */
function describeFailure(conn: Connection, status: number, body: ErrorBody | undefined): string {
  const error = body?.error;
  const parts = [`Linktrail answered HTTP ${status}${error?.code ? ` (${error.code})` : ''}: ${error?.en ?? 'no error message'}`];
  if (body?.missingScopes?.length) {
    parts.push(`missingScopes: ${body.missingScopes.join(', ')}. The API key in LINKTRAIL_API_KEY lacks these scopes; use a key that has them.`);
  }
  if (body?.field) parts.push(`field: ${body.field}`);
  if (body?.limit !== undefined) parts.push(`limit: ${body.limit}`);
  if (body?.retryAfter !== undefined) parts.push(`retryAfter: ${body.retryAfter} seconds`);
  if (status === 401) parts.push('Check LINKTRAIL_API_KEY: the key is missing, wrong, expired or revoked.');
  if (status === 404 && error?.code === 'route_not_found') parts.push(`Is LINKTRAIL_BASE_URL (${conn.baseUrl}) the address of a Linktrail server?`);
  return parts.join('\n');
}

async function send(conn: Connection, call: ApiCall): Promise<Response> {
  try {
    return await fetch(urlOf(conn, call), {
      method: call.method,
      headers: {
        authorization: `Bearer ${conn.apiKey}`,
        accept: 'application/json',
        ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (err) {
    const why = (err as Error).name === 'TimeoutError' ? `no answer within ${TIMEOUT_MS / 1000} s` : String((err as Error).cause ?? (err as Error).message);
    throw new ToolFailure(`Cannot reach the Linktrail server at ${conn.baseUrl} (LINKTRAIL_BASE_URL): ${why}`);
  }
}

/** One REST call; its answer, or a ToolFailure saying what went wrong. */
export async function callApi(conn: Connection, call: ApiCall): Promise<Answer> {
  const problem = configProblem(conn);
  if (problem) throw new ToolFailure(problem);
  const res = await send(conn, call);
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    throw new ToolFailure(
      `${conn.baseUrl} answered HTTP ${res.status} with something that is not JSON: is LINKTRAIL_BASE_URL the address of a Linktrail server?`,
    );
  }
  if (!res.ok) throw new ToolFailure(describeFailure(conn, res.status, body as ErrorBody | undefined));
  return { json: text, headers: res.headers };
}

/** A tool's result: its text blocks, or its failure as an error result the model can read. */
export async function toolResult(produce: () => Promise<string[]>): Promise<CallToolResult> {
  try {
    return { content: (await produce()).map((text) => ({ type: 'text', text })) };
  } catch (err) {
    const text = err instanceof ToolFailure ? err.message : `Unexpected failure: ${(err as Error).message ?? String(err)}`;
    return { content: [{ type: 'text', text }], isError: true };
  }
}
