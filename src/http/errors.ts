import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../db/connect.js';
import { AppError } from '../core/errors.js';
import { messages, translate, type ErrorCode } from '../i18n/messages.js';
import { validationToAppError } from './validation.js';

/** The HTTP status of an error's code, kept beside its message in the catalogue. */
export function statusOf(code: ErrorCode): number {
  return messages[code].status;
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
    void reply
      .status(503)
      .header('retry-after', '30')
      .send(errorBody(new AppError('query_timeout', {}, { retryAfter: 30 })));
    return;
  }
  if (isDatabaseUnavailable(error)) {
    request.log.warn({ err: error, workspaceId: request.principal?.workspace.id }, 'database unavailable');
    void reply
      .status(503)
      .header('retry-after', '5')
      .send(errorBody(new AppError('unavailable')));
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

/**
 * An answer given before the body is read: a body still on its way closes the connection, so
 * neither side waits on the rest of it (keep-alive would read it as the next request).
 */
export function closeIfBodyPending(request: FastifyRequest, reply: FastifyReply): void {
  if (request.headers['content-length'] !== undefined || request.headers['transfer-encoding'] !== undefined) void reply.header('connection', 'close');
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
