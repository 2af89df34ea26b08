import type { FastifyRequest } from 'fastify';
import { fieldPath, invalid, invalidQuery } from '../core/errors.js';

/** PostgreSQL text cannot hold U+0000, and lone surrogates are not text at all. */
const storable = (s: string) => !s.includes('\0') && s.isWellFormed();

/** Deeper JSON than this is refused: no API input needs it, and jsonb would choke on thousands. */
export const MAX_JSON_DEPTH = 64;

type Problem = { path: (string | number)[]; reason: 'invalid_characters' | 'nesting_too_deep' };

interface Frame {
  value: unknown;
  key: string | number | undefined;
  parent: Frame | undefined;
  depth: number;
}

const pathOf = (f: Frame | undefined): (string | number)[] => {
  const out: (string | number)[] = [];
  for (let at = f; at && at.key !== undefined; at = at.parent) out.unshift(at.key);
  return out;
};

/** Whether any string or key under `root` cannot be stored, or it nests too deep. Lean: no allocation per value. */
function hasUnstorable(root: unknown): boolean {
  const values: unknown[] = [root];
  const depths: number[] = [0];
  while (values.length) {
    const value = values.pop();
    const depth = depths.pop()!;
    if (typeof value === 'string') {
      if (!storable(value)) return true;
      continue;
    }
    if (!value || typeof value !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) return true;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        values.push(value[i]);
        depths.push(depth + 1);
      }
    } else {
      for (const k in value) {
        if (!Object.hasOwn(value, k)) continue;
        if (!storable(k)) return true;
        values.push((value as Record<string, unknown>)[k]);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/** Finds the first problem and its path; the path is only worked out when there is one. */
export function findUnstorable(root: unknown): Problem | undefined {
  if (!hasUnstorable(root)) return undefined;
  const stack: Frame[] = [{ value: root, key: undefined, parent: undefined, depth: 0 }];
  while (stack.length) {
    const frame = stack.pop()!;
    const { value } = frame;
    if (typeof value === 'string') {
      if (!storable(value)) return { path: pathOf(frame), reason: 'invalid_characters' };
      continue;
    }
    if (!value || typeof value !== 'object') continue;
    if (frame.depth >= MAX_JSON_DEPTH) return { path: pathOf(frame), reason: 'nesting_too_deep' };
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], key: i, parent: frame, depth: frame.depth + 1 });
    } else {
      for (const [k, v] of Object.entries(value)) {
        if (!storable(k)) return { path: [...pathOf(frame), k], reason: 'invalid_characters' };
        stack.push({ value: v, key: k, parent: frame, depth: frame.depth + 1 });
      }
    }
  }
  return undefined;
}

/**
 * A 400 naming the field, before text that cannot be stored (or absurd nesting) reaches the
 * database. API and operator routes only: visitor pages answer with their own forms.
 */
export async function rejectUnstorableText(request: FastifyRequest): Promise<void> {
  const url = request.routeOptions.url ?? '';
  if (!url.startsWith('/api/') && !url.startsWith('/admin')) return;
  // Only documented parameters reach the database; unknown ones are ignored, whatever they hold.
  const declared = (request.routeOptions.schema?.querystring as { properties?: Record<string, unknown> } | undefined)?.properties;
  const query = request.query as Record<string, unknown> | undefined;
  if (declared && query) {
    const used = Object.fromEntries(
      Object.keys(declared)
        .filter((k) => k in query)
        .map((k) => [k, query[k]]),
    );
    const inQuery = findUnstorable(used);
    if (inQuery) throw invalidQuery(fieldPath(inQuery.path), inQuery.reason);
  }
  // JSON bodies were checked while they were parsed (json-body.ts), item by item; raw bodies
  // (a file, a signed webhook) are bytes, not text fields: their route reads them (walking a
  // 50 MB Buffer key by key here held the event loop for seconds).
  const body = request.body;
  if (body === undefined || body === null || typeof body !== 'object' || ArrayBuffer.isView(body) || checkedBodies.has(body)) return;
  const inBody = findUnstorable(body);
  if (inBody) throw invalid(fieldPath(inBody.path), inBody.reason);
}

/** Bodies whose text safety was already checked by the parser. */
export const checkedBodies = new WeakSet<object>();
