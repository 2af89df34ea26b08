import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { serviceContext, type ResourceDeps } from '../../core/context.js';
import { routesPlugin } from '../../http/types.js';
import { EXPORT_SCOPES, exportWorkspace, type ExportDeps } from './service.js';

const DESCRIPTION = [
  'The whole workspace as NDJSON (`application/x-ndjson`): one JSON object a line, its `type` first, then the record exactly as the API shows it.',
  'Types, in this order (so an importer resolves every reference in one pass): `collection` (GET /api/collections), `tag` (GET /api/tags),',
  '`partner` (GET /api/partners), `link` (GET /api/links, with `aliases`), `customer` (GET /api/customers), `click` (the click record of GET /api/analytics),',
  '`lead` and `sale` (GET /api/events). Within a type, oldest first. Read a page at a time as the client reads, so any size streams.',
  'Needs all six read scopes, listed below (403 `missing_scopes` lists those absent).',
  'It is the format `POST /api/imports?source=linktrail` (operations.md §13) reads back.',
].join(' ');

export const exportRoutes = routesPlugin<ResourceDeps & ExportDeps>('export', (app, deps) => {
  app.get(
    '/api/export',
    {
      config: { scope: EXPORT_SCOPES },
      schema: {
        tags: ['Export'],
        summary: 'Export the workspace as NDJSON',
        description: DESCRIPTION,
        response: { 200: { description: 'NDJSON, one record a line', content: { 'application/x-ndjson': { schema: Type.String() } } } },
      },
    },
    async (req, reply) => {
      const body = Readable.from(exportWorkspace({ ctx: serviceContext(deps, req), deps }), { objectMode: false });
      return reply.type('application/x-ndjson; charset=utf-8').header('content-disposition', 'attachment; filename="export.ndjson"').send(body as never);
    },
  );
});
