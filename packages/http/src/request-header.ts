import type { Context } from 'hono';

/** Request headers as Node parses them (names in lower case). */
export type IncomingHeaders = Readonly<Record<string, string | string[] | undefined>>;

interface NodeBindings {
  incoming?: { headers?: IncomingHeaders; url?: string };
}

/**
 * The path of the Node request behind a Hono context as the caller sent it (up to a `?` or `#`,
 * where URL parsing ends it too), before URL parsing resolved its dot segments; undefined off
 * @hono/node-server.
 */
export function sentPath(context: Context): string | undefined {
  const url = (context.env as NodeBindings | undefined)?.incoming?.url;
  if (url === undefined) return undefined;
  const query = url.indexOf('?');
  const fragment = url.indexOf('#');
  const end = query === -1 || (fragment !== -1 && fragment < query) ? fragment : query;
  return end === -1 ? url : url.slice(0, end);
}

/**
 * One header of a Node request (name in lower case), repeated ones joined with `, ` as web
 * `Headers` joins them.
 */
export function incomingHeader(
  request: { headers: IncomingHeaders },
  name: string,
): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * The headers of the Node request behind a Hono context as Node parsed them (names in lower case,
 * the object an Express handler gets as `req.headers`), or undefined off @hono/node-server.
 */
export function incomingHeaders(context: Context): IncomingHeaders | undefined {
  return (context.env as NodeBindings | undefined)?.incoming?.headers;
}

/**
 * Reads a request header (name in lower case). On @hono/node-server it reads Node's parsed
 * headers, which spares building a web `Headers` object for the whole request.
 */
export function requestHeader(context: Context, name: string): string | undefined {
  const incoming = (context.env as NodeBindings | undefined)?.incoming;
  if (incoming?.headers === undefined) return context.req.header(name);
  return incomingHeader(incoming as { headers: IncomingHeaders }, name);
}
