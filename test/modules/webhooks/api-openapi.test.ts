/**
 * The OpenAPI document declares the webhooks API (operations.md §11): its routes with their
 * scopes, and the top-level `webhooks` object, one POST per event type whose `data` refers to
 * the record the API shows (Link, Click, Event), all valid OpenAPI 3.1 with resolving refs.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../../src/modules/webhooks/event-types.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';

interface Doc {
  paths: Record<string, Record<string, { description?: string; responses?: Record<string, unknown> }>>;
  webhooks: Record<
    string,
    {
      post: {
        parameters: { name: string; in: string }[];
        requestBody: { content: { 'application/json': { schema: { properties: Record<string, { $ref?: string; enum?: string[] }> } } } };
      };
    }
  >;
  components: { schemas: Record<string, unknown> };
}

let t: TestApp;
let doc: Doc;

beforeAll(async () => {
  t = await startTestApp();
  doc = (await t.inject({ method: 'GET', url: '/api/openapi.json' })).json<Doc>();
});
afterAll(() => t?.close());

describe('the OpenAPI document', () => {
  it('declares every webhook event type, with the Standard Webhooks headers and the data as the API shows it', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES, 'webhook.test'].sort());
    const dataOf = (type: string) => doc.webhooks[type]!.post.requestBody.content['application/json'].schema.properties;
    for (const type of ['link.created', 'link.updated', 'link.deleted']) expect(dataOf(type).data!.$ref).toBe('#/components/schemas/Link');
    expect(dataOf('link.clicked').data!.$ref).toBe('#/components/schemas/Click');
    expect(dataOf('lead.created').data!.$ref).toBe('#/components/schemas/Event');
    expect(dataOf('sale.created').data!.$ref).toBe('#/components/schemas/Event');
    expect(dataOf('webhook.test').data).toMatchObject({ properties: { webhookId: { format: 'uuid' } } });
    for (const [type, item] of Object.entries(doc.webhooks)) {
      expect(dataOf(type).type!.enum).toEqual([type]);
      expect(item.post.parameters.map((p) => `${p.in}:${p.name}`)).toEqual(['header:webhook-id', 'header:webhook-timestamp', 'header:webhook-signature']);
    }
    for (const name of ['Link', 'Click', 'Event', 'Webhook', 'CreatedWebhook', 'WebhookDelivery']) expect(doc.components.schemas[name], name).toBeDefined();
  });

  it('lists every webhooks route with its scope and the 202 answers', () => {
    const routes: [string, string, string][] = [
      ['/api/webhooks', 'get', 'webhooksRead'],
      ['/api/webhooks', 'post', 'webhooksWrite'],
      ['/api/webhooks/{id}', 'get', 'webhooksRead'],
      ['/api/webhooks/{id}', 'patch', 'webhooksWrite'],
      ['/api/webhooks/{id}', 'delete', 'webhooksWrite'],
      ['/api/webhooks/{id}/secret', 'post', 'webhooksWrite'],
      ['/api/webhooks/{id}/test', 'post', 'webhooksWrite'],
      ['/api/webhooks/{id}/recover', 'post', 'webhooksWrite'],
      ['/api/webhooks/{id}/deliveries', 'get', 'webhooksRead'],
      ['/api/webhooks/{id}/deliveries/{deliveryId}/retry', 'post', 'webhooksWrite'],
    ];
    for (const [path, method, scope] of routes) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op!.description).toContain(`\`${scope}\``);
      expect(Object.keys(op!.responses ?? {})).toEqual(expect.arrayContaining(['400', '401', '403']));
    }
    for (const path of ['/api/webhooks/{id}/test', '/api/webhooks/{id}/recover', '/api/webhooks/{id}/deliveries/{deliveryId}/retry'])
      expect(doc.paths[path]!.post!.responses!['202']).toBeDefined();
  });

  it('stays a valid OpenAPI 3.1 document whose references all resolve', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(() => validator.resolveRefs()).not.toThrow();
  });
});
