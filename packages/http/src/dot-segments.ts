import type { MiddlewareHandler } from 'hono';
import { errorResponse } from './error-response.ts';
import { RouteNotFoundError } from './errors/route-not-found-error.ts';
import { sentPath } from './request-header.ts';

/** A `.` or `..` segment of a path, its dots written out or percent-encoded (`%2e`). */
const DOT_SEGMENT = /(?:^|\/)(?:\.|%2e){1,2}(?:\/|$)/i;

/**
 * Whether a request path, as sent (see {@link sentPath}), has a dot segment (`/a/../b`,
 * `/a/%2e%2e/b`, `/./a`), which URL parsing resolves: `/agents/ticker/../echo/invoke` reaches
 * `echo` behind the back of a proxy that matched the path as sent. Segments that only start with
 * a dot (`.well-known`) are not.
 */
export function hasDotSegment(path: string): boolean {
  return DOT_SEGMENT.test(path);
}

/**
 * A Hono middleware that answers 404 `not_found`, naming the path as sent, to a request whose
 * path has a dot segment (on @hono/node-server, where the path as sent is known; elsewhere the
 * runtime has resolved it before any handler sees it).
 *
 * @example
 * app.use(refuseDotSegments());
 */
export function refuseDotSegments(): MiddlewareHandler {
  return async (context, next) => {
    const sent = sentPath(context);
    if (sent !== undefined && hasDotSegment(sent)) {
      return errorResponse(new RouteNotFoundError(sent));
    }
    await next();
  };
}
