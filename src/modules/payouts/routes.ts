import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { serviceContext, type ResourceDeps } from '../../core/context.js';
import { exactJson, hasBigint } from '../../core/exact-json.js';
import type { Sealer } from '../../core/sealed.js';
import { ownerForMoney, type RoleLookup } from '../../http/auth.js';
import { addSchemaOnce, errorAnswer } from '../../http/schemas.js';
import { routesPlugin } from '../../http/types.js';
import { MONEY_NOTE } from '../program/schemas.js';
import { Payout, PayoutComplete, PayoutCreate, PayoutFileQuery, PayoutListQuery, PayoutParams, PayoutSummary } from './schemas.js';
import { cancelPayout, completePayout, createPayout, getPayout, listPayouts, payoutFile, type PayoutRecord } from './service.js';

export type PayoutRouteDeps = ResourceDeps & { roleOf: RoleLookup; sealer: Sealer };

const tags = ['Partner program'];

/** Sums as JSON numbers, exactly: a bigint past 2^53 is written as its digits. */
const exact = (n: bigint): bigint | number => (n <= BigInt(Number.MAX_SAFE_INTEGER) && n >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n);

function send(reply: FastifyReply, status: number, p: PayoutRecord) {
  const body = { ...p, total: exact(p.total), items: p.items.map((i) => ({ ...i, amount: exact(i.amount) })) };
  if (hasBigint(body)) return reply.status(status).type('application/json; charset=utf-8').serializer(exactJson).send(body);
  return reply.status(status).send(body);
}

export const payoutRoutes = routesPlugin<PayoutRouteDeps>('payouts', (app, deps) => {
  addSchemaOnce(app, Payout);
  addSchemaOnce(app, PayoutSummary);
  const ctx = (req: Parameters<typeof serviceContext>[1]) => serviceContext(deps, req);
  const money = { config: { scope: 'programsWrite' as const }, preHandler: ownerForMoney(deps.roleOf) };
  const one = Type.Ref('Payout');
  const notPending = errorAnswer('payout_not_pending: the payout is completed or cancelled');

  app.post(
    '/api/payouts',
    {
      ...money,
      schema: {
        operationId: 'createPayout',
        tags,
        summary: 'Create a payout',
        description:
          "Extension. Gathers every payable commission in the currency of approved partners with payout details whose payable total reaches the program's minimum for it " +
          '(none set: any positive total), claimed at once so no commission is in two payouts. Partners whose details changed in the last 7 days are left out unless named. ' +
          `One pending payout per currency: 409 \`payout_pending\`. ${MONEY_NOTE}`,
        body: PayoutCreate,
        response: { 201: one, 409: errorAnswer('payout_pending or program_required') },
      },
    },
    async (req, reply) => send(reply, 201, await createPayout({ ctx: ctx(req), input: req.body })),
  );

  app.get(
    '/api/payouts',
    {
      config: { scope: 'programsRead' },
      schema: {
        operationId: 'listPayouts',
        tags,
        summary: 'Payouts',
        description: 'Extension. Without their items.',
        querystring: PayoutListQuery,
        response: { 200: Type.Array(Type.Ref('PayoutSummary')) },
      },
    },
    async (req) =>
      (await listPayouts({ ctx: ctx(req), input: req.query as never })).map((p) => ({
        ...p,
        total: Number(p.total) <= Number.MAX_SAFE_INTEGER ? Number(p.total) : p.total,
      })),
  );

  app.get(
    '/api/payouts/:id',
    {
      config: { scope: 'programsRead' },
      schema: {
        operationId: 'getPayout',
        tags,
        summary: 'A payout',
        description: 'Extension. With its items; destinations masked.',
        params: PayoutParams,
        response: { 200: one },
      },
    },
    async (req, reply) => send(reply, 200, await getPayout({ ctx: ctx(req), input: req.params })),
  );

  app.get(
    '/api/payouts/:id/file',
    {
      ...money,
      schema: {
        operationId: 'getPayoutFile',
        tags,
        summary: "The payout's file for the payment provider",
        description: `Extension. CSV, streamed. The items of the format's method (csv: all), in parts of the provider's rows per file; the answer's Linktrail-Parts header says how many. ${MONEY_NOTE}`,
        params: PayoutParams,
        querystring: PayoutFileQuery,
        response: { 200: { description: 'CSV', content: { 'text/csv': { schema: Type.String() } } } },
      },
    },
    async (req, reply) => {
      const file = await payoutFile({ ctx: ctx(req), sealer: deps.sealer, input: { id: req.params.id, format: req.query.format, part: req.query.part ?? 1 } });
      return reply
        .type(file.contentType)
        .header('content-disposition', `attachment; filename="${file.filename}"`)
        .header('linktrail-parts', String(file.parts))
        .header('cache-control', 'no-store')
        .send(file.stream as never);
    },
  );

  app.post(
    '/api/payouts/:id/complete',
    {
      ...money,
      schema: {
        operationId: 'completePayout',
        tags,
        summary: 'Mark a payout paid',
        description: `Extension. Its commissions paid as listed (changes made meanwhile become negative commissions, payable at once); the failed partners' go back to payable. ${MONEY_NOTE}`,
        params: PayoutParams,
        body: PayoutComplete,
        response: { 200: one, 409: notPending },
      },
    },
    async (req, reply) => send(reply, 200, await completePayout({ ctx: ctx(req), input: { id: req.params.id, ...req.body } })),
  );

  app.post(
    '/api/payouts/:id/cancel',
    {
      ...money,
      schema: {
        operationId: 'cancelPayout',
        tags,
        summary: 'Cancel a payout',
        description: `Extension. Its commissions payable again, with the changes made meanwhile applied. ${MONEY_NOTE}`,
        params: PayoutParams,
        response: { 200: one, 409: notPending },
      },
    },
    async (req, reply) => send(reply, 200, await cancelPayout({ ctx: ctx(req), input: req.params })),
  );
});
