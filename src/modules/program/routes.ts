import { Type } from '@sinclair/typebox';
import { serviceContext, type ResourceDeps } from '../../core/context.js';
import { ownerForMoney, type RoleLookup } from '../../http/auth.js';
import { addSchemaOnce, errorAnswer } from '../../http/schemas.js';
import { routesPlugin } from '../../http/types.js';
import { registerBulkRoutes } from '../../http/bulk-routes.js';
import { deletePartnerGroups, listGroups, writePartnerGroups, type GroupItem } from './groups.js';
import { MONEY_NOTE, PartnerGroup, PartnerGroupCreate, PartnerGroupUpsert, Program, ProgramInput } from './schemas.js';
import { getProgram, putProgram, type ProgramDeps } from './service.js';

export type ProgramRouteDeps = ResourceDeps & { roleOf: RoleLookup; program: ProgramDeps };

const tags = ['Partner program'];

export const programRoutes = routesPlugin<ProgramRouteDeps>('program', (app, deps) => {
  addSchemaOnce(app, Program);
  const ctx = (req: Parameters<typeof serviceContext>[1]) => serviceContext(deps, req);
  const ref = Type.Ref('Program');

  app.get(
    '/api/program',
    {
      config: { scope: 'programsRead' },
      schema: {
        operationId: 'getProgram',
        tags,
        summary: 'The partner program',
        description: 'Extension. The workspace has at most one program; 404 `not_found` until the first PUT makes it.',
        response: { 200: ref, 404: errorAnswer('not_found: the workspace has no program yet') },
      },
    },
    async (req) => getProgram({ ctx: ctx(req) }),
  );

  app.put(
    '/api/program',
    {
      config: { scope: 'programsWrite' },
      preHandler: ownerForMoney(deps.roleOf),
      schema: {
        operationId: 'putProgram',
        tags,
        summary: 'Create or change the partner program',
        description:
          "Extension. The first PUT makes the program, a collection named after it (partners' default links and the links partners make) and the group `default`; " +
          'partners that exist are approved from then on (their default links are made by a background job right after the answer), and nothing stored before earns. ' +
          'A new `landingUrl` moves the default links whose `url` was not edited. Later PUTs change what they give: a setting left out keeps its value ' +
          '(on the first PUT, its default). `slug` is unique on the server (409 `slug_taken`); `linkHost` must be a host the workspace holds active. ' +
          MONEY_NOTE,
        body: ProgramInput,
        response: { 200: ref, 409: errorAnswer('slug_taken: another program has this slug') },
      },
    },
    async (req) => putProgram({ ctx: ctx(req), deps: deps.program, input: req.body }),
  );

  registerBulkRoutes(app, deps, {
    path: '/api/partner-groups',
    tag: 'Partner groups',
    readScope: 'programsRead',
    writeScope: 'programsWrite',
    record: PartnerGroup,
    createItem: PartnerGroupCreate,
    upsertItem: PartnerGroupUpsert,
    deleteNote: 'Their partners move to the group `default`, which cannot be deleted (400 `default_group`).',
    writeResponses: { 409: errorAnswer('program_required (the workspace has no program yet) or group_name_taken') },
    service: {
      list: ({ ctx }) => listGroups({ ctx }),
      create: ({ ctx, input }) => writePartnerGroups({ ctx, input: input as GroupItem[], mode: 'create' }),
      upsert: ({ ctx, input }) => writePartnerGroups({ ctx, input: input as GroupItem[], mode: 'upsert' }),
      remove: ({ ctx, input }) => deletePartnerGroups({ ctx, input }),
    },
  });
});
