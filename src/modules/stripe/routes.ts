import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { baseContext, serviceContext, type ResourceDeps } from '../../core/context.js';
import { ownerBySession as ownerBySessionOf, type RoleLookup } from '../../http/auth.js';
import { DeletedIds, errorAnswer, ListQuery } from '../../http/schemas.js';
import { routesPlugin, type App } from '../../http/types.js';
import { Received, StripeConnect, StripeConnection, StripeEventRecord, WebhookParams } from './schemas.js';
import { connectStripe, createConnection, deleteConnection, getConnection, listStripeEvents, receiveStripeEvent, type ReceiveDeps } from './service.js';

/** Stripe posts events of at most a few KB; anything past 1 MB is refused before it is read (413). */
export const MAX_STRIPE_BODY = 1024 * 1024;

export type StripeRouteDeps = ResourceDeps & ReceiveDeps & { roleOf: RoleLookup };

const OWNER_NOTE =
  'Owner: with a session, only an owner of the workspace (X-Workspace-Id) may call it (403 owner_required for members and viewers). ' +
  'With an API key, human token or OAuth token, reading the connection or its events needs the analytics read scope.';
/** Changing where revenue comes from is an owner's act by session (operations.md §12 "Connect (owner)"). */
const OWNER_SESSION_NOTE =
  'Owner by session only: an owner of the workspace (X-Workspace-Id) signed in to the dashboard (403 owner_required for members and viewers). ' +
  "API keys, human tokens and OAuth tokens are refused with 401 session_required, so a credential that leaks cannot re-point the workspace's revenue.";

export const stripeRoutes = routesPlugin<StripeRouteDeps>('stripe', (app, deps) => {
  app.addSchema(StripeConnection);
  app.addSchema(StripeEventRecord);
  const tags = ['Stripe'];
  const ownerBySession = ownerBySessionOf(deps.roleOf);
  const ctx = (req: FastifyRequest) => serviceContext(deps, req);
  const connection = Type.Ref(StripeConnection);

  app.post(
    '/api/integrations/stripe',
    {
      // Connecting, re-pointing or removing where revenue comes from: an owner's session only.
      config: { scope: 'conversionsWrite', sessionOnly: true },
      preHandler: ownerBySession,
      schema: {
        operationId: 'connectStripe',
        tags,
        summary: 'Connect Stripe, step one: the webhook URL',
        description: `Extension. Makes the workspace's connection (one at a time) and its webhook URL, status pending; add the URL in Stripe for \`events\`, then give its signing secret with PUT. ${OWNER_SESSION_NOTE}`,
        response: { 201: connection },
      },
    },
    async (req, reply) => reply.status(201).send(await createConnection({ ctx: ctx(req), deps })),
  );

  app.put(
    '/api/integrations/stripe',
    {
      // Connecting, re-pointing or removing where revenue comes from: an owner's session only.
      config: { scope: 'conversionsWrite', sessionOnly: true },
      preHandler: ownerBySession,
      schema: {
        operationId: 'updateStripeConnection',
        tags,
        summary: 'Connect Stripe, step two: the signing secret',
        description: `Stores the endpoint's signing secret (sealed) and connects: events are received from now on. Again later: replaces the secret. ${OWNER_SESSION_NOTE}`,
        body: StripeConnect,
        response: { 200: connection, 404: errorAnswer('This workspace has no Stripe connection') },
      },
    },
    async (req) => connectStripe({ ctx: ctx(req), deps, input: req.body }),
  );

  app.get(
    '/api/integrations/stripe',
    {
      config: { scope: 'analyticsRead' },
      preHandler: ownerBySession,
      schema: {
        operationId: 'getStripeConnection',
        tags,
        summary: 'The Stripe connection',
        description: `Without the secret; 404 when there is none. ${OWNER_NOTE}`,
        response: { 200: connection, 404: errorAnswer('This workspace has no Stripe connection') },
      },
    },
    async (req) => getConnection({ ctx: ctx(req), deps }),
  );

  app.delete(
    '/api/integrations/stripe',
    {
      // Connecting, re-pointing or removing where revenue comes from: an owner's session only.
      config: { scope: 'conversionsWrite', sessionOnly: true },
      preHandler: ownerBySession,
      schema: {
        operationId: 'disconnectStripe',
        tags,
        summary: 'Disconnect Stripe',
        description: `The webhook URL answers 404 from now on; a new connection gets a new id. Sales already made stay. ${OWNER_SESSION_NOTE}`,
        response: { 200: DeletedIds, 404: errorAnswer('This workspace has no Stripe connection') },
      },
    },
    async (req) => deleteConnection({ ctx: ctx(req) }),
  );

  app.get(
    '/api/integrations/stripe/events',
    {
      config: { scope: 'analyticsRead' },
      preHandler: ownerBySession,
      schema: {
        operationId: 'listStripeEvents',
        tags,
        summary: 'Stripe events received',
        description: `Every event received with a valid signature (also under earlier connections), newest first, with its outcome and the sale it made. ${OWNER_NOTE}`,
        querystring: ListQuery,
        response: { 200: Type.Array(Type.Ref(StripeEventRecord)) },
      },
    },
    async (req) => listStripeEvents({ ctx: ctx(req), input: req.query as never }),
  );

  void app.register(async (raw) => registerWebhook(raw as App, deps));
});

/**
 * POST /webhooks/stripe/{id}, in its own context: the body is kept as bytes (the signature is
 * over them), not given to the JSON parser every other route uses.
 */
function registerWebhook(app: App, deps: StripeRouteDeps) {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_STRIPE_BODY }, (_req, body, done) => done(null, body));
  const now = baseContext(deps);
  app.post(
    '/webhooks/stripe/:id',
    {
      bodyLimit: MAX_STRIPE_BODY,
      config: { public: true },
      schema: {
        operationId: 'receiveStripeEvent',
        tags: ['Stripe'],
        summary: 'Receive a Stripe event',
        description:
          "Called by Stripe, not by clients: no credential. Events read: checkout.session.completed and checkout.session.async_payment_succeeded (a sale), invoice.paid (a Subscription sale of the customer found by Stripe customer id, else subscription metadata.customerExternalId, else a unique e-mail), charge.refunded (the sale's refunded total), charge.dispute.created (the sale's partner commission held, reason dispute) and charge.dispute.closed (lost: a whole refund; won: the dispute hold released). The `Stripe-Signature` header (t=…,v1=…: HMAC-SHA256 with the signing secret over `t.body`, at most 5 minutes old) is checked over the raw body (at most 1 MB) before it is read. 400 for a missing or wrong signature, a pending connection or a body that is not an event; 404 for an unknown or deleted connection; 200 `{ received: true }` for every event accepted, also one already seen (within 30 days) or of a type that makes no sale.",
        params: WebhookParams,
        response: { 200: Received },
      },
    },
    async (req) => {
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const header = req.headers['stripe-signature'];
      return receiveStripeEvent({
        ctx: now(req),
        deps,
        input: { connectionId: req.params.id, signature: Array.isArray(header) ? header.join(',') : header, body },
      });
    },
  );
}
