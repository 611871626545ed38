import type { MiddlewareHandler } from 'hono';

const HEADER = 'X-Request-Id';
const MAX_LENGTH = 255;
const UNSAFE = /[^\w\-=]/;

interface NodeOutgoing {
  headersSent: boolean;
  setHeader(name: string, value: string): unknown;
}

function nodeOutgoing(env: unknown): NodeOutgoing | undefined {
  const outgoing = (env as { outgoing?: Partial<NodeOutgoing> } | undefined)?.outgoing;
  return typeof outgoing?.setHeader === 'function' && outgoing.headersSent === false
    ? (outgoing as NodeOutgoing)
    : undefined;
}

/**
 * Takes `X-Request-Id` from the request when it is a sane id (word characters, `-` and `=`, at
 * most 255), else makes one up; stores it as the context's `requestId` and answers it. On
 * `@hono/node-server` the header goes straight onto the Node response, so handlers keep
 * @hono/node-server's lightweight responses (a header set through the context would make every
 * response carry a `Headers` object to convert); elsewhere it is set through the context.
 */
export function requestIds(): MiddlewareHandler {
  return async (context, next) => {
    let id = context.req.header(HEADER);
    if (id === undefined || id.length === 0 || id.length > MAX_LENGTH || UNSAFE.test(id)) {
      id = crypto.randomUUID();
    }
    context.set('requestId', id);
    const outgoing = nodeOutgoing(context.env);
    if (outgoing === undefined) context.header(HEADER, id);
    else outgoing.setHeader(HEADER, id);
    await next();
  };
}
