import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { OPERATOR_ACTOR, type AuditActor, type AuditIntent } from '../../core/audit.js';
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
  if (isOperatorRoute(url))
    return url.startsWith('/admin/workspaces/:workspaceId') ? 'workspaceId' : url.startsWith('/admin/workspaces/:id') ? 'id' : undefined;
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

/** What an audited success without its entry does besides the error log: fail the answer (tests) or leave it (production). */
export type AuditMissing = 'fail' | 'log';

/**
 * The audit log's hooks (operations.md §15). preHandler (after authentication and the role
 * check): a request to a mutating workspace route (or an operator's route of ROUTE_ACTIONS) gets
 * an AuditIntent — who, where, when, which action — which the route puts on the context it
 * builds (core/context.ts); its service writes the entry, with the ids, counts and changes it
 * made, in the transaction of its change (`audit(ctx, tx, …)`, core/audit.ts). A failed request
 * — a 404 for a record not found included — rolled its entry back with its change.
 *
 * onSend: an audited route answered 2xx whose service wrote no entry (or wrote it in a transaction
 * that then rolled back) is a bug — a change the log does not show. It is always logged as an error. With `missing: 'fail'` (every test app) the
 * answer becomes a 500, so a test of any path of any audited route fails on it; in production
 * (`'log'`) the answer stands: the change is committed by then, and a 500 would invite a retry
 * that makes it twice.
 */
export function registerAuditHooks(app: App, clock: () => Date, missing: AuditMissing = 'log'): void {
  app.addHook('preHandler', (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const config = request.routeOptions.config;
    const url = request.routeOptions.url ?? '';
    if (!isAuditedRoute(request.method, url, config)) return done();
    const workspaceId = workspaceOf(request);
    const actor = actorOf(request);
    if (!actor || (!workspaceId && actor.kind !== 'operator')) return done();
    request.auditIntent = {
      id: newId(),
      workspaceId: workspaceId?.toLowerCase(),
      actor,
      action: ROUTE_ACTIONS[routeKey(request)] ?? routeKey(request),
      ip: request.ip,
      userAgent: request.headers['user-agent']?.slice(0, 500),
      at: clock(),
      written: false,
    };
    done();
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const intent = request.auditIntent;
    if (!intent || intent.written || reply.statusCode < 200 || reply.statusCode >= 300) return payload;
    request.log.error(
      { action: intent.action, workspaceId: intent.workspaceId, route: routeKey(request) },
      'audit entry not written: the service of an audited route made no audit() call, or its transaction rolled back',
    );
    if (missing === 'fail') throw new Error(`audit entry not written for ${routeKey(request)}`);
    return payload;
  });
}
