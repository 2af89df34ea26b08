/** The webhook endpoints of the workspace, their secrets and their delivery log (/api/webhooks). */
import { listOf, type ListParams } from './resources.js';
import type { List } from './list.js';
import type { Transport } from './transport.js';
import type { RequestBody, Success, Webhook, WebhookDelivery } from './types.js';

const one = (id: string) => `/api/webhooks/${encodeURIComponent(id)}`;

export class Webhooks {
  constructor(private readonly transport: Transport) {}

  /** Every endpoint, newest first, without their secrets. */
  list(params?: ListParams<'/api/webhooks'>): List<Webhook> {
    return listOf(this.transport, '/api/webhooks', params);
  }

  get(id: string): Promise<Success<'/api/webhooks/{id}', 'get'>> {
    return this.transport.send({ method: 'GET', path: one(id) });
  }

  /** Registers an endpoint; the answer carries its `secret`, shown this once. */
  create(body: RequestBody<'/api/webhooks', 'post'>): Promise<Success<'/api/webhooks', 'post'>> {
    return this.transport.send({ method: 'POST', path: '/api/webhooks', body });
  }

  update(id: string, body: RequestBody<'/api/webhooks/{id}', 'patch'>): Promise<Success<'/api/webhooks/{id}', 'patch'>> {
    return this.transport.send({ method: 'PATCH', path: one(id), body });
  }

  delete(id: string): Promise<Success<'/api/webhooks/{id}', 'delete'>> {
    return this.transport.send({ method: 'DELETE', path: one(id) });
  }

  /** A new signing secret; the old one keeps signing beside it for 24 hours. */
  rotateSecret(id: string): Promise<Success<'/api/webhooks/{id}/secret', 'post'>> {
    return this.transport.send({ method: 'POST', path: `${one(id)}/secret` });
  }

  /** Queues a `webhook.test` event to this endpoint. */
  test(id: string): Promise<Success<'/api/webhooks/{id}/test', 'post'>> {
    return this.transport.send({ method: 'POST', path: `${one(id)}/test` });
  }

  /** The endpoint's deliveries, newest first, every page of them. */
  deliveries(id: string, params?: ListParams<'/api/webhooks/{id}/deliveries'>): List<WebhookDelivery> {
    return listOf(this.transport, `${one(id)}/deliveries` as '/api/webhooks/{id}/deliveries', params);
  }

  /** Sends one delivery again, now. */
  retry(id: string, deliveryId: string): Promise<Success<'/api/webhooks/{id}/deliveries/{deliveryId}/retry', 'post'>> {
    return this.transport.send({ method: 'POST', path: `${one(id)}/deliveries/${encodeURIComponent(deliveryId)}/retry` });
  }

  /** Sends again every failed delivery created since `since`. */
  recover(id: string, body: RequestBody<'/api/webhooks/{id}/recover', 'post'>): Promise<Success<'/api/webhooks/{id}/recover', 'post'>> {
    return this.transport.send({ method: 'POST', path: `${one(id)}/recover`, body });
  }
}
