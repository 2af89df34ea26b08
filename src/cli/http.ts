/** The CLI's side of HTTP: the operator token on every request, and server answers put in words. */

/** A failure the CLI explains in words; exit code 2 for a wrong command line, 1 for the rest. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
  }
}
export const usageError = (message: string) => new CliError(message, 2);

/** Where the server is and how to be let in. */
export interface Server {
  base: string;
  token: string;
}

/** One request to the operator API; `notFound` says what a 404 of a known resource means for the command that asked. */
export interface Call {
  method: string;
  path: string;
  body?: unknown;
  notFound?: string;
}

/** The response, whatever its status; a server out of reach is a CliError. */
export async function send(server: Server, path: string, init: RequestInit = {}): Promise<Response> {
  try {
    return await fetch(server.base.replace(/\/+$/, '') + path, {
      ...init,
      headers: { authorization: `Bearer ${server.token}`, ...(init.headers as Record<string, string> | undefined) },
    });
  } catch (err) {
    throw new CliError(`cannot reach ${server.base}: ${String((err as Error).cause ?? (err as Error).message)}`);
  }
}

/** The parsed JSON body of a response (undefined when empty); anything else is not a Linktrail server. */
async function jsonOf(server: Server, res: Response): Promise<unknown> {
  const text = await res.text();
  try {
    return text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    throw new CliError(`${server.base} answered HTTP ${res.status} with something that is not JSON: is it a Linktrail server?`);
  }
}

/** The CliError of a response that is not ok: the server's own English message. */
export async function failure(server: Server, res: Response, notFound?: string): Promise<CliError> {
  const data = await jsonOf(server, res);
  const error = (data as { error?: { en?: string; code?: string } } | undefined)?.error;
  if (res.status === 404 && error?.code === 'not_found' && notFound) return new CliError(notFound);
  // The operator API answers 404 to everything when the server has no ADMIN_TOKEN.
  if (res.status === 404) return new CliError(`${error?.en ?? 'HTTP 404'} (is ADMIN_TOKEN set on the server?)`);
  return new CliError(error?.en ?? `HTTP ${res.status}`);
}

/** A JSON request; its JSON answer, or the server's error as a CliError. */
export async function call(server: Server, { method, path, body, notFound }: Call): Promise<unknown> {
  const res = await send(server, path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw await failure(server, res, notFound);
  return jsonOf(server, res);
}
