import type { Context } from 'hono';

/** The headers a Node response will send with its head, set by {@link setResponseHeader}. */
const PENDING = Symbol('agentport.pendingHeaders');

type WriteHead = (statusCode: number, reason?: unknown, headers?: unknown) => unknown;

interface NodeOutgoing {
  headersSent: boolean;
  hasHeader(name: string): boolean;
  setHeader(name: string, value: string): unknown;
  writeHead: WriteHead;
  [PENDING]?: [name: string, value: string][];
}

function nodeOutgoing(context: Context): NodeOutgoing | undefined {
  const outgoing = (context.env as { outgoing?: Partial<NodeOutgoing> } | undefined)?.outgoing;
  return typeof outgoing?.setHeader === 'function' &&
    typeof outgoing.writeHead === 'function' &&
    typeof outgoing.hasHeader === 'function' &&
    outgoing.headersSent === false
    ? (outgoing as NodeOutgoing)
    : undefined;
}

function hasName(headers: Record<string, unknown>, lowerName: string): boolean {
  for (const name in headers) if (name.toLowerCase() === lowerName) return true;
  return false;
}

/**
 * The response's own `writeHead` with its pending headers added: into the object of headers it
 * is given (Node then takes its fast path and keeps only the head it wrote), or through
 * `setHeader` when the headers come as an array. A header set otherwise under the same name wins.
 */
function writeHeadWithPending(
  this: NodeOutgoing,
  statusCode: number,
  reason?: unknown,
  headers?: unknown,
): unknown {
  const writeHead = Object.getPrototypeOf(this).writeHead as WriteHead;
  const pending = this[PENDING];
  this[PENDING] = undefined;
  const hasReason = typeof reason === 'string';
  const given = hasReason ? headers : reason;
  if (pending === undefined) return writeHead.call(this, statusCode, reason, headers);
  const missing = pending.filter(([name]) => !this.hasHeader(name));
  let merged = given;
  if (given === undefined || given === null) {
    merged = Object.fromEntries(missing);
  } else if (Array.isArray(given)) {
    for (const [name, value] of missing) this.setHeader(name, value);
  } else {
    const object = { ...(given as Record<string, unknown>) };
    for (const [name, value] of missing) {
      if (!hasName(object, name.toLowerCase())) object[name] = value;
    }
    merged = object;
  }
  return hasReason
    ? writeHead.call(this, statusCode, reason, merged)
    : writeHead.call(this, statusCode, merged);
}

/**
 * Sets a response header. On @hono/node-server it goes onto the Node response, sent with its
 * head whatever response the handler returns (errors included), so the handler keeps
 * @hono/node-server's lightweight response (a header set through the context gives the response a
 * web `Headers` object to convert); elsewhere it is set through the context.
 *
 * On Node the header waits beside the response until its head is written rather than going
 * through `setHeader`: a header set that way makes Node keep a dictionary of every header of the
 * response for as long as it is open (~0.6 KiB on an SSE stream), where a head written from an
 * object of headers keeps only the head. So `getHeader` does not see it.
 */
export function setResponseHeader(context: Context, name: string, value: string): void {
  const outgoing = nodeOutgoing(context);
  if (outgoing === undefined) {
    context.header(name, value);
    return;
  }
  const pending = outgoing[PENDING];
  if (pending !== undefined) {
    const lowerName = name.toLowerCase();
    const index = pending.findIndex(([other]) => other.toLowerCase() === lowerName);
    if (index >= 0) pending.splice(index, 1);
    pending.push([name, value]);
    return;
  }
  outgoing[PENDING] = [[name, value]];
  // Node writes every head through writeHead (an implicit head too), so this catches them all.
  outgoing.writeHead = writeHeadWithPending;
}
