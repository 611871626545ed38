import { requestHeader, setResponseHeader } from '@agentport/rest-sse';
import type { MiddlewareHandler } from 'hono';

const HEADER = 'X-Request-Id';
const HEADER_KEY = 'x-request-id';
const MAX_LENGTH = 255;
const UNSAFE = /[^\w\-=]/;

/**
 * Takes `X-Request-Id` from the request when it is a sane id (word characters, `-` and `=`, at
 * most 255), else makes one up; stores it as the context's `requestId` and answers it (with
 * `setResponseHeader`, which keeps @hono/node-server's lightweight responses).
 */
export function requestIds(): MiddlewareHandler {
  return async (context, next) => {
    let id = requestHeader(context, HEADER_KEY);
    if (id === undefined || id.length === 0 || id.length > MAX_LENGTH || UNSAFE.test(id)) {
      id = crypto.randomUUID();
    }
    context.set('requestId', id);
    setResponseHeader(context, HEADER, id);
    await next();
  };
}
