/**
 * @linktrail/sdk: the Linktrail API for TypeScript and JavaScript, on any runtime with fetch
 * and WebCrypto (Node 20+, Deno, Bun, browsers), with no dependency.
 */
import type { BulkMemory } from './chunks.js';
import { Commissions, Payouts, ProgramResource } from './program.js';
import { Analytics, BulkResource, Customers, Events, Track } from './resources.js';
import { Transport, type LinktrailOptions } from './transport.js';
import { Webhooks } from './webhooks.js';

export class Linktrail {
  readonly links: BulkResource<'/api/links'>;
  readonly collections: BulkResource<'/api/collections'>;
  readonly tags: BulkResource<'/api/tags'>;
  readonly partners: BulkResource<'/api/partners'>;
  readonly customers: Customers;
  readonly analytics: Analytics;
  readonly events: Events;
  readonly track: Track;
  readonly webhooks: Webhooks;
  readonly program: ProgramResource;
  readonly partnerGroups: BulkResource<'/api/partner-groups'>;
  readonly commissions: Commissions;
  readonly payouts: Payouts;

  constructor(options: LinktrailOptions) {
    const transport = new Transport(options);
    // The workspace's bulk maximum, once a `{ chunk: true }` write has learnt it.
    const memory: BulkMemory = {};
    this.links = new BulkResource(transport, '/api/links', memory);
    this.collections = new BulkResource(transport, '/api/collections', memory);
    this.tags = new BulkResource(transport, '/api/tags', memory);
    this.partners = new BulkResource(transport, '/api/partners', memory);
    this.customers = new Customers(transport, memory);
    this.analytics = new Analytics(transport);
    this.events = new Events(transport);
    this.track = new Track(transport);
    this.webhooks = new Webhooks(transport);
    this.program = new ProgramResource(transport);
    this.partnerGroups = new BulkResource(transport, '/api/partner-groups', memory);
    this.commissions = new Commissions(transport, memory);
    this.payouts = new Payouts(transport);
  }
}

export { LinktrailError } from './error.js';
export { verifyWebhook, type WebhookHeaders } from './verify-webhook.js';
export { List, type Paging } from './list.js';
export type { BulkResource, BulkWrite, Customers, Analytics, Events, Track, ListParams } from './resources.js';
export type { Webhooks } from './webhooks.js';
export type { ProgramResource, Commissions, Payouts, PayoutFile, PayoutFileQuery } from './program.js';
export type { ChunkedWrite, ChunkOutcome, ChunkOption } from './chunks.js';
export type { LinktrailOptions } from './transport.js';
export type * from './types.js';
export type { paths, components, webhooks } from './generated/openapi.js';
