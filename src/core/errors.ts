import { translateReason, type ErrorCode, type Params, type ReasonCode } from '../i18n/messages.js';

/**
 * The one error family of the service. Services throw these with a code from the
 * catalogue; src/http/errors.ts answers with the status and the en/ar text the catalogue keeps for it.
 */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly params: Params = {},
    readonly extra: { missingScopes?: string[]; retryAfter?: number; limit?: number } = {},
  ) {
    super(code);
    this.name = 'AppError';
  }
}

/** Formats a path such as ['2', 'url'] as `[2].url`, the form api.md's messages use. */
export function fieldPath(parts: (string | number)[]): string {
  let out = '';
  for (const p of parts) {
    if (typeof p === 'number' || /^\d+$/.test(p)) out += `[${p}]`;
    else out += out ? `.${p}` : p;
  }
  return out || 'body';
}

/** A field of the input broke a rule: 400 naming it, e.g. invalid('[3].url', 'https_required'). */
export function invalid(field: string, reason: ReasonCode, params: Params = {}): AppError {
  const r = translateReason(reason, params);
  return new AppError('invalid_field', { ...params, field, reason: r.en, reasonAr: r.ar, reasonCode: reason });
}

export function invalidQuery(field: string, reason: ReasonCode, params: Params = {}, where: 'invalid_query' | 'invalid_path' = 'invalid_query'): AppError {
  const r = translateReason(reason, params);
  return new AppError(where, { ...params, field, reason: r.en, reasonAr: r.ar, reasonCode: reason });
}

export function notFound(resource: string, id: string): AppError {
  return new AppError('not_found', { resource, id });
}

/** Carries `limit` as data too (operations.md §16): a client can split its request without reading the text. */
export function tooManyItems(limit: number, count: number): AppError {
  return new AppError('too_many_items', { limit, count }, { limit });
}
