import type { IncomingHttpHeaders } from 'node:http';
import type { Context } from 'hono';

interface NodeBindings {
  incoming?: { headers?: IncomingHttpHeaders };
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
