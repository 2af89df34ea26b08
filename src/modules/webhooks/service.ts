import { randomBytes } from 'node:crypto';
import type { BaseCtx, Ctx } from '../../core/context.js';
import { AppError, invalid, notFound } from '../../core/errors.js';
import type { ListParams } from '../../core/list-params.js';
import type { Scope } from '../../core/scopes.js';
import type { Sealer } from '../../core/sealed.js';
import { audit, auditedChange } from '../../core/audit.js';
import { withTransaction } from '../../core/transaction.js';
import type { Conn } from '../../db/connect.js';
import { newId } from '../../db/ids.js';
import type { Actor } from '../../http/auth.js';
import { checkWebhookUrl, type DestinationRules } from './destination.js';
import { EVENT_TYPES, eventBody, SCOPES_TO_SUBSCRIBE } from './event-types.js';
import { recordEvents } from './outbox.js';
// How other modules queue their events: the outbox row is written in their own transaction.
export { eventBody, eventTypesWanted, recordEvents, type EventType, type OutboxEvent } from './outbox.js';
import { DESCRIPTION_MAX_LENGTH, MAX_ENDPOINTS } from './schemas.js';
import * as store from './store.js';

export type { DestinationRules } from './destination.js';

type Subscribable = (typeof EVENT_TYPES)[number];

/** What the webhooks routes give the service besides the context. */
export interface WebhookDeps {
  sealer: Sealer;
  destinations: DestinationRules;
}

export type Webhook = store.EndpointRow;
export type WebhookDelivery = store.DeliveryRow;

/** The old secret keeps signing beside a rolled one this long (operations.md §11). */
export const PREVIOUS_SECRET_MS = 24 * 3600_000;
/** How far back a recover may reach: deliveries are kept 30 days. */
export const RECOVER_MAX_DAYS = 30;

/** `whsec_` + base64 of 32 random bytes (Standard Webhooks: the HMAC key is the decoded bytes). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** Who registers an endpoint, as answers show it, and the grant whose end disables it (apps only). */
export function creatorOf(actor: Actor): { createdBy: store.CreatedByRow; oauthGrantId: string | null } {
  switch (actor.type) {
    case 'key':
      return { createdBy: { type: 'key', id: actor.keyId }, oauthGrantId: null };
    case 'user':
      return { createdBy: { type: 'user', id: actor.userId }, oauthGrantId: null };
    case 'app':
      return { createdBy: { type: 'app', id: actor.appId, userId: actor.userId }, oauthGrantId: actor.grantId };
  }
}

/** A non-empty list of distinct subscribable types; 400 naming the bad item. */
function checkEvents(values: string[]): Subscribable[] {
  if (values.length === 0) throw invalid('events', 'min_items', { limit: 1 });
  const seen = new Map<string, number>();
  values.forEach((v, i) => {
    if (v === 'webhook.test') throw invalid(`events[${i}]`, 'not_subscribable', { value: v });
    if (!(EVENT_TYPES as readonly string[]).includes(v)) throw invalid(`events[${i}]`, 'enum', { values: EVENT_TYPES.join(', ') });
    const other = seen.get(v);
    if (other !== undefined) throw invalid(`events[${i}]`, 'duplicate_in_request', { other });
    seen.set(v, i);
  });
  return values as Subscribable[];
}

/** Subscribing needs the read scope of the data too: 403 naming every one missing (webhook.test needs none). */
function checkSubscribeScopes(types: readonly string[], held: ReadonlySet<Scope>): void {
  const needed = types.flatMap((t) => SCOPES_TO_SUBSCRIBE[t as Subscribable] ?? []);
  const missing = [...new Set(needed)].filter((s) => !held.has(s));
  if (missing.length > 0) throw new AppError('missing_scopes', { scopes: missing.join(', ') }, { missingScopes: missing });
}

/**
 * Sending an endpoint's data somewhere — to a new url, or again by retry, recover or test —
 * needs what subscribing does (§11 "Seeing the data"): the read scopes of every type it
 * subscribes to, and of the deliveries concerned (types dropped since keep their deliveries,
 * so narrowing the types first opens nothing).
 */
async function checkSendScopes(conn: Conn, ctx: Ctx, endpoint: Webhook, held: ReadonlySet<Scope>, concerned?: store.DeliveriesConcerned): Promise<void> {
  const sent = concerned ? await store.eventTypesOfDeliveries(conn, ctx.workspace.id, endpoint.id, concerned) : [];
  checkSubscribeScopes([...endpoint.events, ...sent], held);
}

