import { Type } from '@sinclair/typebox';
import { serviceContext, type ResourceDeps } from '../../core/context.js';
import { addSchemaOnce, DeletedIds, errorAnswer } from '../../http/schemas.js';
import { routesPlugin } from '../../http/types.js';
import { MAX_TEMPLATES, UtmTemplate, UtmTemplateCreate, UtmTemplateParam, UtmTemplateUpdate } from './schemas.js';
import { changeUtmTemplate, createUtmTemplate, listUtmTemplates, removeUtmTemplate } from './service.js';

const tags = ['UTM templates'];
const read = { scope: 'linksRead' } as const;
const write = { scope: 'linksWrite' } as const;
const ref = Type.Ref('UtmTemplate');

/** Saved UTM values of the workspace, applied to links by the dashboard's UTM builder (operations.md §14). */
export const utmTemplateRoutes = routesPlugin<ResourceDeps>('utm-templates', (app, deps) => {
  addSchemaOnce(app, UtmTemplate);
  const ctx = (req: Parameters<typeof serviceContext>[1]) => serviceContext(deps, req);

  app.get(
    '/api/utm-templates',
    {
      config: read,
      schema: {
        operationId: 'listUtmTemplates',
        tags,
        summary: 'UTM templates',
        description: 'Extension. Every template of the workspace, by name.',
        response: { 200: Type.Array(ref) },
      },
    },
    async (req) => listUtmTemplates({ ctx: ctx(req) }),
  );

  app.post(
    '/api/utm-templates',
    {
      config: write,
      schema: {
        operationId: 'createUtmTemplate',
        tags,
        summary: 'Save a UTM template',
        description: `Extension. A name taken in the workspace (ignoring case) is a 409 \`utm_template_name_taken\`; at most ${MAX_TEMPLATES} templates per workspace (400 \`utm_template_limit\`).`,
        body: UtmTemplateCreate,
        response: { 201: ref, 409: errorAnswer('utm_template_name_taken: another template has this name') },
      },
    },
    async (req, reply) => reply.status(201).send(await createUtmTemplate({ ctx: ctx(req), input: req.body })),
  );

  app.patch(
    '/api/utm-templates/:id',
    {
      config: write,
      schema: {
        operationId: 'updateUtmTemplate',
        tags,
        summary: 'Change a UTM template',
        description: 'Extension. At least one field; `utm` replaces the whole set of values. Links made with the template keep their own values.',
        params: UtmTemplateParam,
        body: UtmTemplateUpdate,
        response: { 200: ref, 409: errorAnswer('utm_template_name_taken: another template has this name') },
      },
    },
    async (req) => changeUtmTemplate({ ctx: ctx(req), input: { ...req.body, id: req.params.id } }),
  );

  app.delete(
    '/api/utm-templates/:id',
    {
      config: write,
      schema: {
        operationId: 'deleteUtmTemplate',
        tags,
        summary: 'Delete a UTM template',
        description: 'Extension. Links made with it keep their values.',
        params: UtmTemplateParam,
        response: { 200: DeletedIds },
      },
    },
    async (req) => {
      await removeUtmTemplate({ ctx: ctx(req), input: { id: req.params.id } });
      return { deletedIds: [req.params.id] };
    },
  );
});
