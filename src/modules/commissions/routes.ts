import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { serviceContext, type ResourceDeps } from '../../core/context.js';
import { ownerForMoney, type RoleLookup } from '../../http/auth.js';
import { addSchemaOnce, errorAnswer } from '../../http/schemas.js';
import { routesPlugin } from '../../http/types.js';
import { MONEY_NOTE } from '../program/schemas.js';
import { Commission, CommissionChange, CommissionCreate, CommissionListQuery } from './schemas.js';
import { changeCommissionStatuses, createCustomCommissions, listCommissions } from './service.js';

export type CommissionRouteDeps = ResourceDeps & { roleOf: RoleLookup };

const tags = ['Partner program'];

/** The person behind the request (session, human token, OAuth grant); null for an API key. */
const actingUserId = (req: FastifyRequest): string | null => {
  const actor = req.principal?.actor;
  return actor && actor.type !== 'key' ? actor.userId : null;
};

export const commissionRoutes = routesPlugin<CommissionRouteDeps>('commissions', (app, deps) => {
  addSchemaOnce(app, Commission);
  const ctx = (req: Parameters<typeof serviceContext>[1]) => serviceContext(deps, req);
  const list = Type.Array(Type.Ref('Commission'));
  const money = { config: { scope: 'programsWrite' as const }, preHandler: ownerForMoney(deps.roleOf) };

  app.get(
    '/api/commissions',
    {
      config: { scope: 'programsRead' },
      schema: {
        operationId: 'listCommissions',
        tags,
        summary: 'Commissions',
        description: 'Extension. Every commission of the program, newest first by default, with the common list parameters and filters.',
        querystring: CommissionListQuery,
        response: { 200: list },
      },
    },
    async (req) => listCommissions({ ctx: ctx(req), input: req.query as never }),
  );

  app.post(
    '/api/commissions',
    {
      ...money,
      schema: {
        operationId: 'createCommissions',
        tags,
        summary: 'Add custom commissions',
        description: `Extension. Bonuses or corrections (earnings may be negative), type custom, payable at once. A partner the acting person signs in as is 403 \`self_dealing\`. ${MONEY_NOTE}`,
        body: CommissionCreate,
        response: { 201: list, 403: errorAnswer('owner_required or self_dealing'), 409: errorAnswer('program_required: the workspace has no program') },
      },
    },
    async (req, reply) => reply.status(201).send(await createCustomCommissions({ ctx: ctx(req), input: { actingUserId: actingUserId(req), items: req.body } })),
  );

  app.patch(
    '/api/commissions',
    {
      ...money,
      schema: {
        operationId: 'changeCommissions',
        tags,
        summary: 'Release or reverse commissions',
        description:
          'Extension. held → pending releases (payableAt unchanged); held → reversed (fraud); pending or payable → reversed (manual unless given). ' +
          'Any other move fails the request naming its index; a commission inside a pending payout keeps its place and the reversal becomes its adjustment. ' +
          MONEY_NOTE,
        body: CommissionChange,
        response: { 200: list },
      },
    },
    async (req) => changeCommissionStatuses({ ctx: ctx(req), input: req.body }),
  );
});
