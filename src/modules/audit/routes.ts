import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { baseContext } from '../../core/context.js';
import { csvWindow } from '../../core/csv.js';
import { AppError, notFound } from '../../core/errors.js';
import type { Conn } from '../../db/connect.js';
import type { RoleLookup } from '../../http/auth.js';
import { errorAnswer, JsonOrCsv } from '../../http/schemas.js';
import { routesPlugin } from '../../http/types.js';
import { knownActions } from './actions.js';
import { registerAuditHooks, type AuditMissing } from './hook.js';
import { AuditEntry, AuditQuery, SecurityLogQuery, SignIn } from './schemas.js';
import { auditActors, auditCsv, listAuditLog, MAX_ACTORS, securityLog, type AuditQuery as Query } from './service.js';

export interface AuditRoutesDeps {
  db: Conn;
  clock: () => Date;
  roleOf: RoleLookup;
  /** An audited success whose service wrote no entry: 'fail' answers 500 (test apps), 'log' only logs it (default). */
  auditMissing?: AuditMissing;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The audit log (operations.md §15): the hooks that write an entry for every request changing a
 * workspace (registered before any other route, so they see them all), the owner's list, and a
 * person's own sign-ins.
 */
export const auditRoutes = routesPlugin<AuditRoutesDeps>('audit', (app, deps) => {
  registerAuditHooks(app, deps.clock, deps.auditMissing);
  app.addSchema(AuditEntry);
  app.addSchema(SignIn);
  const ctx = baseContext(deps);

  /** The workspace X-Workspace-Id names, which the signed-in person must own. */
  const ownedWorkspace = async (req: FastifyRequest): Promise<string> => {
    const named = req.headers['x-workspace-id'];
    if (named === undefined) throw new AppError('workspace_required');
    if (typeof named !== 'string' || !UUID_RE.test(named.trim())) throw new AppError('not_a_member');
    const id = named.trim().toLowerCase();
    const role = await deps.roleOf(req.person!.userId, id);
    if (role === undefined) throw notFound('workspace', id);
    if (role !== 'owner') throw new AppError('owner_required');
    return id;
  };

  app.get(
    '/api/audit-log',
    {
      config: { account: 'session' },
      schema: {
        operationId: 'listAuditLog',
        tags: ['Workspaces'],
        summary: 'Audit log',
        description:
          `Extension. An owner's session only (the workspace in X-Workspace-Id; 403 owner_required for other roles, 404 for a workspace one is not a member of): the log is about people, so no API key or token reads it. ` +
          'One entry per request that changed the workspace (conversion tracking and clicks are not entries), written in the same transaction as the change, so a failed request has none (a request on an unknown id, 404, neither); a bulk request is one entry with its counts and up to 10,000 ids. ' +
          "The operator API's changes of the workspace (keys, members, plan and limits, domains, SSO domains, imports) are entries too, actor `{ kind: 'operator', id: 'operator' }`. `changes` gives a changed setting's value before and after (a member's role; the workspace's plan and limits). " +
          "Also each member's sign-ins (`sign_in.<method>.<outcome>`), in every workspace they belong to. Kept AUDIT_RETENTION_DAYS (365 by default). " +
          `Newest first by default; skip/take paging as other lists; startDate and endDate are read as in GET /api/analytics. Actions: ${knownActions()
            .map((a) => `\`${a}\``)
            .join(', ')}.`,
        querystring: AuditQuery,
        security: [{ sessionCookie: [] }],
        response: {
          200: JsonOrCsv(Type.Array(Type.Ref(AuditEntry)), 'One entry a line after a header line, UTF-8'),
          403: errorAnswer('owner_required: only an owner reads the audit log'),
          404: errorAnswer('Not a member of the workspace in X-Workspace-Id'),
        },
      },
    },
    async (req, reply) => {
      const workspaceId = await ownedWorkspace(req);
      const q = { ...(req.query as Omit<Query, 'workspaceId'> & { format?: 'json' | 'csv' }), workspaceId };
      if (q.format !== 'csv') return listAuditLog({ ctx: ctx(req), input: q });
      const csv = auditCsv({ ctx: ctx(req), input: { query: q, window: csvWindow(req.url, q) } });
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="audit-log.csv"')
        .send(csv as never); // a stream, not checked against the JSON schema
    },
  );

  app.get(
    '/api/audit-log/actors',
    {
      config: { account: 'session' },
      schema: {
        operationId: 'listAuditActors',
        tags: ['Workspaces'],
        summary: 'Who appears in the audit log',
        description: `Extension, as GET /api/audit-log (an owner's session): the actors of the workspace's entries, each with the id the log's \`actor\` filter takes and a name, so a filter is chosen by name. A person appears once, by their user id, whatever they acted through (a session, a token, an app); a key, an app without a person and the operator by their own id. The ${MAX_ACTORS} most recent.`,
        security: [{ sessionCookie: [] }],
        response: {
          200: Type.Array(
            Type.Object({
              id: Type.String({ description: 'The value of the actor filter' }),
              kind: Type.String({ description: 'person, key, app or operator' }),
              name: Type.Union([Type.String(), Type.Null()], { description: "A person's e-mail, a key's or an app's name; null once deleted" }),
            }),
          ),
          403: errorAnswer('owner_required: only an owner reads the audit log'),
          404: errorAnswer('Not a member of the workspace in X-Workspace-Id'),
        },
      },
    },
    async (req) => auditActors({ ctx: ctx(req), input: { workspaceId: await ownedWorkspace(req) } }),
  );

  app.get(
    '/api/me/security-log',
    {
      config: { account: 'session' },
      schema: {
        operationId: 'listSecurityLog',
        tags: ['Account'],
        summary: 'My sign-ins',
        description:
          "Extension: this person's own sign-in attempts, failed ones included, newest first: when, from which address and user agent, the method (password, second factor…) and the outcome. Attempts for an e-mail with no account name nobody and are not listed anywhere. Kept AUDIT_RETENTION_DAYS.",
        querystring: SecurityLogQuery,
        security: [{ sessionCookie: [] }],
        response: { 200: Type.Array(Type.Ref(SignIn)) },
      },
    },
    async (req) => {
      const q = req.query as { take: number; skip: number };
      return securityLog({ ctx: ctx(req), input: { userId: req.person!.userId, take: q.take, skip: q.skip } });
    },
  );
});
