import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { BlockedAddressError, guardedLookup, inRanges, isPublicAddress } from '../../infra/safe-fetch.js';
import { isLoopbackAddress } from './destination.js';

/**
 * The outbound POST of one attempt (operations.md §11, "Where to"): https to public addresses,
 * or anything inside the operator's WEBHOOK_ALLOWED_CIDRS (http allowed there); every
 * connection's addresses pass the connect-time guard, so a name that re-resolves to a private
 * address is refused too. With ALLOW_PRIVATE_DESTINATIONS (tests) loopback addresses are allowed
 * too, over http as well (test receivers), and no other private address. Redirects are never followed.
 */
export interface Destinations {
  allowPrivate: boolean;
  allowedCidrs: readonly string[];
}

/** Which addresses a scheme may reach. */
export function destinationPolicy(d: Destinations): (protocol: 'http:' | 'https:') => (address: string) => boolean {
  const inside = inRanges(d.allowedCidrs);
  const loopback = (a: string) => d.allowPrivate && isLoopbackAddress(a);
  const https = (a: string) => isPublicAddress(a) || inside(a) || loopback(a);
  const http = (a: string) => inside(a) || loopback(a);
  return (protocol) => (protocol === 'https:' ? https : http);
}

export interface AttemptResult {
  /** The answer's status, when one came (even if its body did not finish in time). */
  statusCode: number | null;
  /** Why no answer came: refused, timeout, connection error. */
  error: string | null;
  durationMs: number;
  /** The answer's first `maxResponseBytes` bytes, as text. */
  response: string | null;
  /** The Retry-After header, as sent. */
  retryAfter: string | null;
}

export interface PostOptions {
  allowed: ReturnType<typeof destinationPolicy>;
  /** For the whole attempt: connection, request, answer (§11: 10 s). */
  timeoutMs: number;
  /** How much of the answer is read before the connection is closed (§11: 1 KB). */
  maxResponseBytes: number;
  /** Ends the attempt at once (an instance shutting down); it answers `error: 'aborted'`. */
  signal?: AbortSignal;
}

/** Sends one POST; never throws, never follows a redirect, never reads past maxResponseBytes. */
export function postWebhook(url: string, headers: Record<string, string>, body: string, o: PostOptions): Promise<AttemptResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    let req: http.ClientRequest | undefined;
    let answer: { statusCode: number; retryAfter: string | null; chunks: Buffer[]; size: number } | undefined;
    const done = (r: Partial<AttemptResult>) => {
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', abort);
      req?.destroy();
      req = undefined;
      resolve({ statusCode: null, error: null, response: null, retryAfter: null, ...r, durationMs: Math.round(performance.now() - started) });
      resolve = () => undefined;
    };
    const answered = () => {
      const text = Buffer.concat(answer!.chunks).subarray(0, o.maxResponseBytes).toString('utf8');
      // PostgreSQL text holds no NUL character.
      done({ statusCode: answer!.statusCode, retryAfter: answer!.retryAfter, response: text.replaceAll('\u0000', '') });
    };
    const timer = setTimeout(() => (answer ? answered() : done({ error: `timeout after ${o.timeoutMs / 1000} s` })), o.timeoutMs);
    const abort = () => done({ error: 'aborted' });
    if (o.signal?.aborted) return abort();
    o.signal?.addEventListener('abort', abort, { once: true });

    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return done({ error: 'invalid url' });
    }
    if (target.protocol !== 'https:' && target.protocol !== 'http:') return done({ error: `unsupported scheme ${target.protocol}` });
    const allowed = o.allowed(target.protocol);
    const host = target.hostname.replace(/^\[|\]$/g, '');
    // An IP literal is not looked up, so the guard judges it here.
    if (isIP(host) && !allowed(host)) return done({ error: refusal(target.protocol, host) });

    req = (target.protocol === 'https:' ? https : http).request(target, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      lookup: guardedLookup(allowed) as never,
      // A connection of its own: the guard judges every connection, none is reused.
      agent: false,
    });
    req.on('response', (res) => {
      const retryAfter = res.headers['retry-after'];
      answer = { statusCode: res.statusCode ?? 0, retryAfter: retryAfter ?? null, chunks: [], size: 0 };
      res.on('data', (chunk: Buffer) => {
        answer!.chunks.push(chunk);
        answer!.size += chunk.length;
        if (answer!.size >= o.maxResponseBytes) answered();
      });
      res.on('end', answered);
      res.on('error', answered);
    });
    req.on('error', (err) => (answer ? answered() : done({ error: describe(err, target.protocol) })));
    req.end(body);
  });
}

function refusal(protocol: string, address: string): string {
  return protocol === 'http:' ? `refused: http is allowed only inside WEBHOOK_ALLOWED_CIDRS (${address})` : `refused: ${address} is not a public address`;
}

function describe(err: NodeJS.ErrnoException, protocol: string): string {
  if (err instanceof BlockedAddressError) return refusal(protocol, err.address);
  if (err.code === 'ECONNREFUSED') return 'connection refused';
  if (err.code === 'ECONNRESET') return 'connection reset';
  if (err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN') return 'name not resolved';
  return err.code ? `${err.code}: ${err.message}`.slice(0, 300) : err.message.slice(0, 300);
}
