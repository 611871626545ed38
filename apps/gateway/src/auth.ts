import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { AgentPortError } from '@agentport/core';
import { errorResponse, incomingHeader } from '@agentport/http';
import type { MiddlewareHandler } from 'hono';

/**
 * The paths served without a key: health, readiness, the API's description, and the cards that
 * exist (the hand-rolled one of each agent and the SDK one, each also at the root).
 */
const PUBLIC_PATH =
  /^(?:\/healthz|\/readyz|\/openapi\.json|\/docs|\/\.well-known\/agent(?:-card)?\.json|\/agents\/[^/]+\/\.well-known\/agent\.json|\/a2a\/[^/]+\/\.well-known\/agent-card\.json)$/;

/** Whether a path is public when auth is on. */
export function isPublicPath(path: string): boolean {
  return PUBLIC_PATH.test(path);
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * The token of a `Bearer` credential; the whole value when it names the scheme but is malformed
 * (several `Authorization` headers joined, no token, a token with spaces), so that it counts as a
 * key presented and refused rather than as no key at all. Other schemes give `undefined`.
 */
function bearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined || !/^\s*Bearer(?:\s|$)/i.test(authorization)) return undefined;
  return /^\s*Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] ?? authorization;
}

/**
 * The `Authorization` header of a Node request as a web `Headers` reads it (and so the app's
 * check): several are joined with `, `, where Node's parsed headers keep only the first.
 */
export function nodeAuthorization(request: IncomingMessage): string | undefined {
  const { rawHeaders } = request;
  let value: string | undefined;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    if ((rawHeaders[index] as string).toLowerCase() !== 'authorization') continue;
    const next = rawHeaders[index + 1] as string;
    value = value === undefined ? next : `${value}, ${next}`;
  }
  return value;
}

/** What {@link createKeyCheck}'s check finds: the key presented, if any, and whether it is valid. */
export interface KeyCheckResult {
  key: string | undefined;
  valid: boolean;
}

/**
 * The key check of {@link apiKeyAuth}, on the `Authorization` and `X-API-Key` header values:
 * constant-time comparison of SHA-256 digests against every key. Either header with a valid key
 * will do (a stale `X-API-Key` beside a good bearer token does not lock the caller out).
 */
export function createKeyCheck(
  keys: readonly string[],
): (authorization: string | undefined, apiKey: string | undefined) => KeyCheckResult {
  const digests = keys.map(digest);
  const isValid = (key: string | undefined): boolean => {
    if (key === undefined || key === '') return false;
    const candidate = digest(key);
    let valid = false;
    for (const expected of digests) valid = timingSafeEqual(candidate, expected) || valid;
    return valid;
  };
  return (authorization, apiKey) => {
    const bearer = bearerToken(authorization);
    const valid = isValid(apiKey) || isValid(bearer);
    return { key: apiKey === undefined || apiKey === '' ? bearer : apiKey, valid };
  };
}

/**
 * Requires an API key (`X-API-Key: <key>` or `Authorization: Bearer <key>`) on every route but the
 * public ones; answers 401 with `WWW-Authenticate` otherwise. Keys are compared in constant time
 * (as SHA-256 digests, against every key) and never logged.
 */
export function apiKeyAuth(keys: readonly string[]): MiddlewareHandler {
  const check = createKeyCheck(keys);
  return async (context, next) => {
    // OPTIONS too: with CORS on, its middleware (before this one) answers every preflight itself.
    if (isPublicPath(context.req.path)) return next();
    const { key, valid } = check(
      context.req.header('authorization'),
      context.req.header('x-api-key'),
    );
    if (valid) return next();
    const response = errorResponse(
      new AgentPortError({
        code: 'unauthorized',
        message: key === undefined ? 'An API key is required' : 'Invalid API key',
        status: 401,
      }),
    );
    // RFC 6750 3.1: no error code when the request carried no credentials at all.
    response.headers.set(
      'www-authenticate',
      key === undefined
        ? 'Bearer realm="agentport"'
        : 'Bearer realm="agentport", error="invalid_token"',
    );
    return response;
  };
}

/**
 * The key check of {@link apiKeyAuth} on a Node request, for the fast path: whether the request
 * carries a valid key (a request without one is left to the app, which answers the 401).
 */
export function nodeKeyCheck(keys: readonly string[]): (request: IncomingMessage) => boolean {
  const check = createKeyCheck(keys);
  return (request) => check(nodeAuthorization(request), incomingHeader(request, 'x-api-key')).valid;
}
