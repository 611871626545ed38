import type { ServerResponse } from 'node:http';
import { sentPath } from '@agentport/http';
import { answeredInsteadOf } from '@agentport/http/node';
import type { MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';

/** The status logged for a request whose caller left before its answer was sent (as nginx). */
export const CLIENT_CLOSED_REQUEST = 499;

/**
 * The status to log for a Node response once it has closed: the one sent; the one `listen`
 * answered in its place (a 408 for a body still arriving at the request timeout); else
 * {@link CLIENT_CLOSED_REQUEST} when the connection closed before the answer was all written (a
 * caller who left a long-poll or a stream).
 */
export function closedStatus(response: ServerResponse): number {
  if (response.writableFinished) return response.statusCode;
  return answeredInsteadOf(response) ?? CLIENT_CLOSED_REQUEST;
}

/** One access log line's fields. */
export interface AccessLogEntry {
  requestId: string | undefined;
  method: string;
  path: string;
  status: number;
  /** When the request began, from `performance.now()`. */
  started: number;
}

/** Writes one access log line (the one shape both the Hono and the Node paths log). */
export function logRequest(logger: Logger, entry: AccessLogEntry): void {
  logger.info(
    {
      requestId: entry.requestId,
      method: entry.method,
      path: entry.path,
      status: entry.status,
      durationMs: Math.round((performance.now() - entry.started) * 100) / 100,
    },
    'request',
  );
}

/**
 * Writes the access log line of a Node request once its response closes (a stream's duration is
 * then the whole stream, a caller who left is a 499): the app's middleware and the fast path both
 * log through it.
 */
export function logWhenClosed(
  logger: Logger,
  response: ServerResponse,
  entry: () => Omit<AccessLogEntry, 'status'>,
): void {
  response.once('close', () => logRequest(logger, { ...entry(), status: closedStatus(response) }));
}

/**
 * Logs one structured line per request (request id, method, path, status, duration); never
 * headers or bodies, so keys and tokens stay out of the logs. Served on Node, the line is written
 * when the response closes, as the Node fast paths write theirs: a stream's duration is the whole
 * stream, and a caller who left is logged as 499. Elsewhere (`app.request`), once the app answers.
 */
export function accessLog(logger: Logger): MiddlewareHandler {
  return async (context, next) => {
    const started = performance.now();
    const entry = () => ({
      requestId: (context.get('requestId') as string | undefined) ?? undefined,
      method: context.req.method,
      // As sent, as the Node fast paths log it: URL parsing resolved `/x/../y` to `/y`.
      path: sentPath(context) ?? context.req.path,
      started,
    });
    const outgoing = (context.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
    if (outgoing === undefined || typeof outgoing.once !== 'function') {
      await next();
      logRequest(logger, { ...entry(), status: context.res.status });
      return;
    }
    // Listened to before the app answers: a caller who leaves a call still running (a blocking
    // A2A send whose task runs on) is logged when they leave, not when the call ends.
    logWhenClosed(logger, outgoing, entry);
    await next();
  };
}
