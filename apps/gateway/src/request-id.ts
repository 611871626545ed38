import { randomUuid } from '@agentport/core/internal';
import {
  type IncomingHeaders,
  incomingHeader,
  requestHeader,
  setResponseHeader,
} from '@agentport/http';
import type { MiddlewareHandler } from 'hono';

/** The request id header, as the gateway answers it. */
export const REQUEST_ID_HEADER = 'X-Request-Id';
const HEADER_KEY = 'x-request-id';
const MAX_LENGTH = 255;
const UNSAFE = /[^\w\-=]/;

/** The request's own id when it is a sane one (see {@link requestIds}), else a new UUID. */
export function chooseRequestId(given: string | undefined): string {
  return given === undefined ||
    given.length === 0 ||
    given.length > MAX_LENGTH ||
    UNSAFE.test(given)
    ? randomUuid()
    : given;
}

/**
 * Takes `X-Request-Id` from the request when it is a sane id (word characters, `-` and `=`, at
 * most 255), else makes one up; stores it as the context's `requestId` and answers it (with
 * `setResponseHeader`, which keeps @hono/node-server's lightweight responses).
 */
export function requestIds(): MiddlewareHandler {
  return async (context, next) => {
    const id = chooseRequestId(requestHeader(context, HEADER_KEY));
    context.set('requestId', id);
    setResponseHeader(context, REQUEST_ID_HEADER, id);
    await next();
  };
}

/** The request id of a Node request on the fast path, chosen as {@link requestIds} chooses it. */
export function nodeRequestId(request: { headers: IncomingHeaders }): string {
  return chooseRequestId(incomingHeader(request, HEADER_KEY));
}
