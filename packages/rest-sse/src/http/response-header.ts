import type { Context } from 'hono';

interface NodeOutgoing {
  headersSent: boolean;
  setHeader(name: string, value: string): unknown;
}

function nodeOutgoing(context: Context): NodeOutgoing | undefined {
  const outgoing = (context.env as { outgoing?: Partial<NodeOutgoing> } | undefined)?.outgoing;
  return typeof outgoing?.setHeader === 'function' && outgoing.headersSent === false
    ? (outgoing as NodeOutgoing)
    : undefined;
}

/**
 * Sets a response header. On @hono/node-server it goes straight onto the Node response, so the
 * handler keeps @hono/node-server's lightweight response (a header set through the context gives
 * the response a web `Headers` object to convert); elsewhere it is set through the context.
 * Node merges it with the headers of whatever response the handler returns, errors included.
 */
export function setResponseHeader(context: Context, name: string, value: string): void {
  const outgoing = nodeOutgoing(context);
  if (outgoing === undefined) context.header(name, value);
  else outgoing.setHeader(name, value);
}
