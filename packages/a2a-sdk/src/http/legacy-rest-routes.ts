import { SSE_HEADERS } from '@a2a-js/sdk';
import { A2A_LEGACY_PROTOCOL_VERSION } from '@a2a-js/sdk/compat/v0_3';
import {
  LegacyA2AError,
  LegacyRestTransportHandler,
  toLegacyHTTPError,
} from '@a2a-js/sdk/compat/v0_3/server';
import {
  A2A_ERROR_CODE,
  isJsonRpcError,
  PushNotificationNotSupportedError,
  restStatusFor,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import { type ServerCallContext, validateVersion } from '@a2a-js/sdk/server';
import { firstStep, mediaTypeOf, requestHeader, sseResponse } from '@agentport/http';
import type { Context, Hono, MiddlewareHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { isLegacyVersion } from '../card/legacy-agent-card.ts';
import { buildCallContext, extensionHeaders } from './call-context.ts';
import { readExpressJson, TOO_DEEP } from './express-json.ts';
import { VERSION_HEADER } from './header-names.ts';
import {
  decodeLegacySendMessage,
  encodeLegacyEvent,
  encodeLegacyTask,
  type LegacyEvent,
} from './legacy-rest-codec.ts';
import type { RestEnv, RestRouteOptions } from './rest-env.ts';

type RestContext = Context<RestEnv>;
type SendParams = Parameters<LegacyRestTransportHandler['sendMessage']>[0];

const LEGACY_JSON = { 'Content-Type': 'application/json' };

/** The HTTP status of an error on the v0.3 binding (from its JSON-RPC code, as the SDK maps it). */
const STATUS_BY_CODE: Record<number, ContentfulStatusCode> = {
  [A2A_ERROR_CODE.PARSE_ERROR]: 400,
  [A2A_ERROR_CODE.INVALID_REQUEST]: 400,
  [A2A_ERROR_CODE.METHOD_NOT_FOUND]: 501,
  [A2A_ERROR_CODE.INVALID_PARAMS]: 400,
  [A2A_ERROR_CODE.INTERNAL_ERROR]: 500,
  [A2A_ERROR_CODE.TASK_NOT_FOUND]: 404,
  [A2A_ERROR_CODE.TASK_NOT_CANCELABLE]: 400,
  [A2A_ERROR_CODE.PUSH_NOTIFICATION_NOT_SUPPORTED]: 400,
  [A2A_ERROR_CODE.UNSUPPORTED_OPERATION]: 400,
  [A2A_ERROR_CODE.CONTENT_TYPE_NOT_SUPPORTED]: 400,
  [A2A_ERROR_CODE.INVALID_AGENT_RESPONSE]: 500,
  [A2A_ERROR_CODE.EXTENDED_CARD_NOT_CONFIGURED]: 400,
};

function legacyStatusFor(error: unknown): ContentfulStatusCode {
  if (isJsonRpcError(error)) {
    const status = STATUS_BY_CODE[error.envelopeCode];
    if (status !== undefined) return status;
  }
  return restStatusFor(error) as ContentfulStatusCode;
}

function legacyErrorResponse(context: Context, error: unknown, headers = {}): Response {
  return context.json(toLegacyHTTPError(error), legacyStatusFor(error), {
    ...LEGACY_JSON,
    ...headers,
  });
}

/** Whether a request speaks A2A v0.3: its `A2A-Version` is in [0.3, 1.0) or absent. */
function isLegacyRequest(context: Context): boolean {
  return isLegacyVersion(requestHeader(context, VERSION_HEADER) || A2A_LEGACY_PROTOCOL_VERSION);
}

/** Whether a request is a v0.3 call of the v0.3 HTTP+JSON binding (a path under `/v1/`). */
export function isLegacyRestCall(context: Context): boolean {
  return isLegacyRequest(context) && context.req.path.includes('/v1/');
}

/**
 * The v0.3 binding's error answer for a request the server refuses before any route: 413 for an
 * oversized body (`tooLarge` says why), else 404 for an unknown path. The body is `{ code,
 * message }` with the JSON-RPC code the v0.3 clients map to their typed errors, where the v1.0
 * shape would reach them as a bare HTTP error.
 */
export function legacyRefusal(context: Context, tooLarge?: string): Response {
  if (tooLarge !== undefined) {
    return context.json(
      toLegacyHTTPError(LegacyA2AError.invalidRequest(tooLarge)),
      413,
      LEGACY_JSON,
    );
  }
  const error = LegacyA2AError.methodNotFound(`${context.req.method} ${context.req.path}`);
  return context.json(toLegacyHTTPError(error), 404, LEGACY_JSON);
}

/** One v0.3 route's work, given the request and the SDK's call context built for it. */
type LegacyHandler = (context: RestContext, callContext: ServerCallContext) => Promise<Response>;

/**
 * The v0.3 binding's middleware: reads a v0.3 request's JSON body into the `body` variable, as
 * the SDK's Express `legacyRestRouter` does with `express.json()`, refusing it in the v0.3 shape.
 */
const readLegacyBody: MiddlewareHandler<RestEnv> = async (context, next) => {
  if (
    isLegacyRequest(context) &&
    mediaTypeOf(requestHeader(context, 'content-type')) === 'application/json'
  ) {
    const parsed = await readExpressJson(context, { strict: false });
    if (!parsed.ok) {
      const error = parsed.tooDeep
        ? LegacyA2AError.invalidRequest(TOO_DEEP)
        : LegacyA2AError.parseError(parsed.reason);
      return context.json(toLegacyHTTPError(error), 400, LEGACY_JSON);
    }
    context.set('body', parsed.value);
    context.set('bodyRead', true);
  }
  await next();
};

/**
 * A v0.3 route's Hono handler: passes requests that are not v0.3 on to the v1.0 routes, builds
 * the call context (its version checked against the card), runs the route's work and answers
 * what it throws in the v0.3 shape.
 */
function legacyRoute(
  transport: LegacyRestTransportHandler,
  options: RestRouteOptions,
  handler: LegacyHandler,
): MiddlewareHandler<RestEnv> {
  return async (context, next) => {
    if (!isLegacyRequest(context)) return next();
    let callContext: ServerCallContext | undefined;
    try {
      callContext = await buildCallContext(context, {
        userBuilder: options.userBuilder,
        legacy: true,
        defaultVersion: A2A_LEGACY_PROTOCOL_VERSION,
      });
      validateVersion(callContext.requestedVersion, await transport.getAgentCard(), 'HTTP+JSON');
      return await handler(context, callContext);
    } catch (error) {
      const headers = callContext ? extensionHeaders(callContext, true) : {};
      return legacyErrorResponse(context, error, headers);
    }
  };
}

/** A JSON answer of the v0.3 binding, with the extensions the call activated. */
function legacyJson(
  context: RestContext,
  callContext: ServerCallContext,
  body: unknown,
  status: 200 | 201 = 200,
): Response {
  return context.json(body, status, { ...LEGACY_JSON, ...extensionHeaders(callContext, true) });
}

/** A stream of the v0.3 binding: SSE, or the error answer when it fails before its first event. */
async function legacyStream(
  context: RestContext,
  callContext: ServerCallContext,
  events: AsyncGenerator<unknown>,
  stopWhenGone = false,
): Promise<Response> {
  const first = await firstStep(events);
  const headers = extensionHeaders(callContext, true);
  if ('error' in first) return legacyErrorResponse(context, first.error, headers);
  return sseResponse(events, first, {
    encode: (value) => JSON.stringify(encodeLegacyEvent(value as LegacyEvent)),
    encodeError: (error) => JSON.stringify(toLegacyHTTPError(error)),
    headers: { ...SSE_HEADERS, ...headers },
    stopWhenGone,
  });
}

/**
 * Registers the A2A v0.3 HTTP+JSON binding (`/v1/message:send` answering 201, `/v1/message:stream`,
 * `/v1/tasks/{id}`, `:cancel`, `:subscribe`, ...) for requests without `A2A-Version: 1.0`, over the
 * SDK's LegacyRestTransportHandler, as the SDK's Express `legacyRestRouter` does; other requests
 * and paths fall through to the v1.0 routes.
 */
export function registerLegacyRestRoutes(rest: Hono<RestEnv>, options: RestRouteOptions): void {
  const transport = new LegacyRestTransportHandler(options.requestHandler);
  rest.use('*', readLegacyBody);
  const route = (handler: LegacyHandler) => legacyRoute(transport, options, handler);
  const taskId = (context: RestContext, suffix = '') => {
    const raw = context.req.param('taskId') ?? '';
    return suffix === '' ? raw : raw.slice(0, -suffix.length);
  };
  const sendParams = (context: RestContext) =>
    decodeLegacySendMessage(context.get('body')) as unknown as SendParams;
  // Push notifications and the extended card are not wired (the card says so): the SDK answers these.
  const pushNotSupported: LegacyHandler = async () => {
    throw new PushNotificationNotSupportedError();
  };

  rest.get(
    '/v1/card',
    route(async (_context, callContext) => {
      await transport.getAuthenticatedExtendedAgentCard(callContext);
      throw new UnsupportedOperationError('Agent does not support authenticated extended card.');
    }),
  );
  rest.post(
    '/v1/:action{message:send}',
    route(async (context, callContext) => {
      const result = await transport.sendMessage(sendParams(context), callContext);
      return legacyJson(context, callContext, encodeLegacyEvent(result as LegacyEvent), 201);
    }),
  );
  rest.post(
    '/v1/:action{message:stream}',
    route(async (context, callContext) =>
      legacyStream(
        context,
        callContext,
        await transport.sendMessageStream(sendParams(context), callContext),
      ),
    ),
  );
  rest.post(
    '/v1/tasks/:taskId{[^/]+:cancel}',
    route(async (context, callContext) => {
      const task = await transport.cancelTask(taskId(context, ':cancel'), callContext);
      return legacyJson(
        context,
        callContext,
        encodeLegacyTask(task as Parameters<typeof encodeLegacyTask>[0]),
      );
    }),
  );
  const subscribe = route(async (context, callContext) =>
    legacyStream(
      context,
      callContext,
      await transport.resubscribe(taskId(context, ':subscribe'), callContext),
      true,
    ),
  );
  rest.get('/v1/tasks/:taskId{[^/]+:subscribe}', subscribe);
  rest.post('/v1/tasks/:taskId{[^/]+:subscribe}', subscribe);
  rest.get(
    '/v1/tasks/:taskId',
    route(async (context, callContext) => {
      const historyLength =
        context.req.query('historyLength') ?? context.req.query('history_length');
      const task = await transport.getTask(taskId(context), callContext, historyLength);
      return legacyJson(
        context,
        callContext,
        encodeLegacyTask(task as Parameters<typeof encodeLegacyTask>[0]),
      );
    }),
  );
  rest.post('/v1/tasks/:taskId/pushNotificationConfigs', route(pushNotSupported));
  rest.get('/v1/tasks/:taskId/pushNotificationConfigs', route(pushNotSupported));
  rest.get('/v1/tasks/:taskId/pushNotificationConfigs/:configId', route(pushNotSupported));
  rest.delete('/v1/tasks/:taskId/pushNotificationConfigs/:configId', route(pushNotSupported));
}
