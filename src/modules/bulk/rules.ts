import { invalid } from '../../errors.js';

/** True for an absolute https URL with a host. */
export function isHttpsUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.hostname.length > 0;
  } catch {
    return false;
  }
}

/** Every URL field of the API must use https; null (clear) passes. */
export function assertHttps(value: unknown, field: string): void {
  if (value === undefined || value === null) return;
  if (typeof value !== 'string' || !isHttpsUrl(value)) throw invalid(field, 'https_required');
}
