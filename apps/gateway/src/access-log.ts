import type { MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';

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
 * Logs one structured line per request (request id, method, path, status, duration); never
 * headers or bodies, so keys and tokens stay out of the logs.
 */
export function accessLog(logger: Logger): MiddlewareHandler {
  return async (context, next) => {
    const started = performance.now();
    await next();
    logRequest(logger, {
      requestId: (context.get('requestId') as string | undefined) ?? undefined,
      method: context.req.method,
      path: context.req.path,
      status: context.res.status,
      started,
    });
  };
}
