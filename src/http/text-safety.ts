import type { FastifyRequest } from 'fastify';
import { fieldPath, invalid } from '../errors.js';

/** PostgreSQL text cannot hold U+0000, and lone surrogates are not text at all. */
const storable = (s: string) => !s.includes('\0') && s.isWellFormed();

function findBadString(value: unknown, path: (string | number)[]): (string | number)[] | undefined {
  if (typeof value === 'string') return storable(value) ? undefined : path;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const bad = findBadString(value[i], [...path, i]);
      if (bad) return bad;
    }
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const bad = storable(k) ? findBadString(v, [...path, k]) : [...path, k];
      if (bad) return bad;
    }
  }
  return undefined;
}

/** A 400 naming the field, before any string that cannot be stored reaches the database. */
export async function rejectUnstorableText(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null || typeof request.body !== 'object') return;
  const bad = findBadString(request.body, []);
  if (bad) throw invalid(fieldPath(bad), 'invalid_characters');
}
