/**
 * Bulk writes split into requests the workspace accepts, only when the caller asks
 * (`{ chunk: true }`). Each request is atomic on the server, so each chunk is reported on its
 * own, by the indices of the caller's array: `items.slice(start, end)`.
 */
import { LinktrailError } from './error.js';

/** The API's ceiling of items per request; a plan may lower it (learnt from `too_many_items`). */
export const API_MAX_ITEMS = 10_000;

export interface ChunkOption {
  /**
   * Split the items into several requests: `true` for the workspace's maximum (learnt from
   * the server's `too_many_items` answer, then remembered by this client), or a number of items
   * per request. Without it the items go in one request, whatever their number.
   */
  chunk?: boolean | number;
}

export type ChunkOutcome<R> =
  /** Stored: `result` is the server's answer for `items.slice(start, end)`. */
  | { start: number; end: number; status: 'stored'; result: R }
  /**
   * Refused, nothing of it stored. `itemIndex` is the index in the caller's array of the item
   * the error names (its `field` such as `[3].url` counts from the chunk's start).
   */
  | { start: number; end: number; status: 'failed'; error: LinktrailError; itemIndex?: number }
  /** Not sent: an earlier chunk failed for a reason every chunk would share (credentials, scopes, rate, server). */
  | { start: number; end: number; status: 'skipped'; error: LinktrailError };

export interface ChunkedWrite<R> {
  /** Every chunk stored. */
  ok: boolean;
  /** One per request, in order, covering the caller's array from 0 to its length. */
  chunks: ChunkOutcome<R>[];
}

/** What a client has learnt of its workspace's bulk maximum. */
export interface BulkMemory {
  maxItems?: number;
}

const itemOf = (field: string | undefined): number | undefined => {
  const m = field === undefined ? null : /^\[(\d+)\]/.exec(field);
  return m ? Number(m[1]) : undefined;
};

/** The size to try after a `too_many_items` refusal, or undefined when there is none smaller. */
function smallerSize(error: LinktrailError, tried: number): number | undefined {
  // A server that does not send `limit` is approached by halving.
  const next = error.limit ?? Math.floor(tried / 2);
  return next >= 1 && next < tried ? next : undefined;
}

export async function writeInChunks<I, R>(
  items: readonly I[],
  option: true | number,
  memory: BulkMemory,
  send: (part: I[]) => Promise<R>,
): Promise<ChunkedWrite<R>> {
  const fixed = typeof option === 'number';
  if (fixed && !(Number.isInteger(option) && option >= 1)) throw new TypeError('Linktrail: chunk must be true or a whole number of items, at least 1');
  let size = fixed ? option : (memory.maxItems ?? API_MAX_ITEMS);
  const chunks: ChunkOutcome<R>[] = [];
  let stopped: LinktrailError | undefined;
  for (let start = 0; start < items.length;) {
    const end = Math.min(items.length, start + size);
    if (stopped) {
      chunks.push({ start, end, status: 'skipped', error: stopped });
      start = end;
      continue;
    }
    try {
      chunks.push({ start, end, status: 'stored', result: await send(items.slice(start, end)) });
    } catch (error) {
      if (!(error instanceof LinktrailError)) throw error;
      const smaller = !fixed && error.code === 'too_many_items' ? smallerSize(error, end - start) : undefined;
      if (smaller !== undefined) {
        size = memory.maxItems = smaller;
        continue;
      }
      const index = itemOf(error.field);
      chunks.push({ start, end, status: 'failed', error, ...(index === undefined ? {} : { itemIndex: start + index }) });
      // A 400 is about this chunk's items; anything else would fail the next chunks too.
      if (error.status !== 400) stopped = error;
    }
    start = end;
  }
  return { ok: chunks.every((c) => c.status === 'stored'), chunks };
}
