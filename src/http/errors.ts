import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../db/connect.js';
import { AppError } from '../core/errors.js';
import { translate, type MessageCode } from '../i18n/messages.js';
import { validationToAppError } from './validation.js';

const STATUS: Partial<Record<MessageCode, number>> = {
  credential_missing: 401,
  credential_malformed: 401,
  credential_invalid: 401,
  credential_revoked: 401,
  credential_expired: 401,
  credential_conflict: 401,
  admin_unauthorized: 401,
  missing_scopes: 403,
  owner_required: 403,
  mfa_required: 403,
  sso_not_configured: 404,
  sso_required: 403,
  sso_unavailable: 404,
  sso_provider_down: 502,
  sso_email_unverified: 403,
  sso_domain_unverified: 403,
  sso_email_invalid: 403,
  sso_link_required: 403,
  sso_link_email_mismatch: 403,
  sso_identity_taken: 403,
  cross_site_sign_in: 403,
  session_required: 401,
  person_required: 401,
  not_a_member: 401,
  login_failed: 401,
  login_throttled: 429,
  mfa_failed: 401,
  mfa_restart: 401,
  mfa_throttled: 429,
  passkey_failed: 401,
  route_not_found: 404,
  import_running: 409,
  import_reads_busy: 429,
  utm_template_name_taken: 409,
  not_found: 404,
  stripe_no_connection: 404,
  rate_limited: 429,
  body_too_large: 413,
  internal_error: 500,
  unavailable: 503,
  heavy_requests_busy: 429,
  query_timeout: 503,
  secret_unopenable: 503,
};

export function statusOf(code: MessageCode): number {
  return STATUS[code] ?? 400;
}

export interface ErrorBody {
  error: { en: string; ar: string; code: string };
  field?: string;
  reason?: string;
  missingScopes?: string[];
  retryAfter?: number;
  limit?: number;
}

export function errorBody(err: AppError): ErrorBody {
  const body: ErrorBody = { error: { ...translate(err.code, err.params), code: err.code } };
  // The field the message names, as data: a form shows the message at that field without parsing text.
  if (typeof err.params.field === 'string') body.field = err.params.field;
  if (typeof err.params.reasonCode === 'string') body.reason = err.params.reasonCode;
  if (err.extra.missingScopes) body.missingScopes = err.extra.missingScopes;
  if (err.extra.retryAfter !== undefined) body.retryAfter = err.extra.retryAfter;
  if (err.extra.limit !== undefined) body.limit = err.extra.limit;
  return body;
}

/** Maps what Fastify itself throws (parsing, content type, schema) onto the catalogue. */
function fromFastifyError(err: FastifyError & { validationContext?: string }): AppError | undefined {
  if (err.validation) return validationToAppError(err.validation as never, err.validationContext ?? 'body');
  switch (err.code) {
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('empty_body');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('unsupported_content_type');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('body_too_large');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('malformed_json');
  }
  if (err instanceof SyntaxError || err.name === 'SyntaxError') return new AppError('malformed_json');
  const status = err.statusCode ?? 500;
  if (status >= 400 && status < 500) return new AppError('bad_request', { detail: err.message.replace(/\.$/, '') });
  return undefined;
}

/**
 * A statement stopped by statement_timeout (57014): that request was too expensive, the database
 * is fine. A 503 with Retry-After for its caller alone, never the shared "unavailable" state.
 */
function statementTimedOut(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 4) return false;
  const e = err as { code?: unknown; cause?: unknown };
  return e.code === '57014' || statementTimedOut(e.cause, depth + 1);
}

export function errorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  if (statementTimedOut(error)) {
    request.log.warn({ err: error, workspaceId: request.principal?.workspace.id, url: request.url.split('?')[0] }, 'statement timeout');
    void reply.status(503).header('retry-after', '30').send(errorBody(new AppError('query_timeout', {}, { retryAfter: 30 })));
    return;
  }
  if (isDatabaseUnavailable(error)) {
    request.log.warn({ err: error, workspaceId: request.principal?.workspace.id }, 'database unavailable');
    void reply.status(503).header('retry-after', '5').send(errorBody(new AppError('unavailable')));
    return;
  }
  const appError = error instanceof AppError ? error : fromFastifyError(error);
  if (!appError) {
    // The stack stays in the log; the client only learns that something went wrong.
    request.log.error({ err: error, workspaceId: request.principal?.workspace.id }, 'unhandled error');
    void reply.status(500).send(errorBody(new AppError('internal_error')));
    return;
  }
  const status = statusOf(appError.code);
  if (status >= 500) request.log.error({ err: error, workspaceId: request.principal?.workspace.id }, 'server error');
  if (appError.extra.retryAfter !== undefined) void reply.header('retry-after', String(appError.extra.retryAfter));
  void reply.status(status).send(errorBody(appError));
}

/** Paths whose callers are programs (and the API reference): their errors are JSON. Anywhere else a visitor gets a page. */
export function isApiPath(path: string): boolean {
  // /webhooks/… are the inbound events of other services (Stripe): JSON too, never a visitor's page.
  return /^\/(?:api|admin|oauth|docs)(?:[/?]|$)/.test(path) || path.startsWith('/.well-known/') || path.startsWith('/webhooks/');
}

/** Answers the reply it sent: an async handler returns it, so Fastify knows the answer is given while async onSend hooks still run. */
export function notFoundHandler(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const path = request.url.split('?')[0] ?? '/';
  return reply.status(404).send(errorBody(new AppError('route_not_found', { method: request.method, path })));
}

/**
 * Not-found answers: JSON on API paths, the given HTML page anywhere else (`/`, `/a`, a path
 * that is not a short id), so a visitor never sees JSON (operations.md §5).
 */
export function notFoundHandlerWith(page: () => string) {
  return (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    if (isApiPath(request.url)) return notFoundHandler(request, reply);
    return reply.status(404).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(page());
  };
}
