import { checkHttpsUrl, httpsUrl } from '../../core/url-rule.js';

/** True for a value the API's URL rule accepts (an absolute https URL with a host). */
export function isHttpsUrl(value: string): boolean {
  return checkHttpsUrl(value).ok;
}

/** Every URL field of the API must pass the URL rule; null (clear) passes. */
export function assertHttps(value: unknown, field: string): void {
  if (value === undefined || value === null) return;
  httpsUrl(value, field);
}

/** The stored form of an optional URL field: normalised, null and undefined kept as they are. */
export function normalisedHttps(value: unknown, field: string, maxLength?: number): string | null | undefined {
  if (value === undefined || value === null) return value;
  return httpsUrl(value, field, maxLength);
}
