import { AgentPortError, RemoteUnavailableError, toAgentPortError } from '@agentport/core';
import type { Context, ErrorHandler, NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { MethodNotAllowedError } from './errors/method-not-allowed-error.ts';
import { PayloadTooLargeError } from './errors/payload-too-large-error.ts';
import { RouteNotFoundError } from './errors/route-not-found-error.ts';

/** The JSON error body of every AgentPort JSON surface. */
export interface ErrorBody {
  error: { code: string; message: string };
}

const STATUS_CODES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'too_many_requests',
  503: 'service_unavailable',
};

function fromHttpException(error: HTTPException): AgentPortError {
  return new AgentPortError({
    code: STATUS_CODES[error.status] ?? 'http_error',
    message: error.message || 'Request failed',
    status: error.status,
    cause: error,
  });
}

/** An error as it is answered: status, headers and the JSON body's text. */
export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Maps anything thrown to its answer: `{ "error": { "code", "message" } }` with the error's
 * status (and `Allow` for 405, `Connection: close` for a 413 whose body was left unread,
 * `Retry-After` for a 503 `remote_unavailable` that says when); unknown
 * errors become a 500 with a generic message. This is the one place our JSON surfaces turn errors
 * into answers ({@link errorResponse} wraps it).
 */
export function errorAnswer(error: unknown): ErrorAnswer {
  const known = error instanceof HTTPException ? fromHttpException(error) : toAgentPortError(error);
  const body: ErrorBody = { error: { code: known.code, message: known.message } };
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  if (known instanceof MethodNotAllowedError) headers.allow = known.allow.join(', ');
  // The rest of an unread body would be read as the next request: the connection must end.
  if (known instanceof PayloadTooLargeError && known.bodyUnread) headers.connection = 'close';
  if (known instanceof RemoteUnavailableError && known.retryAfterSeconds !== undefined) {
    headers['retry-after'] = String(known.retryAfterSeconds);
  }
  return { status: known.status, headers, body: JSON.stringify(body) };
}

/** The JSON error response of anything thrown (see {@link errorAnswer}). */
export function errorResponse(error: unknown): Response {
  const { status, headers, body } = errorAnswer(error);
  return new Response(body, { status, headers });
}

/** A Hono `onError` handler answering with {@link errorResponse}. */
export const jsonErrorHandler: ErrorHandler = (error) => errorResponse(error);

/** A Hono `notFound` handler answering 404 `not_found` in the JSON error shape. */
export const jsonNotFoundHandler: NotFoundHandler = (context: Context) =>
  errorResponse(new RouteNotFoundError(context.req.path));

/** A handler that answers 405 with `Allow` for a route that exists under other methods. */
export function methodNotAllowed(allow: readonly string[]) {
  return (context: Context): Response =>
    errorResponse(new MethodNotAllowedError(context.req.method, allow));
}
