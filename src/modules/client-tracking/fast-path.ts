import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Ctx } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import { isDatabaseUnavailable } from '../../db/connect.js';
import { headerTokens, PUBLISHABLE_KEY_PREFIX } from '../../http/auth.js';
import { errorBody, statusOf } from '../../http/errors.js';
import { DEFAULT_MAX_ITEMS, parseJsonBody } from '../../http/json-body.js';
import { schemaCheck } from '../../http/validation.js';
import { clientIp } from '../redirect/service.js';
import { isWellFormedPublishableKey, type KeySite } from '../tracking/service.js';
import { countWindows, judgeWindows, refusalOf, windowsOf, type GuardDeps } from './guard.js';
import { ClickInput } from './schemas.js';
import {
  cachedTargetOf,
  recordClaimedClick,
  recordViaClick,
  visitorMarkOf,
  type ClickDeps,
  type ClickInput as ClickBody,
  type ClickTarget,
} from './service.js';

export interface FastClickDeps {
  db: Ctx['db'];
  guard: GuardDeps;
  click: ClickDeps;
  log: { error: (obj: object, msg: string) => void };
}

const PATH = '/api/track/click';
/** A click's body is a few hundred bytes; a larger one goes through the route and its limits. */
const MAX_BODY = 16 * 1024;
const checkBody = schemaCheck(ClickInput);

/** The request's one credential when it is a well-formed publishable key (as the route reads it); undefined otherwise. */
function publishableKeyOf(req: IncomingMessage): string | undefined {
  let tokens: string[];
  try {
    tokens = [...new Set(headerTokens({ raw: req }))];
  } catch {
    return undefined; // several credentials: the route's 401
  }
  const key = tokens.length === 1 ? tokens[0]! : undefined;
  return key?.startsWith(PUBLISHABLE_KEY_PREFIX) && isWellFormedPublishableKey(key) ? key : undefined;
}

/** Whether the request is the common case: a JSON body of a known length, small enough to read here. */
function plainJsonBody(req: IncomingMessage): boolean {
  const type = req.headers['content-type'];
  const length = Number(req.headers['content-length']);
  return (
    req.headers['transfer-encoding'] === undefined &&
    length > 0 &&
    length <= MAX_BODY &&
    type !== undefined &&
    (type === 'application/json' || /^application\/json\s*;/i.test(type))
  );
}

/**
 * POST /api/track/click before the framework (operations.md §19): every visitor of every site
 * comes here, as to a redirect. Taken only when the route would admit the request by its headers
 * alone — one publishable key already in the cache, still working, from a page of an allowed
 * hostname, a small JSON body of a known length; anything else returns false before the body is
 * read and goes through the route, which answers every refusal. Once taken, the same steps as
 * the route in the same order (both windows counted, the body parsed and checked by the route's
 * schema, recordViaClick) and the same answers. Nothing may throw out of here (see the redirect's
 * fast path): a failure answers 500 and is logged.
 */
export function fastTrackClick(d: FastClickDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    if (req.method !== 'POST' || req.url !== PATH || !plainJsonBody(req)) return false;
    const key = publishableKeyOf(req);
    if (!key) return false;
    const now = d.guard.clock().getTime();
    const site = d.guard.sites.peek(key, now);
    const origin = req.headers.origin;
    if (!site || refusalOf(site, origin, now)) return false;
    // No X-Request-Id, as the redirect's fast path: nothing here is logged under it (the route logs warnings only).
    const headers: Record<string, string> = { 'access-control-allow-origin': origin!, vary: 'Origin' };
    const send = (status: number, body: unknown) => {
      const text = JSON.stringify(body);
      res.writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    };
    const fail = (err: unknown) => {
      if (res.headersSent) return void res.destroy();
      if (err instanceof AppError) {
        if (err.extra.retryAfter !== undefined) headers['retry-after'] = String(err.extra.retryAfter);
        return send(statusOf(err.code), errorBody(err));
      }
      if (isDatabaseUnavailable(err)) {
        headers['retry-after'] = '5';
        return send(503, errorBody(new AppError('unavailable')));
      }
      d.log.error({ err, workspaceId: site.workspace.id }, 'track click failed');
      send(500, errorBody(new AppError('internal_error')));
    };
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', () => res.destroy());
    req.on('end', () => {
      const ip = clientIp(req.headers, req.socket.remoteAddress, d.guard.trustProxy);
      answer(d, site, ip, now, Buffer.concat(chunks), req, headers)
        .then((result) => send(200, result))
        .catch((err: unknown) => {
          try {
            fail(err);
          } catch {
            res.destroy();
          }
        });
    });
    return true;
  };
}

/**
 * The route's steps for a body already read: both windows counted (a refusal first), the body
 * parsed and checked, the click recorded. With its target in the caches, the windows and the
 * visitor's mark are one step (the click gate: one round trip to Redis); else as the route.
 */
async function answer(d: FastClickDeps, site: KeySite, ip: string, now: number, body: Buffer, req: IncomingMessage, headers: Record<string, string>) {
  const ctx: Ctx = { db: d.db, workspace: site.workspace, now: new Date(now) };
  const visitor = { ip, headers: req.headers };
  let input: ClickBody;
  let target: ClickTarget | undefined;
  try {
    input = (await parseJsonBody(body, DEFAULT_MAX_ITEMS)) as ClickBody;
    const invalid = checkBody(input);
    if (invalid) throw invalid;
    target = cachedTargetOf(ctx, d.click, input);
  } catch (err) {
    await countIn(d, site, ip, now, headers);
    throw err;
  }
  if (!target) {
    await countIn(d, site, ip, now, headers);
    return recordViaClick({ ctx, deps: d.click, input, visitor });
  }
  const mark = visitorMarkOf(ctx, target, visitor);
  const admitted = await d.guard.gate.admit(windowsOf(d.guard, site, ip), mark, now);
  const verdict = judgeWindows(admitted.windows);
  Object.assign(headers, verdict.headers);
  if (verdict.refusal) throw verdict.refusal;
  return recordClaimedClick({ ctx, deps: d.click, input, visitor, target, clickId: admitted.mark!, fresh: mark.value });
}

/** The windows alone (the route's guard), for a request that will not reach the gate with a mark; throws their 429. */
async function countIn(d: FastClickDeps, site: KeySite, ip: string, now: number, headers: Record<string, string>): Promise<void> {
  const verdict = await countWindows(d.guard, site, ip, now);
  Object.assign(headers, verdict.headers);
  if (verdict.refusal) throw verdict.refusal;
}
