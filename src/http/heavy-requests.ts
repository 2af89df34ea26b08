import { AppError } from '../core/errors.js';
import type { App } from './types.js';

/**
 * Expensive requests (issue 41 M1): lists with statistics or very large pages, analytics,
 * exports. One workspace's thirty of them held the whole PostgreSQL pool, and every other
 * workspace waited (p50 1.8 s, then 503s). They are bounded here per workspace and instance, and
 * their statements run on a pool of their own (runtime.ts), smaller than the main one and with a
 * shorter statement timeout, so other workspaces and the redirect always find a connection.
 */

/** Heavy requests of one workspace that run at once on one instance; the next ones wait their turn… */
export const HEAVY_RUNNING_PER_WORKSPACE = 2;
/**
 * …up to this many; past that, 429 `heavy_requests_busy`. The dashboard's analytics page asks
 * eight to ten at once: two people of a workspace opening it together still all wait their turn.
 */
export const HEAVY_WAITING_PER_WORKSPACE = 16;
/** Seconds a refused caller is told to wait: a heavy request usually ends within that. */
const RETRY_AFTER_S = 2;

/** The limits, for the OpenAPI description (openapi.ts). */
export const HEAVY_REQUESTS_DESCRIPTION = `Expensive requests — \`GET /api/links\` with \`withStats=true\` or \`take\` over 1000, \`GET /api/partners\`
with \`withStats=true\`, \`GET /api/analytics\` and \`GET /api/export\` — run at most ${HEAVY_RUNNING_PER_WORKSPACE} at a time per workspace on each server instance, on
database connections set apart for them (other requests never wait behind them); up to ${HEAVY_WAITING_PER_WORKSPACE} more wait
their turn, and beyond that the answer is 429 \`heavy_requests_busy\` with \`Retry-After\`. One of their database statements
running past the operator's HEAVY_STATEMENT_TIMEOUT_SECONDS (15 s by default; any other statement: 60 s) is stopped: 503
\`query_timeout\` with \`Retry-After\` (narrow the query, or retry later).`;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** An expensive route (always, or when this says so of the validated request): bounded by HeavyGate. */
    heavy?: true | ((request: FastifyRequest) => boolean);
  }
  interface FastifyRequest {
    /** Set once a heavy request holds its slot: its services read through the heavy pool (core/context.ts). */
    heavy?: boolean;
  }
}

/** Per-workspace slots: a count running and a queue of those waiting. In process (each instance bounds its own). */
export class HeavyGate {
  private readonly workspaces = new Map<string, { running: number; waiting: (() => void)[] }>();

  constructor(
    private readonly running = HEAVY_RUNNING_PER_WORKSPACE,
    private readonly waiting = HEAVY_WAITING_PER_WORKSPACE,
  ) {}

  /** Resolves with the release once the workspace has a free slot; throws 429 when too many already wait. */
  async enter(workspaceId: string): Promise<() => void> {
    let w = this.workspaces.get(workspaceId);
    if (!w) this.workspaces.set(workspaceId, (w = { running: 0, waiting: [] }));
    if (w.running >= this.running) {
      if (w.waiting.length >= this.waiting) {
        throw new AppError('heavy_requests_busy', { limit: this.running + this.waiting, retryAfter: RETRY_AFTER_S }, { retryAfter: RETRY_AFTER_S });
      }
      // The slot is handed over by the release below, never counted twice.
      await new Promise<void>((resolve) => w.waiting.push(resolve));
    } else w.running++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = w.waiting.shift();
      if (next) return next();
      if (--w.running === 0) this.workspaces.delete(workspaceId);
    };
  }
}

/**
 * Bounds the routes marked `heavy` once the caller's workspace is known (after authentication
 * and validation). The slot is held until the response is over, streamed exports included, and
 * freed as well when the client goes away.
 */
export function registerHeavyGate(app: App, gate: HeavyGate): void {
  app.addHook('preHandler', async (request, reply) => {
    const heavy = request.routeOptions.config.heavy;
    const workspaceId = request.principal?.workspace.id;
    if (!heavy || !workspaceId || (heavy !== true && !heavy(request))) return;
    // Listened to before waiting: a client gone while queued frees its slot as soon as it gets one.
    const slot: { release?: () => void; closed?: boolean } = {};
    reply.raw.once('close', () => {
      slot.closed = true;
      slot.release?.();
    });
    slot.release = await gate.enter(workspaceId);
    if (slot.closed) return slot.release();
    request.heavy = true;
  });
}
