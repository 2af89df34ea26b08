import type { AttemptResult } from './post.js';

/**
 * What follows an attempt (operations.md §11): a 2xx succeeds; a 410 fails the delivery and
 * disables its endpoint; anything else (3xx included, a timeout, a refused connection) waits
 * for the next retry of the schedule, or fails once the schedule is used up. On a 429 or 503,
 * Retry-After is honoured when longer than the schedule's wait, up to its longest wait.
 */
export type Verdict = { kind: 'succeeded' } | { kind: 'gone' } | { kind: 'retry'; inMs: number } | { kind: 'failed' };

/** `attempts`: attempts made, this one included; delaysMs[k] is the wait after attempt k + 1. */
export function verdict(result: Pick<AttemptResult, 'statusCode' | 'retryAfter'>, attempts: number, delaysMs: readonly number[], now: Date): Verdict {
  const status = result.statusCode;
  if (status !== null && status >= 200 && status < 300) return { kind: 'succeeded' };
  if (status === 410) return { kind: 'gone' };
  const scheduled = delaysMs[attempts - 1];
  if (scheduled === undefined) return { kind: 'failed' };
  const asked = status === 429 || status === 503 ? retryAfterMs(result.retryAfter, now) : undefined;
  const longest = Math.max(...delaysMs);
  return { kind: 'retry', inMs: asked !== undefined && asked > scheduled ? Math.min(asked, longest) : scheduled };
}

/** Retry-After as milliseconds from now: delay-seconds or an HTTP date; undefined when unreadable. */
export function retryAfterMs(header: string | null | undefined, now: Date): number | undefined {
  if (!header) return undefined;
  const value = header.trim();
  if (/^\d{1,10}$/.test(value)) return Number(value) * 1000;
  // An HTTP date names its day of the week; a bare number of another form is not one.
  if (!/^[A-Za-z]{3},/.test(value)) return undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}
