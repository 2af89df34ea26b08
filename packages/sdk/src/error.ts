/**
 * The SDK's one error class: every failure of a call (the server's 4xx/5xx, an unreachable
 * server) and of verifyWebhook. `status` is 0 when no HTTP answer was read.
 */
export class LinktrailError extends Error {
  override readonly name = 'LinktrailError';
  /** HTTP status, 0 when there was no answer (network) or for a webhook that failed verification. */
  readonly status: number;
  /** The server's machine-readable code (`too_many_items`, `missing_scopes`, …), or one of the SDK's own. */
  readonly code: string;
  /** The message in English. */
  readonly en: string;
  /** The message in Arabic. */
  readonly ar: string;
  /** On a 403: the scopes the key lacks. Empty otherwise. */
  readonly missingScopes: string[];
  /** On a 429 (and a 503 with Retry-After): seconds to wait. */
  readonly retryAfter: number | undefined;
  /** On `too_many_items`: the most items one request of this workspace may carry. */
  readonly limit: number | undefined;
  /** On a 400 about one input: the field it names, e.g. `[3].url`. */
  readonly field: string | undefined;
  /** The answer's body as read (parsed JSON when it was JSON). */
  readonly body: unknown;

  constructor(init: {
    status: number;
    code: string;
    en: string;
    ar: string;
    missingScopes?: string[];
    retryAfter?: number;
    limit?: number;
    field?: string;
    body?: unknown;
    cause?: unknown;
  }) {
    super(init.en, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.en = init.en;
    this.ar = init.ar;
    this.missingScopes = init.missingScopes ?? [];
    this.retryAfter = init.retryAfter;
    this.limit = init.limit;
    this.field = init.field;
    this.body = init.body;
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const numberOr = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const stringOr = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Seconds of a Retry-After header: a number of seconds or an HTTP date. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The error a non-2xx answer stands for, read from the server's error body where there is one. */
export async function errorFromResponse(res: Response): Promise<LinktrailError> {
  const text = await res.text().catch(() => '');
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON (a proxy's page): described by its status below.
  }
  const error = isRecord(body) && isRecord(body.error) ? body.error : undefined;
  const retryAfter = (isRecord(body) ? numberOr(body.retryAfter) : undefined) ?? retryAfterSeconds(res.headers.get('retry-after'));
  return new LinktrailError({
    status: res.status,
    code: stringOr(error?.code) ?? `http_${res.status}`,
    en: stringOr(error?.en) ?? `The server answered HTTP ${res.status} without an error body.`,
    ar: stringOr(error?.ar) ?? `أجاب الخادم برمز HTTP ‏${res.status} دون وصف للخطأ.`,
    missingScopes: isRecord(body) && Array.isArray(body.missingScopes) ? body.missingScopes.filter((s): s is string => typeof s === 'string') : [],
    retryAfter,
    limit: isRecord(body) ? numberOr(body.limit) : undefined,
    field: isRecord(body) ? stringOr(body.field) : undefined,
    body,
  });
}

/** The server could not be reached, or its answer could not be read. */
export function networkError(cause: unknown): LinktrailError {
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new LinktrailError({
    status: 0,
    code: 'network_error',
    en: `The Linktrail server could not be reached: ${detail}`,
    ar: `تعذّر الوصول إلى خادم Linktrail: ${detail}`,
    cause,
  });
}
