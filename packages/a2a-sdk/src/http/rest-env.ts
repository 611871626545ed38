import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import type { A2AUserBuilder } from './call-context.ts';

/** The Hono environment of the HTTP+JSON sub-app: the request body, read once by a middleware. */
export interface RestEnv {
  Variables: {
    /** The parsed JSON body, or undefined when there is none (or it was not JSON). */
    body: unknown;
    /** Whether the body has been read already (by the v0.3 middleware). */
    bodyRead: boolean;
  };
}

/** What the HTTP+JSON routes are built from. */
export interface RestRouteOptions {
  requestHandler: A2ARequestHandler;
  userBuilder: A2AUserBuilder;
  /** Answer `/v1/...` v0.3 routes to clients that do not ask for A2A 1.0. */
  legacyCompat: boolean;
}
