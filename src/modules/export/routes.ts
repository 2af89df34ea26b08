import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { serviceContext, type Ctx, type ResourceDeps } from '../../core/context.js';
import { adminGuard } from '../../http/auth.js';
import { ErrorBody } from '../../http/schemas.js';
import { routesPlugin } from '../../http/types.js';
import { requireWorkspace } from '../workspaces/service.js';
import { EXPORT_SCOPES, exportWorkspace, type ExportDeps } from './service.js';

const DESCRIPTION = [
  'The whole workspace as NDJSON (`application/x-ndjson`): one JSON object a line, its `type` first, then the record exactly as the API shows it.',
  'Types, in this order (so an importer resolves every reference in one pass): `collection` (GET /api/collections), `tag` (GET /api/tags),',
  '`partner` (GET /api/partners), `link` (GET /api/links, with `aliases`), `customer` (GET /api/customers), `click` (the click record of GET /api/analytics),',
  '`lead` and `sale` (GET /api/events). Within a type, oldest first. Read a page at a time as the client reads, so any size streams.',
  'Needs all six read scopes, listed below (403 `missing_scopes` lists those absent).',
  'It is the format `POST /api/imports?source=linktrail` reads back (docs/imports.md).',
].join(' ');

export const exportRoutes = routesPlugin<ResourceDeps & ExportDeps>('export', (app, deps) => {
  app.get(
    '/api/export',
    {
      config: { scope: EXPORT_SCOPES, heavy: true },
      schema: {
        operationId: 'exportWorkspace',
        tags: ['Export'],
        summary: 'Export the workspace as NDJSON',
        description: DESCRIPTION,
        response: { 200: { description: 'NDJSON, one record a line', content: { 'application/x-ndjson': { schema: Type.String() } } } },
      },
    },
    async (req, reply) => {
      return sendExport(reply, serviceContext(deps, req), deps);
    },
  );
});

function sendExport(reply: FastifyReply, ctx: Ctx, deps: ExportDeps) {
  const body = Readable.from(exportWorkspace({ ctx, deps }), { objectMode: false });
  return reply
    .type('application/x-ndjson; charset=utf-8')
    .header('content-disposition', 'attachment; filename="export.ndjson"')
    .send(body as never);
}

const AdminWorkspaceParam = Type.Object({ workspaceId: Type.String({ format: 'uuid' }) });

/** The operator's export of any workspace (`linktrail export`); register with prefix `/admin`. */
export const exportAdminRoutes = routesPlugin<ResourceDeps & ExportDeps & { adminToken: string }>(
  'export-admin',
  (app, deps) => {
    app.addHook('onRequest', adminGuard(deps.adminToken));
    app.get(
      '/workspaces/:workspaceId/export',
      {
        schema: {
          operationId: 'adminExportWorkspace',
          tags: ['Operator'],
          security: [{ adminToken: [] }],
          summary: 'Export a workspace as NDJSON',
          description: 'As GET /api/export, for the operator.',
          params: AdminWorkspaceParam,
          response: {
            200: { description: 'NDJSON, one record a line', content: { 'application/x-ndjson': { schema: Type.String() } } },
            400: Type.Ref(ErrorBody),
            401: Type.Ref(ErrorBody),
            404: Type.Ref(ErrorBody),
          },
        },
      },
      async (req, reply) => {
        const now = deps.clock();
        const workspace = await requireWorkspace({ ctx: { db: deps.db, now }, input: { id: req.params.workspaceId } });
        return sendExport(reply, { db: deps.db, analyticsDb: deps.analyticsDb?.() ?? deps.db, workspace, now }, deps);
      },
    );
  },
  { isolated: true },
);
