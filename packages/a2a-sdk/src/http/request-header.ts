import type { Context } from 'hono';

type NodeHeaders = Record<string, string | string[] | undefined>;

/**
 * The request headers as Node parsed them, when the app runs on @hono/node-server (which passes
 * the `IncomingMessage` as `env.incoming`): the object the SDK's Express adapters pass, and much
 * cheaper than `c.req.header()`, which makes @hono/node-server build a full web `Headers`.
 */
export function nodeHeadersOf(c: Context): NodeHeaders | undefined {
  const env = c.env as { incoming?: { headers?: NodeHeaders } } | undefined;
  return env?.incoming?.headers;
}

/** One request header, from Node's parsed headers when there are any (see {@link nodeHeadersOf}). */
export function requestHeader(c: Context, name: string): string | undefined {
  const headers = nodeHeadersOf(c);
  if (headers === undefined) return c.req.header(name);
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}
