import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, fieldPath, invalid, tooManyItems } from '../core/errors.js';
import { JsonScanner, type JsonLimits, type JsonProblem } from './json-scan.js';
import { checkedBodies, findUnstorable, MAX_JSON_DEPTH } from './text-safety.js';

/** Bulk maximum when no workspace is known yet (operator routes): the largest plan's. */
export const DEFAULT_MAX_ITEMS = 10_000;
/** The scan gives the event loop back after each slice of this many bytes. */
const SLICE = 256 * 1024;
/** Arrays longer than this (bytes) are parsed item by item, yielding every few milliseconds. */
const PARSE_GROUP = 256 * 1024;
const PARSE_SLICE_MS = 5;

/**
 * Limits no valid request comes near: a link uses a few dozen values (a few hundred with a full
 * geo table), metadata is at most 16 KB, the longest field 4,096 characters.
 */
export function limitsFor(maxItems: number): JsonLimits {
  return {
    maxItems,
    maxValues: 10_000 + maxItems * 300,
    maxItemValues: 10_000,
    maxDepth: MAX_JSON_DEPTH,
    maxString: 100_000,
    maxKeys: 1_000,
  };
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

function refusal(p: JsonProblem): AppError {
  if (p.kind === 'malformed') return new AppError('malformed_json');
  if (p.kind === 'too_many_items') return tooManyItems(p.limit, p.count);
  const at = p.item === undefined ? 'body' : `[${p.item}]`;
  if (p.kind === 'nesting_too_deep') return invalid(at, 'nesting_too_deep');
  if (p.kind === 'string_too_long') return invalid(at, 'string_too_long', { limit: p.limit });
  if (p.kind === 'too_many_keys') return invalid(at, 'too_many_keys', { limit: p.limit });
  return invalid(at, 'too_many_values', { limit: p.limit });
}

function parsed(text: string): unknown {
  try {
    // JSON.parse makes `__proto__` an own, plain property: nothing reaches a prototype, and the
    // key is kept (ignored like any unknown property, or stored as is inside metadata).
    return JSON.parse(text);
  } catch {
    throw new AppError('malformed_json');
  }
}

function checkText(value: unknown, prefix: (string | number)[]): void {
  const problem = findUnstorable(value);
  if (problem) throw invalid(fieldPath([...prefix, ...problem.path]), problem.reason);
}

/**
 * Parses a JSON body within bounds: measured first (json-scan.ts) and refused with a 400 naming
 * the limit; a large top-level array parsed and checked item by item with the loop free
 * between groups, so no body holds the event loop for long or takes more than a few times its
 * size in memory.
 */
export async function parseJsonBody(input: Buffer | string, maxItems: number): Promise<unknown> {
  const bytes = typeof input === 'string' ? Buffer.from(input) : input;
  if (bytes.length === 0) throw new AppError('empty_body');
  const scanner = new JsonScanner(limitsFor(maxItems));
  for (let from = 0; from < bytes.length; from += SLICE) {
    if (from > 0) await yieldToLoop();
    const p = scanner.feed(bytes, from, Math.min(bytes.length, from + SLICE));
    if (p && p.kind !== 'too_many_items') throw refusal(p);
  }
  const problem = scanner.finish();
  if (problem) throw refusal(problem);

  if (!scanner.isArray || bytes.length <= PARSE_GROUP) {
    const body = parsed(bytes.toString('utf8'));
    if (Array.isArray(body)) body.forEach((item, i) => checkText(item, [i]));
    else checkText(body, []);
    if (body && typeof body === 'object') checkedBodies.add(body);
    return body;
  }
  const items: unknown[] = new Array(scanner.itemStarts.length);
  let since = performance.now();
  for (let i = 0; i < items.length; i++) {
    items[i] = parsed(bytes.toString('utf8', scanner.itemStarts[i]!, scanner.itemEnds[i]!));
    checkText(items[i], [i]);
    // Hostile items (thousands of distinct keys) cost far more per byte than real ones: the
    // loop is given back by time, not by size.
    if (performance.now() - since >= PARSE_SLICE_MS) {
      await yieldToLoop();
      since = performance.now();
    }
  }
  checkedBodies.add(items);
  return items;
}

/** JSON bodies of every route go through `parseJsonBody`, bounded by the caller's plan. */
export function registerJsonBody(app: FastifyInstance, bodyLimit: number): void {
  app.removeContentTypeParser('application/json');
  // Bytes, not a string: the scan needs no decoding, and a large array is decoded item by item.
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit }, (request: FastifyRequest, body: string | Buffer) =>
    parseJsonBody(body, request.principal?.workspace.maxBulkItems ?? DEFAULT_MAX_ITEMS),
  );
}
