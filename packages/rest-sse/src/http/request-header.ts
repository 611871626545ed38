import type { Context } from 'hono';

interface NodeBindings {
  incoming?: { headers?: Record<string, string | string[] | undefined> };
}

/**
 * Reads a request header (name in lower case). On @hono/node-server it reads Node's parsed
 * headers, which spares building a web `Headers` object for the whole request.
 */
export function requestHeader(context: Context, name: string): string | undefined {
  const headers = (context.env as NodeBindings | undefined)?.incoming?.headers;
  if (headers === undefined) return context.req.header(name);
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}