function checkDescription(value: string | null | undefined): string | null | undefined {
  if (typeof value === 'string' && value.length > DESCRIPTION_MAX_LENGTH) throw invalid('description', 'max_length', { limit: DESCRIPTION_MAX_LENGTH });
  return value;
}

async function requireEndpoint(ctx: Ctx, id: string): Promise<Webhook> {
  const found = await store.findEndpoint(ctx.db, ctx.workspace.id, id);
  if (!found) throw notFound('webhook', id);
  return found;
}

export function listWebhooks({ ctx, input }: { ctx: Ctx; input: ListParams }): Promise<Webhook[]> {
  return store.listEndpoints(ctx.db, ctx.workspace.id, input);
}

export function getWebhook({ ctx, input }: { ctx: Ctx; input: { id: string } }): Promise<Webhook> {
  return requireEndpoint(ctx, input.id);
}

/** Registers an endpoint; its secret is in this answer only. At most MAX_ENDPOINTS per workspace. */
export async function createWebhook({
  ctx,
  deps,
  input,
}: {
  ctx: Ctx;
  deps: WebhookDeps;
  input: { url: string; events: string[]; description?: string | null; actor: Actor; scopes: ReadonlySet<Scope> };
}): Promise<Webhook & { secret: string }> {
  const events = checkEvents(input.events);
  checkSubscribeScopes(events, input.scopes);
  const description = checkDescription(input.description) ?? null;
  const url = await checkWebhookUrl(input.url, deps.destinations);
  const secret = newWebhookSecret();
  const { createdBy, oauthGrantId } = creatorOf(input.actor);
  const created = await withTransaction(ctx.db, async (tx) => {
    await store.lockWorkspaceEndpoints(tx, ctx.workspace.id);
    if ((await store.countEndpoints(tx, ctx.workspace.id)) >= MAX_ENDPOINTS) throw new AppError('webhook_limit', { limit: MAX_ENDPOINTS });
    const inserted = await store.insertEndpoint(tx, {
      id: newId(),
      workspaceId: ctx.workspace.id,
      url,
      events,
      description,
      createdBy,
      oauthGrantId,
      secretSealed: deps.sealer.seal('webhook-secret', secret),
      now: ctx.now,
    });
    await audit(ctx, tx, { ids: [inserted.id] });
    return inserted;
  });
  return { ...created, secret };
}

/**
 * A PATCH: adding types needs their read scopes; a new url needs those of every type, old and
 * new, and of the deliveries still waiting; enabling again forgets the failing state.
 */
export async function updateWebhook({
  ctx,
  deps,
  input,
}: {
  ctx: Ctx;
  deps: WebhookDeps;
  input: { id: string; url?: string; events?: string[]; description?: string | null; disabled?: boolean; scopes: ReadonlySet<Scope> };
}): Promise<Webhook> {
  const { id, scopes } = input;
  if (input.url === undefined && input.events === undefined && input.description === undefined && input.disabled === undefined) {
    throw invalid('body', 'nothing_to_update');
  }
  const events = input.events === undefined ? undefined : checkEvents(input.events);
  const description = checkDescription(input.description);
  const current = await requireEndpoint(ctx, id);
  const added = events?.filter((t) => !current.events.includes(t)) ?? [];
  if (input.url !== undefined && input.url !== current.url) {
    await checkSendScopes(ctx.db, ctx, { ...current, events: [...current.events, ...added] }, scopes, { waiting: true });
  } else checkSubscribeScopes(added, scopes);
  if (input.disabled === false && current.disabledReason === 'grant_ended') throw invalid('disabled', 'grant_ended');
  const url = input.url === undefined ? undefined : await checkWebhookUrl(input.url, deps.destinations);
  const updated = await auditedChange(
    ctx,
    (tx) => store.updateEndpoint(tx, ctx.workspace.id, id, { url, events, description, disabled: input.disabled }, ctx.now),
    () => ({ ids: [id] }),
  );
  if (!updated) throw notFound('webhook', id);
  return updated;
}

export async function deleteWebhook({ ctx, input }: { ctx: Ctx; input: { id: string } }): Promise<void> {
  if (
    !(await auditedChange(
      ctx,
      (tx) => store.deleteEndpoint(tx, ctx.workspace.id, input.id, ctx.now),
      () => ({ ids: [input.id] }),
    ))
  )
    throw notFound('webhook', input.id);
}

