import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { absorbResult, OPERATOR_ACTOR, writeAudit, type AuditActor, type AuditIntent } from '../../core/audit.js';
import type { Conn } from '../../db/connect.js';
import { newId } from '../../db/ids.js';
import type { App } from '../../http/types.js';
import { NOT_AUDITED, ROUTE_ACTIONS } from './actions.js';

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

declare module 'fastify' {
  interface FastifyRequest {
    /** The audit entry this request makes, when it changes a workspace. */
    auditIntent?: AuditIntent;
  }
}

/** The route's key in ROUTE_ACTIONS: its method and pattern. */
export const routeKey = (request: FastifyRequest) => `${request.method} ${request.routeOptions.url ?? ''}`;

/** Whether a route changes a workspace: a mutating method, acting in a workspace (a scope or a workspace role), not excluded. */
export function isAuditedRoute(method: string, url: string, config: { scope?: unknown; workspaceRole?: unknown }): boolean {
  if (!MUTATING.has(method) || NOT_AUDITED.has(`${method} ${url}`)) return false;
  return config.scope !== undefined || config.workspaceRole !== undefined || `${method} ${url}` in ROUTE_ACTIONS;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An operator's route (ADMIN_TOKEN, checked by its plugin's onRequest guard before this hook runs). */
const isOperatorRoute = (url: string) => url.startsWith('/admin/');

/** The path parameter naming the workspace a route acts in (a settings route's or an operator's `/admin/workspaces/:id`), if any. */
function workspaceParam(request: FastifyRequest): 'id' | 'workspaceId' | undefined {
  const url = request.routeOptions.url ?? '';
  if (isOperatorRoute(url)) return url.startsWith('/admin/workspaces/:workspaceId') ? 'workspaceId' : url.startsWith('/admin/workspaces/:id') ? 'id' : undefined;
  return request.routeOptions.config.workspaceRole ? 'id' : undefined;
}

/**
 * The workspace a request changes: its credential's, a settings route's :id, or (owner routes
 * of a session, such as /api/sso) its one X-Workspace-Id — checked by the route itself before
 * it writes, so an entry is only ever written for a workspace the route let the person change.
 * An operator's route names it in its path, or (DELETE /admin/keys/:id) its change tells it.
 */
function workspaceOf(request: FastifyRequest): string | undefined {
  if (request.principal) return request.principal.workspace.id;
  const param = workspaceParam(request);
  if (param) return (request.params as Record<string, string | undefined>)[param];
  if (isOperatorRoute(request.routeOptions.url ?? '')) return undefined;
  const named = request.headers['x-workspace-id'];
  return typeof named === 'string' && UUID.test(named.trim()) ? named.trim() : undefined;
}

function actorOf(request: FastifyRequest): AuditActor | undefined {
  if (isOperatorRoute(request.routeOptions.url ?? '')) return OPERATOR_ACTOR;
  const a = request.principal?.actor;
  if (a?.type === 'key') return { kind: 'key', id: a.keyId };
  if (a?.type === 'app') return { kind: 'app', id: a.appId, userId: a.userId };
  if (a?.type === 'user') return a.tokenId ? { kind: 'token', id: a.tokenId, userId: a.userId } : { kind: 'user', id: a.userId, userId: a.userId };
  const p = request.person;
  if (!p) return undefined;
  return p.tokenId ? { kind: 'token', id: p.tokenId, userId: p.userId } : { kind: 'user', id: p.userId, userId: p.userId };
}

/** What a request tells before it runs: its path's record ids, and for a bulk body its ids and counts. */
function targetsOf(request: FastifyRequest, intent: AuditIntent): void {
  const params = (request.params ?? {}) as Record<string, string>;
  const named = workspaceParam(request);
  for (const [name, value] of Object.entries(params)) {
    // A settings route names its workspace by a parameter; the records it changes by the others.
    if (name === named) continue;
    absorbResult(intent, value);
  }
  const body = request.body;
  if (!Array.isArray(body)) return;
  if (request.method === 'DELETE') {
    absorbResult(intent, body);
    intent.counts.deleted = body.length;
  } else if (request.method === 'POST') intent.counts.created = body.length;
  else {
    const updates = body.filter((i) => i && typeof i === 'object' && 'id' in i).length;
    intent.counts.updated = updates;
    if (body.length > updates) intent.counts.created = body.length - updates;
  }
}

/**
 * The audit log's hooks (operations.md §15). preHandler (after authentication and the role
 * check): a request to a mutating workspace route (or an operator's route of ROUTE_ACTIONS) gets
 * an AuditIntent, which every transaction opened on its context's connection writes, unless it
 * returns nothing (core/context.ts, core/transaction.ts). onSend: a change made without such a
 * transaction gets its entry from its success answer (ids from that answer); a failed answer —
 * a 404 for a record not found included — writes none. onResponse: the intent closes, so work the request left behind adds nothing.
 */
export function registerAuditHooks(app: App, db: Conn, clock: () => Date): void {
  app.addHook('preHandler', (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const config = request.routeOptions.config;
    const url = request.routeOptions.url ?? '';
    if (!isAuditedRoute(request.method, url, config)) return done();
    const workspaceId = workspaceOf(request);
    const actor = actorOf(request);
    if (!actor || (!workspaceId && actor.kind !== 'operator')) return done();
    const intent: AuditIntent = {
      id: newId(),
      workspaceId: workspaceId?.toLowerCase(),
      actor,
      action: ROUTE_ACTIONS[routeKey(request)] ?? routeKey(request),
      ip: request.ip,
      userAgent: request.headers['user-agent']?.slice(0, 500),
      at: clock(),
      ids: new Set(),
      counts: {},
      changes: {},
      written: false,
      open: true,
    };
    targetsOf(request, intent);
    request.auditIntent = intent;
    done();
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const intent = request.auditIntent;
    if (!intent || intent.written || reply.statusCode >= 300) return payload;
    if (typeof payload === 'string' && payload.length > 0 && payload.length < 8_000_000) {
      try {
        absorbResult(intent, JSON.parse(payload));
      } catch {
        // Not JSON: the path's ids are the entry's.
      }
    }
    try {
      await writeAudit(db, intent);
    } catch (err) {
      // The change is made and answered as made; the missing entry is said in the log.
      request.log.error({ err, action: intent.action, workspaceId: intent.workspaceId }, 'audit entry not written');
    }
    return payload;
  });
  app.addHook('onResponse', async (request) => {
    if (request.auditIntent) request.auditIntent.open = false;
  });
}
