/**
 * The api.md resources: links, collections, tags, partners and partner groups (list, create,
 * upsert, delete), customers (list, update, delete), analytics and events (list), tracking
 * (lead, sale, refund).
 */
import { writeInChunks, type BulkMemory, type ChunkedWrite, type ChunkOption } from './chunks.js';
import { List, type Paging } from './list.js';
import type { Item, Path, Query, RequestBody, Success } from './types.js';
import type { QueryValue, Transport } from './transport.js';

/** The query of a list without its paging (given as `skip` and `pageSize`) and format (always JSON). */
export type ListParams<P extends Path> = Omit<Query<P>, 'take' | 'skip' | 'format'> & Paging;

export function listOf<P extends Path>(transport: Transport, path: P, params: ListParams<P> = {} as ListParams<P>): List<Item<Success<P, 'get'>>> {
  const { skip, pageSize, ...query } = params as Paging & Record<string, QueryValue>;
  return new List((at, take) => transport.send({ method: 'GET', path, query: { ...query, skip: at, take } }), { skip, pageSize });
}

type WriteMethod = 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A bulk write: as given in one request, or split with `{ chunk }`. */
export interface BulkWrite<I, R> {
  (items: I[], options?: { chunk?: false }): Promise<R>;
  (items: I[], options: { chunk: true | number }): Promise<ChunkedWrite<R>>;
  (items: I[], options?: ChunkOption): Promise<R | ChunkedWrite<R>>;
}

export function bulkWrite<I, R>(transport: Transport, memory: BulkMemory, method: WriteMethod, path: string): BulkWrite<I, R> {
  const send = (part: I[]) => transport.send<R>({ method, path, body: part });
  return ((items: I[], options: ChunkOption = {}) =>
    options.chunk === undefined || options.chunk === false ? send(items) : writeInChunks(items, options.chunk, memory, send)) as BulkWrite<I, R>;
}

type BulkPath = '/api/links' | '/api/collections' | '/api/tags' | '/api/partners' | '/api/partner-groups';

/** Links, collections, tags, partners or partner groups. */
export class BulkResource<P extends BulkPath> {
  /** Creates every item, atomically (201); the records in input order. */
  readonly create: BulkWrite<Item<RequestBody<P, 'post'>>, Success<P, 'post'>>;
  /** Updates items with `id`, inserts those without; the records in input order. */
  readonly upsert: BulkWrite<Item<RequestBody<P, 'put'>>, Success<P, 'put'>>;
  /** Deletes by id; `{ deletedIds }`. */
  readonly delete: BulkWrite<string, Success<P, 'delete'>>;

  constructor(
    private readonly transport: Transport,
    private readonly path: P,
    memory: BulkMemory,
  ) {
    this.create = bulkWrite(transport, memory, 'POST', path);
    this.upsert = bulkWrite(transport, memory, 'PUT', path);
    this.delete = bulkWrite(transport, memory, 'DELETE', path);
  }

  /** Every record matching `params`, read page by page as it is iterated. */
  list(params?: ListParams<P>): List<Item<Success<P, 'get'>>> {
    return listOf(this.transport, this.path, params);
  }
}

export class Customers {
  /** Updates existing customers by `id` or `externalId` (never creates). */
  readonly update: BulkWrite<Item<RequestBody<'/api/customers', 'put'>>, Success<'/api/customers', 'put'>>;
  /** Deletes customers by id; `{ deletedIds }`. */
  readonly delete: BulkWrite<string, Success<'/api/customers', 'delete'>>;

  constructor(
    private readonly transport: Transport,
    memory: BulkMemory,
  ) {
    this.update = bulkWrite(transport, memory, 'PUT', '/api/customers');
    this.delete = bulkWrite(transport, memory, 'DELETE', '/api/customers');
  }

  list(params?: ListParams<'/api/customers'>): List<Item<Success<'/api/customers', 'get'>>> {
    return listOf(this.transport, '/api/customers', params);
  }
}

export class Analytics {
  constructor(private readonly transport: Transport) {}

  /** Clicks, or with `groupBy` rows of totals, every page of them. */
  list(params?: ListParams<'/api/analytics'>): List<Item<Success<'/api/analytics', 'get'>>> {
    return listOf(this.transport, '/api/analytics', params);
  }
}

export class Events {
  constructor(private readonly transport: Transport) {}

  /** The leads and sales recorded, every page of them. */
  list(params?: ListParams<'/api/events'>): List<Item<Success<'/api/events', 'get'>>> {
    return listOf(this.transport, '/api/events', params);
  }
}

/** Conversion tracking. Never retried but on a 429: every accepted POST records an event. */
export class Track {
  constructor(private readonly transport: Transport) {}

  lead(body: RequestBody<'/api/track/lead', 'post'>): Promise<Success<'/api/track/lead', 'post'>> {
    return this.transport.send({ method: 'POST', path: '/api/track/lead', body });
  }

  sale(body: RequestBody<'/api/track/sale', 'post'>): Promise<Success<'/api/track/sale', 'post'>> {
    return this.transport.send({ method: 'POST', path: '/api/track/sale', body });
  }

  /**
   * A refund of a sale not from Stripe: `refundedAmount` is the refunded total so far (cumulative),
   * by `saleId` or `invoiceId`. The sale's partner commission follows. Answers the sale.
   */
  refund(body: RequestBody<'/api/track/refund', 'post'>): Promise<Success<'/api/track/refund', 'post'>> {
    return this.transport.send({ method: 'POST', path: '/api/track/refund', body });
  }
}
