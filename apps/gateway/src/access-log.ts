import type { MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';

/**
 * Logs one structured line per request (request id, method, path, status, duration); never
 * headers or bodies, so keys and tokens stay out of the logs.
 */
export function accessLog(logger: Logger): MiddlewareHandler {
  return async (context, next) => {
    const started = performance.now();
    await next();
    logger.info(
      {
        requestId: (context.get('requestId') as string | undefined) ?? undefined,
        method: context.req.method,
        path: context.req.path,
        status: context.res.status,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
      },
      'request',
    );
  };
}
