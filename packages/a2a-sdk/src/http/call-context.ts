import type { ServerResponse } from 'node:http';
import { Extensions, HTTP_EXTENSION_HEADER } from '@a2a-js/sdk';
import { LEGACY_HTTP_EXTENSION_HEADER } from '@a2a-js/sdk/compat/v0_3';
import {
  type ServerCallContext,
  STATE_HEADERS_KEY,
  UnauthenticatedUser,
  type User,
} from '@a2a-js/sdk/server';
import { incomingHeaders, requestHeader } from '@agentport/http';
import type { Context } from 'hono';
import { AbortableCallContext } from '../handler/abortable-call-context.ts';
import { EXTENSIONS_HEADER, LEGACY_EXTENSIONS_HEADER, VERSION_HEADER } from './header-names.ts';

/** Resolves the caller of a request (default: an unauthenticated user). */
export type A2AUserBuilder = (request: Request) => User | Promise<User>;

/** The default {@link A2AUserBuilder}: every caller is the same unauthenticated user. */
export const noAuthentication: A2AUserBuilder = () => new UnauthenticatedUser();

/** How to build the SDK's call context for one request. */
export interface CallContextOptions {
  userBuilder: A2AUserBuilder;
  /** Read extensions from `X-A2A-Extensions` first (the v0.3 header). */
  legacy?: boolean;
  /** The tenant of the request, when the binding carries one outside the body. */
  tenant?: string;
  /** The version to assume when the request has no `A2A-Version` header. */
  defaultVersion?: string;
}

/**
 * An object that reads its properties from `read()` the first time anything looks at it: the
 * headers in the call context are seldom read, and reading them all costs more than the rest of
 * building the context.
 */
export function lazyObject<T extends object>(read: () => T): T {
  const target = {} as T;
  let filled = false;
  const fill = () => {
    if (!filled) {
      filled = true;
      Object.assign(target, read());
    }
    return target;
  };
  return new Proxy(target, {
    get: (_, key) => Reflect.get(fill(), key),
    has: (_, key) => Reflect.has(fill(), key),
    ownKeys: () => Reflect.ownKeys(fill()),
    getOwnPropertyDescriptor: (_, key) => Reflect.getOwnPropertyDescriptor(fill(), key),
    set: (_, key, value) => Reflect.set(fill(), key, value),
    deleteProperty: (_, key) => Reflect.deleteProperty(fill(), key),
    defineProperty: (_, key, descriptor) => Reflect.defineProperty(fill(), key, descriptor),
  });
}

/**
 * On Node (@hono/node-server), how to hear of the caller going away straight from the response:
 * once the connection closes before the answer is all written (one listener; an `AbortSignal`
 * and its listener cost a blocking SendMessage ~10% more server CPU here). Elsewhere undefined:
 * the call context listens to the `Request`'s signal.
 */
function callerGoneOnNode(context: Context): ((listener: () => void) => void) | undefined {
  const outgoing = (context.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (typeof outgoing?.once !== 'function') return undefined;
  return (listener) => {
    const onClose = () => {
      if (!outgoing.writableFinished) listener();
    };
    if (outgoing.closed) onClose();
    else outgoing.once('close', onClose);
  };
}

/**
 * Builds the SDK's ServerCallContext from a Hono request, as the SDK's Express adapters do, with
 * the request's abort signal (aborted when the caller goes away).
 */
export async function buildCallContext(
  context: Context,
  options: CallContextOptions,
): Promise<ServerCallContext> {
  const user = await options.userBuilder(context.req.raw);
  const extensions = options.legacy
    ? (requestHeader(context, LEGACY_EXTENSIONS_HEADER) ??
      requestHeader(context, EXTENSIONS_HEADER))
    : requestHeader(context, EXTENSIONS_HEADER);
  const headers = incomingHeaders(context) ?? lazyObject(() => context.req.header());
  // What the SDK's defaultServerCallContextBuilder builds, plus the caller's abort signal.
  return new AbortableCallContext(
    {
      requestedExtensions: Extensions.parseServiceParameter(extensions),
      user,
      state: new Map([[STATE_HEADERS_KEY, headers]]),
      requestedVersion: requestHeader(context, VERSION_HEADER) || options.defaultVersion,
      tenant: options.tenant,
    },
    () => context.req.raw.signal,
    callerGoneOnNode(context),
  );
}

/** The `A2A-Extensions` (or legacy `X-A2A-Extensions`) response header, when any was activated. */
export function extensionHeaders(
  context: ServerCallContext,
  legacy = false,
): Record<string, string> {
  const activated = context.activatedExtensions;
  if (activated === undefined || activated.length === 0) return {};
  return {
    [legacy ? LEGACY_HTTP_EXTENSION_HEADER : HTTP_EXTENSION_HEADER]: [...activated].join(', '),
  };
}
