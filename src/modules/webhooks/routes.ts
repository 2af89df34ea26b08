import { Type } from '@sinclair/typebox';
import { serviceContext, type ResourceDeps } from '../../core/context.js';
import { addSchemaOnce, DeletedIds } from '../../http/schemas.js';
import { routesPlugin } from '../../http/types.js';
import * as s from './schemas.js';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhookDeliveries,
  listWebhooks,
  recoverWebhook,
  retryWebhookDelivery,
  rollWebhookSecret,
  sendTestEvent,
  updateWebhook,
  webhookBacklog,
  type WebhookDeps,
} from './service.js';

const tags = ['Webhooks'];
const read = { scope: 'webhooksRead' } as const;
const write = { scope: 'webhooksWrite' } as const;

/** Webhook endpoints, their secrets and their delivery log (operations.md §11). */
export const webhookRoutes = routesPlugin<ResourceDeps & WebhookDeps>('webhooks', (app, deps) => {
  addSchemaOnce(app, s.Webhook);
  addSchemaOnce(app, s.CreatedWebhook);
  addSchemaOnce(app, s.WebhookDelivery);
  addSchemaOnce(app, s.WebhookBacklog);
  const ctx = (req: Parameters<typeof serviceContext>[1]) => serviceContext(deps, req);

  app.get(
    '/api/webhooks',
    {
      config: read,
      schema: {
        operationId: 'listWebhooks',
        tags,
        summary: 'Webhook endpoints',
        description: 'The endpoints of the workspace, newest first, without their secrets.',
        querystring: s.WebhookListQuery,
        response: { 200: Type.Array(Type.Ref('Webhook')) },
      },
    },
    async (req) => listWebhooks({ ctx: ctx(req), input: req.query as never }),
  );

  app.get(
    '/api/webhooks/backlog',
    {
      config: read,
      schema: {
        operationId: 'getWebhookBacklog',
        tags,
        summary: 'Deliveries still to send',
        description:
          'For every endpoint of the workspace, newest first: its pending deliveries, how many of them are due now, and since when the oldest due one waits (how far behind delivery is).',
        response: { 200: Type.Array(Type.Ref('WebhookBacklog')) },
      },
    },
    async (req) => webhookBacklog({ ctx: ctx(req) }),
  );

  app.post(
    '/api/webhooks',
    {
      config: write,
      schema: {
        operationId: 'createWebhook',
        tags,
        summary: 'Register a webhook endpoint',
        description:
          'Events of the chosen types are POSTed to `url`, signed as Standard Webhooks describes (`webhook-id`, `webhook-timestamp`, `webhook-signature`). The `secret` is shown only in this answer. Subscribing to a type also needs the read scope of its data (403 with `missingScopes`). At most 20 endpoints per workspace (400 `webhook_limit`).',
        body: s.WebhookCreate,
        response: { 201: Type.Ref('CreatedWebhook') },
      },
    },
    async (req, reply) => {
      const created = await createWebhook({ ctx: ctx(req), deps, input: { ...req.body, actor: req.principal!.actor, scopes: req.principal!.scopes } });
      return reply.status(201).send(created);
    },
  );

  app.get(
    '/api/webhooks/:id',
    {
      config: read,
      schema: { operationId: 'getWebhook', tags, summary: 'A webhook endpoint', params: s.WebhookParam, response: { 200: Type.Ref('Webhook') } },
    },
    async (req) => getWebhook({ ctx: ctx(req), input: { id: req.params.id } }),
  );

  app.patch(
    '/api/webhooks/:id',
    {
      config: write,
      schema: {
        operationId: 'updateWebhook',
        tags,
        summary: 'Change a webhook endpoint',
        description:
          'At least one field. Adding event types needs their read scopes as on creation; a new `url` needs the read scopes of every type the endpoint subscribes to (old and new) and of its deliveries still waiting (403 with `missingScopes`). `disabled: true` pauses it; `disabled: false` enables it again and forgets its failing state (not for an endpoint whose OAuth app lost its grant).',
        params: s.WebhookParam,
        body: s.WebhookUpdate,
        response: { 200: Type.Ref('Webhook') },
      },
    },
    async (req) => updateWebhook({ ctx: ctx(req), deps, input: { ...req.body, id: req.params.id, scopes: req.principal!.scopes } }),
  );

  app.delete(
    '/api/webhooks/:id',
    {
      config: write,
      schema: {
        operationId: 'deleteWebhook',
        tags,
        summary: 'Delete a webhook endpoint',
        description: 'Nothing more is sent to it; its pending deliveries end.',
        params: s.WebhookParam,
        response: { 200: DeletedIds },
      },
    },
    async (req) => {
      await deleteWebhook({ ctx: ctx(req), input: { id: req.params.id } });
      return { deletedIds: [req.params.id] };
    },
  );

  app.post(
    '/api/webhooks/:id/secret',
    {
      config: write,
      schema: {
        operationId: 'rotateWebhookSecret',
        tags,
        summary: 'Roll the signing secret',
        description:
          'A new secret, shown only in this answer. The old one keeps signing beside it (a second `v1,` signature) until `previousSecretExpiresAt`, 24 hours from now, so the receiver can switch without losing an event.',
        params: s.WebhookParam,
        response: { 200: s.NewWebhookSecret },
      },
    },
    async (req) => rollWebhookSecret({ ctx: ctx(req), deps, input: { id: req.params.id } }),
  );

  app.post(
    '/api/webhooks/:id/test',
    {
      config: write,
      schema: {
        operationId: 'sendWebhookTest',
        tags,
        summary: 'Send a test event',
        description:
          'Queues a `webhook.test` event, `data: { webhookId }`, to this endpoint only. Needs the read scopes of every type the endpoint subscribes to, as creating it does (403 with `missingScopes`). A disabled endpoint is a 400.',
        params: s.WebhookParam,
        response: { 202: s.TestSent },
      },
    },
    async (req, reply) => reply.status(202).send(await sendTestEvent({ ctx: ctx(req), input: { id: req.params.id, scopes: req.principal!.scopes } })),
  );

  app.post(
    '/api/webhooks/:id/recover',
    {
      config: write,
      schema: {
        operationId: 'recoverWebhook',
        tags,
        summary: 'Send failed deliveries again',
        description:
          'Every failed delivery of this endpoint created since `since` (at most 30 days ago) goes back to pending, due now. Needs the read scopes of every type the endpoint subscribes to and of the deliveries sent again, as creating it does (403 with `missingScopes`).',
        params: s.WebhookParam,
        body: s.RecoverBody,
        response: { 202: s.Recovered },
      },
    },
    async (req, reply) =>
      reply.status(202).send(await recoverWebhook({ ctx: ctx(req), input: { id: req.params.id, since: req.body.since, scopes: req.principal!.scopes } })),
  );

  app.get(
    '/api/webhooks/:id/deliveries',
    {
      config: read,
      schema: {
        operationId: 'listWebhookDeliveries',
        tags,
        summary: 'Delivery log',
        description:
          'The deliveries of this endpoint, newest first, each with the outcome of its latest attempt; `status` keeps those in one state. Kept 30 days.',
        params: s.WebhookParam,
        querystring: s.DeliveryListQuery,
        response: { 200: Type.Array(Type.Ref('WebhookDelivery')) },
      },
    },
    async (req) => listWebhookDeliveries({ ctx: ctx(req), input: { ...(req.query as never as object), webhookId: req.params.id } as never }),
  );

  app.post(
    '/api/webhooks/:id/deliveries/:deliveryId/retry',
    {
      config: write,
      schema: {
        operationId: 'retryWebhookDelivery',
        tags,
        summary: 'Retry a delivery',
        description:
          "The delivery goes back to pending, due now. Needs the read scopes of every type the endpoint subscribes to and of the delivery's own type, as creating it does (403 with `missingScopes`).",
        params: s.DeliveryParam,
        response: { 202: Type.Ref('WebhookDelivery') },
      },
    },
    async (req, reply) =>
      reply
        .status(202)
        .send(await retryWebhookDelivery({ ctx: ctx(req), input: { id: req.params.id, deliveryId: req.params.deliveryId, scopes: req.principal!.scopes } })),
  );
});
