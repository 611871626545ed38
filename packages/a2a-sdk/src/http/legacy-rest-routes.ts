import { A2A_VERSION_HEADER } from '@a2a-js/sdk';
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
import type { Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { isLegacyVersion } from '../card/legacy-agent-card.ts';
import { buildCallContext, extensionHeaders } from './call-context.ts';
import { mediaTypeOf, readJsonBody, TOO_DEEP } from './json-body.ts';
import {
  decodeLegacySendMessage,
  encodeLegacyEvent,
  encodeLegacyTask,
  type LegacyEvent,
} from './legacy-rest-codec.ts';
import { requestHeader } from './request-header.ts';
import type { RestEnv, RestRouteOptions } from './rest-env.ts';
import { firstStep, sseResponse } from './sse.ts';

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

function legacyErrorResponse(c: Context, error: unknown, headers = {}): Response {
  return c.json(toLegacyHTTPError(error), legacyStatusFor(error), { ...LEGACY_JSON, ...headers });
}

/** Whether a request speaks A2A v0.3: its `A2A-Version` is in [0.3, 1.0) or absent. */
function isLegacyRequest(c: Context): boolean {
  return isLegacyVersion(requestHeader(c, A2A_VERSION_HEADER) || A2A_LEGACY_PROTOCOL_VERSION);
}

/** Whether a request is a v0.3 call of the v0.3 HTTP+JSON binding (a path under `/v1/`). */
export function isLegacyRestCall(c: Context): boolean {
  return isLegacyRequest(c) && c.req.path.includes('/v1/');
}

/**
 * The v0.3 binding's error answer for a request the server refuses before any route: 413 for an
 * oversized body (`tooLarge` says why), else 404 for an unknown path. The body is `{ code,
 * message }` with the JSON-RPC code the v0.3 clients map to their typed errors, where the v1.0
 * shape would reach them as a bare HTTP error.
 */
export function legacyRefusal(c: Context, tooLarge?: string): Response {
  if (tooLarge !== undefined) {
    return c.json(toLegacyHTTPError(LegacyA2AError.invalidRequest(tooLarge)), 413, LEGACY_JSON);
  }
  const error = LegacyA2AError.methodNotFound(`${c.req.method} ${c.req.path}`);
  return c.json(toLegacyHTTPError(error), 404, LEGACY_JSON);
}

/**
 * Registers the A2A v0.3 HTTP+JSON binding (`/v1/message:send` answering 201, `/v1/message:stream`,
 * `/v1/tasks/{id}`, `:cancel`, `:subscribe`, ...) for requests without `A2A-Version: 1.0`, over the
 * SDK's LegacyRestTransportHandler, as the SDK's Express `legacyRestRouter` does; other requests
 * and paths fall through to the v1.0 routes.
 */
export function registerLegacyRestRoutes(rest: Hono<RestEnv>, options: RestRouteOptions): void {
  const transport = new LegacyRestTransportHandler(options.requestHandler);

  rest.use('*', async (c, next) => {
    if (
      isLegacyRequest(c) &&
      mediaTypeOf(requestHeader(c, 'content-type')) === 'application/json'
    ) {
      const parsed = await readJsonBody(c, { strict: false });
      if (!parsed.ok) {
        const error = parsed.tooDeep
          ? LegacyA2AError.invalidRequest(TOO_DEEP)
          : LegacyA2AError.parseError(parsed.reason);
        return c.json(toLegacyHTTPError(error), 400, LEGACY_JSON);
      }
      c.set('body', parsed.value);
      c.set('bodyRead', true);
    }
    await next();
  });

  type Route = (c: RestContext, context: ServerCallContext) => Promise<Response>;
  const route = (handler: Route) => async (c: RestContext, next: () => Promise<void>) => {
    if (!isLegacyRequest(c)) return next();
    let context: ServerCallContext | undefined;
    try {
      context = await buildCallContext(c, {
        userBuilder: options.userBuilder,
        legacy: true,
        defaultVersion: A2A_LEGACY_PROTOCOL_VERSION,
      });
      validateVersion(context.requestedVersion, await transport.getAgentCard(), 'HTTP+JSON');
      return await handler(c, context);
    } catch (error) {
      return legacyErrorResponse(c, error, context ? extensionHeaders(context, true) : {});
    }
  };
  const json = (
    c: RestContext,
    context: ServerCallContext,
    body: unknown,
    status: 200 | 201 = 200,
  ) => c.json(body, status, { ...LEGACY_JSON, ...extensionHeaders(context, true) });
  const stream = async (
    c: RestContext,
    context: ServerCallContext,
    events: AsyncGenerator<unknown>,
    stopWhenGone = false,
  ) => {
    const first = await firstStep(events);
    const headers = extensionHeaders(context, true);
    if ('error' in first) return legacyErrorResponse(c, first.error, headers);
    return sseResponse(events, first, {
      encode: (value) => encodeLegacyEvent(value as LegacyEvent),
      encodeError: toLegacyHTTPError,
      headers,
      stopWhenGone,
    });
  };
  const taskId = (c: RestContext, suffix = '') => {
    const raw = c.req.param('taskId') ?? '';
    return suffix === '' ? raw : raw.slice(0, -suffix.length);
  };
  const sendParams = (c: RestContext) =>
    decodeLegacySendMessage(c.get('body')) as unknown as SendParams;
  // Push notifications and the extended card are not wired (the card says so): the SDK answers these.
  const pushNotSupported: Route = async () => {
    throw new PushNotificationNotSupportedError();
  };

  rest.get(
    '/v1/card',
    route(async (_c, context) => {
      await transport.getAuthenticatedExtendedAgentCard(context);
      throw new UnsupportedOperationError('Agent does not support authenticated extended card.');
    }),
  );
  rest.post(
    '/v1/:action{message:send}',
    route(async (c, context) => {
      const result = await transport.sendMessage(sendParams(c), context);
      return json(c, context, encodeLegacyEvent(result as LegacyEvent), 201);
    }),
  );
  rest.post(
    '/v1/:action{message:stream}',
    route(async (c, context) =>
      stream(c, context, await transport.sendMessageStream(sendParams(c), context)),
    ),
  );
  rest.post(
    '/v1/tasks/:taskId{[^/]+:cancel}',
    route(async (c, context) => {
      const task = await transport.cancelTask(taskId(c, ':cancel'), context);
      return json(c, context, encodeLegacyTask(task as Parameters<typeof encodeLegacyTask>[0]));
    }),
  );
  const subscribe = route(async (c, context) =>
    stream(c, context, await transport.resubscribe(taskId(c, ':subscribe'), context), true),
  );
  rest.get('/v1/tasks/:taskId{[^/]+:subscribe}', subscribe);
  rest.post('/v1/tasks/:taskId{[^/]+:subscribe}', subscribe);
  rest.get(
    '/v1/tasks/:taskId',
    route(async (c, context) => {
      const historyLength = c.req.query('historyLength') ?? c.req.query('history_length');
      const task = await transport.getTask(taskId(c), context, historyLength);
      return json(c, context, encodeLegacyTask(task as Parameters<typeof encodeLegacyTask>[0]));
    }),
  );
  rest.post('/v1/tasks/:taskId/pushNotificationConfigs', route(pushNotSupported));
  rest.get('/v1/tasks/:taskId/pushNotificationConfigs', route(pushNotSupported));
  rest.get('/v1/tasks/:taskId/pushNotificationConfigs/:configId', route(pushNotSupported));
  rest.delete('/v1/tasks/:taskId/pushNotificationConfigs/:configId', route(pushNotSupported));
}
