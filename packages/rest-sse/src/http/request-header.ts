import type { IncomingHttpHeaders } from 'node:http';
import type { Context } from 'hono';

interface NodeBindings {
  incoming?: { headers?: IncomingHttpHeaders; url?: string };
}

/** A `.` or `..` segment of a path, its dots written out or percent-encoded (`%2e`). */
const DOT_SEGMENT = /(?:^|\/)(?:\.|%2e){1,2}(?:\/|$)/i;

/**
 * Whether a request path, as sent, has a dot segment (`/a/../b`, `/a/%2e%2e/b`, `/./a`), which
 * URL parsing resolves: `/agents/ticker/../echo/invoke` reaches `echo` behind the back of a proxy
 * that matched the path as sent. Segments that only start with a dot (`.well-known`) are not.
 */
export function hasDotSegment(path: string): boolean {
  return DOT_SEGMENT.test(path);
}

/**
 * The path (without its query) of the Node request behind a Hono context, as the caller sent it,
 * before URL parsing resolved its dot segments; undefined off @hono/node-server.
 */
export function sentPath(context: Context): string | undefined {
  const url = (context.env as NodeBindings | undefined)?.incoming?.url;
  if (url === undefined) return undefined;
  const mark = url.indexOf('?');
  return mark === -1 ? url : url.slice(0, mark);
}

/**
 * One header of a Node request (name in lower case), repeated ones joined with `, ` as web
 * `Headers` joins them.
 */
export function incomingHeader(
  request: { headers: IncomingHttpHeaders },
  name: string,
): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * Reads a request header (name in lower case). On @hono/node-server it reads Node's parsed
 * headers, which spares building a web `Headers` object for the whole request.
 */
export function requestHeader(context: Context, name: string): string | undefined {
  const incoming = (context.env as NodeBindings | undefined)?.incoming;
  if (incoming?.headers === undefined) return context.req.header(name);
  return incomingHeader(incoming as { headers: IncomingHttpHeaders }, name);
}