/** A new secret, shown in this answer only; the old one keeps signing beside it for 24 h. */
export async function rollWebhookSecret({
  ctx,
  deps,
  input,
}: {
  ctx: Ctx;
  deps: Pick<WebhookDeps, 'sealer'>;
  input: { id: string };
}): Promise<{ secret: string; previousSecretExpiresAt: Date }> {
  const secret = newWebhookSecret();
  const until = new Date(ctx.now.getTime() + PREVIOUS_SECRET_MS);
  const sealed = deps.sealer.seal('webhook-secret', secret);
  if (
    !(await auditedChange(
      ctx,
      (tx) => store.rollSecret(tx, ctx.workspace.id, input.id, sealed, until, ctx.now),
      () => ({ ids: [input.id] }),
    ))
  )
    throw notFound('webhook', input.id);
  return { secret, previousSecretExpiresAt: until };
}

async function requireEnabled(ctx: Ctx, id: string): Promise<Webhook> {
  const endpoint = await requireEndpoint(ctx, id);
  if (endpoint.disabled) throw new AppError('webhook_disabled');
  return endpoint;
}

/** Queues a webhook.test event, `data: { webhookId }`, to this endpoint only; needs the read scopes of its types. */
export async function sendTestEvent({ ctx, input }: { ctx: Ctx; input: { id: string; scopes: ReadonlySet<Scope> } }): Promise<{ eventId: string }> {
  await checkSendScopes(ctx.db, ctx, await requireEnabled(ctx, input.id), input.scopes);
  const eventId = newId();
  await withTransaction(ctx.db, async (tx) => {
    const queued = await recordEvents({
      ctx: { ...ctx, db: tx },
      input: {
        events: [{ id: eventId, workspaceId: ctx.workspace.id, type: 'webhook.test', body: eventBody('webhook.test', ctx.now, { webhookId: input.id }) }],
        endpointId: input.id,
      },
    });
    // Deleted between the check and the insert.
    if (queued === 0) throw notFound('webhook', input.id);
    await audit(ctx, tx, { ids: [input.id] });
  });
  return { eventId };
}

/** Every failed delivery of the endpoint created since `since` goes back to pending, due now (with the read scopes of what they send). */
export async function recoverWebhook({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { id: string; since: string; scopes: ReadonlySet<Scope> };
}): Promise<{ requeued: number }> {
  const since = new Date(input.since);
  if (Number.isNaN(since.getTime())) throw invalid('since', 'format', { format: 'date-time' });
  if (since.getTime() > ctx.now.getTime()) throw invalid('since', 'not_in_future');
  if (since.getTime() < ctx.now.getTime() - RECOVER_MAX_DAYS * 86_400_000) throw invalid('since', 'within_days', { limit: RECOVER_MAX_DAYS });
  const endpoint = await requireEnabled(ctx, input.id);
  const requeued = await withTransaction(ctx.db, async (tx) => {
    await checkSendScopes(tx, ctx, endpoint, input.scopes, { failedSince: since });
    const count = await store.recoverDeliveries(tx, ctx.workspace.id, input.id, since);
    await audit(ctx, tx, { ids: [input.id] });
    return count;
  });
  return { requeued };
}

export async function listWebhookDeliveries({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: ListParams & { webhookId: string; status?: WebhookDelivery['status'] };
}): Promise<WebhookDelivery[]> {
  await requireEndpoint(ctx, input.webhookId);
  return store.listDeliveries(ctx.db, ctx.workspace.id, input.webhookId, input);
}

/** What each endpoint of the workspace has still to send (pending, due now, since when): how far behind delivery is. */
export function webhookBacklog({ ctx }: { ctx: Ctx }): Promise<store.BacklogRow[]> {
  return store.listBacklog(ctx.db, ctx.workspace.id);
}

/** One delivery back to pending, due now (with the read scopes of what it sends). */
export async function retryWebhookDelivery({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { id: string; deliveryId: string; scopes: ReadonlySet<Scope> };
}): Promise<WebhookDelivery> {
  const endpoint = await requireEnabled(ctx, input.id);
  const delivery = await withTransaction(ctx.db, async (tx) => {
    await checkSendScopes(tx, ctx, endpoint, input.scopes, { deliveryId: input.deliveryId });
    const retried = await store.retryDelivery(tx, ctx.workspace.id, input.id, input.deliveryId);
    if (retried) await audit(ctx, tx, { ids: [input.id, input.deliveryId] });
    return retried;
  });
  if (!delivery) throw notFound('delivery', input.deliveryId);
  return delivery;
}

/**
 * OAuth grants ended (revoked, their app deleted, their user gone): the endpoints those apps
 * registered are disabled at once, in the database, so every instance stops sending. Pass the
 * transaction that ends the grants when there is one.
 */
export function disableWebhooksOfGrants({ ctx, input }: { ctx: BaseCtx; input: { grantIds: string[] } }): Promise<number> {
  return store.disableEndpointsOfGrants(ctx.db, input.grantIds, ctx.now);
}
