/**
 * The partner program (operations.md §18): the program itself, its commissions and its payouts.
 * Partner groups are an array resource like the others (`BulkResource<'/api/partner-groups'>`).
 *
 * Sums past 2^53: a payout's `total` and its items' `amount` are exact JSON integers, which the
 * SDK reads with JSON.parse like every answer, so one past 9,007,199,254,740,991 arrives as the
 * nearest double. `payouts.file(id, { format: 'csv' })` carries every amount exactly, as text.
 */
import type { BulkMemory } from './chunks.js';
import type { List } from './list.js';
import { bulkWrite, listOf, type BulkWrite, type ListParams } from './resources.js';
import type { Transport } from './transport.js';
import type { Commission, Item, Payout, PayoutSummary, Query, RequestBody, Success } from './types.js';

export class ProgramResource {
  constructor(private readonly transport: Transport) {}

  /** The workspace's program; a `not_found` LinktrailError (404) until the first `put`. */
  get(): Promise<Success<'/api/program', 'get'>> {
    return this.transport.send({ method: 'GET', path: '/api/program' });
  }

  /** Makes the program (the first time) or changes it: settings left out keep their value. */
  put(body: RequestBody<'/api/program', 'put'>): Promise<Success<'/api/program', 'put'>> {
    return this.transport.send({ method: 'PUT', path: '/api/program', body });
  }
}

export class Commissions {
  /** Custom commissions (bonuses, corrections; negative takes money back), payable at once. */
  readonly create: BulkWrite<Item<RequestBody<'/api/commissions', 'post'>>, Success<'/api/commissions', 'post'>>;
  /** Releases held commissions (`status: 'pending'`) or reverses them (`'reversed'`), by id. */
  readonly update: BulkWrite<Item<RequestBody<'/api/commissions', 'patch'>>, Success<'/api/commissions', 'patch'>>;

  constructor(
    private readonly transport: Transport,
    memory: BulkMemory,
  ) {
    this.create = bulkWrite(transport, memory, 'POST', '/api/commissions');
    this.update = bulkWrite(transport, memory, 'PATCH', '/api/commissions');
  }

  /** Every commission matching `params` (partnerId, status, type, currency, payoutId, dates…), page by page. */
  list(params?: ListParams<'/api/commissions'>): List<Commission> {
    return listOf(this.transport, '/api/commissions', params);
  }
}

/** The query of GET /api/payouts/{id}/file: `format` (paypal, wise, csv) and `part` (default 1). */
export type PayoutFileQuery = Query<'/api/payouts/{id}/file'>;

/** One file of a payout, for the payment provider. */
export interface PayoutFile {
  /** The CSV text, amounts written exactly as decimals of the currency. */
  csv: string;
  /** Which file this is, from 1. */
  part: number;
  /** How many files the payout's items fill for this format (the `Linktrail-Parts` header). */
  parts: number;
  /** The name the server gives the file (its Content-Disposition), if any. */
  filename: string | undefined;
}

const one = (id: string) => `/api/payouts/${encodeURIComponent(id)}`;

export class Payouts {
  constructor(private readonly transport: Transport) {}

  /**
   * Gathers what is payable in one currency into a pending payout (201). `total` and each item's
   * `amount` lose precision past 2^53 (see the module's comment). 409 `payout_pending` while one is.
   */
  create(body: RequestBody<'/api/payouts', 'post'>): Promise<Payout> {
    return this.transport.send({ method: 'POST', path: '/api/payouts', body });
  }

  /** Every payout matching `params` (status, currency), without its items, page by page. */
  list(params?: ListParams<'/api/payouts'>): List<PayoutSummary> {
    return listOf(this.transport, '/api/payouts', params);
  }

  /** A payout with its items (destinations masked). */
  get(id: string): Promise<Payout> {
    return this.transport.send({ method: 'GET', path: one(id) });
  }

  /** One file of the payout for its provider: `format` paypal, wise or csv; `part` from 1 (see `parts`). */
  async file(id: string, query: PayoutFileQuery): Promise<PayoutFile> {
    const part = query.part ?? 1;
    const { text, headers } = await this.transport.download({ method: 'GET', path: `${one(id)}/file`, query: { format: query.format, part } }, 'text/csv');
    return { csv: text, part, parts: Number(headers.get('linktrail-parts') ?? 1), filename: filenameOf(headers.get('content-disposition')) };
  }

  /** Marks it paid, with the provider's `reference`; the partners in `failed` go back to payable. */
  complete(id: string, body: RequestBody<'/api/payouts/{id}/complete', 'post'> = {}): Promise<Payout> {
    return this.transport.send({ method: 'POST', path: `${one(id)}/complete`, body });
  }

  /** Cancels it: its commissions payable again. */
  cancel(id: string): Promise<Payout> {
    return this.transport.send({ method: 'POST', path: `${one(id)}/cancel` });
  }
}

function filenameOf(disposition: string | null): string | undefined {
  return disposition === null ? undefined : /filename="([^"]*)"/.exec(disposition)?.[1];
}
