import { SendMessageRequest, SSE_HEADERS } from '@a2a-js/sdk';
import {
  A2A_LEGACY_PROTOCOL_VERSION,
  LEGACY_METHOD_MESSAGE_SEND,
  LEGACY_METHOD_MESSAGE_STREAM,
  LEGACY_METHOD_TASKS_CANCEL,
  LEGACY_METHOD_TASKS_GET,
  LEGACY_METHOD_TASKS_RESUBSCRIBE,
} from '@a2a-js/sdk/compat/v0_3';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { A2A_ERROR_CODE, ContentTypeNotSupportedError } from '@a2a-js/sdk/errors';
import {
  type A2ARequestHandler,
  JsonRpcTransportHandler,
  validateVersion,
} from '@a2a-js/sdk/server';
import { firstStep, mediaTypeOf, requestHeader, sseResponse } from '@agentport/http';
import type { Context, Handler } from 'hono';
import { type A2AUserBuilder, buildCallContext, extensionHeaders } from './call-context.ts';
import { readExpressJson, TOO_DEEP } from './express-json.ts';
import { VERSION_HEADER } from './header-names.ts';
import { endsAtPause } from './legacy-final.ts';

/** Options of the JSON-RPC handler. */
export interface JsonRpcRouteOptions {
  requestHandler: A2ARequestHandler;
  userBuilder: A2AUserBuilder;
  /** Dispatch requests without `A2A-Version` (or with 0.3) to the v0.3 handler. */
  legacyCompat: boolean;
}

interface Envelope {
  jsonrpc: '2.0';
  id: unknown;
  error: { code: number; message: string; data?: unknown };
}

function envelope(id: unknown, error: Envelope['error']): Envelope {
  return { jsonrpc: '2.0', id, error };
}

function requestIdOf(body: unknown): unknown {
  // Like the Express adapter (`req.body?.id || null`): a falsy id becomes null here.
  return (typeof body === 'object' && body !== null && (body as { id?: unknown }).id) || null;
}

const SEND_METHODS = new Set(['SendMessage', 'SendStreamingMessage']);

/** What a send call whose message the SDK cannot decode is answered with. */
const INVALID_MESSAGE: Envelope['error'] = {
  code: A2A_ERROR_CODE.INVALID_PARAMS,
  message: 'Invalid params: message is not a valid A2A Message',
};

/**
 * Whether a v1.0 send call's params are beyond the SDK's decoder (a part that is `null`, say):
 * the SDK answers those with an internal error carrying a JS `TypeError`'s message. Asked only
 * once a call has failed that way, so a good call is not decoded twice.
 */
function hasUndecodableMessage(body: unknown): boolean {
  const call = body as { method?: unknown; params?: unknown } | undefined;
  if (typeof call?.method !== 'string' || !SEND_METHODS.has(call.method)) return false;
  try {
    SendMessageRequest.fromJSON(call.params ?? {});
    return false;
  } catch {
    return true;
  }
}

/** The v0.3 methods that take a task's `id` (the SDK's v0.3 handler trims it, whatever it is). */
const LEGACY_TASK_ID_METHODS = new Set([
  LEGACY_METHOD_TASKS_GET,
  LEGACY_METHOD_TASKS_CANCEL,
  LEGACY_METHOD_TASKS_RESUBSCRIBE,
]);

/** What a v0.3 task call whose `id` is not a string is answered with. */
const INVALID_TASK_ID: Envelope['error'] = {
  code: A2A_ERROR_CODE.INVALID_PARAMS,
  message: 'Invalid params: id must be a string',
};

/**
 * Whether a v0.3 task call has an `id` that is there but not a string (a number, an array): the
 * SDK answers those with an internal error carrying a JS `TypeError`'s message
 * ("taskId.trim is not a function"). A missing or null `id` is the SDK's own -32602 already.
 */
function hasNonStringTaskId(body: unknown): boolean {
  const call = body as { method?: unknown; params?: { id?: unknown } } | undefined;
  if (typeof call?.method !== 'string' || !LEGACY_TASK_ID_METHODS.has(call.method)) return false;
  const id = call.params?.id;
  return id !== undefined && id !== null && typeof id !== 'string';
}

/**
 * The body of a call as the SDK's handler should see it: a v1.0 ListTasks whose `status` is the
 * string `UNRECOGNIZED` loses it. The official client (1.3) sends that for a request without a
 * status, and the SDK's handler refuses it ("Invalid status filter: -1"); any other unknown
 * status is still refused.
 */
function withoutUnrecognizedStatus(body: unknown): unknown {
  const call = body as { method?: unknown; params?: { status?: unknown } } | undefined;
  if (call?.method !== 'ListTasks' || call.params?.status !== 'UNRECOGNIZED') return body;
  const { status: _status, ...params } = call.params;
  return { ...call, params };
}

/**
 * The body of a v0.3 call as the SDK's v0.3 handler should see it: a `message/send` whose
 * `configuration` has no `blocking` (or a null one) gets `blocking: true`. The SDK's converter
 * reads a missing `blocking` as `returnImmediately: true`, so a configuration sent only for
 * `acceptedOutputModes` or `historyLength` was answered at once; v0.3 servers (a2a-js 0.3 among
 * them) block unless `blocking` is false, as v1.0's `returnImmediately` defaults to false.
 */
function withLegacyBlockingDefault(body: unknown): unknown {
  const call = body as { method?: unknown; params?: { configuration?: unknown } } | undefined;
  if (call?.method !== LEGACY_METHOD_MESSAGE_SEND) return body;
  const configuration = call.params?.configuration as { blocking?: unknown } | null | undefined;
  if (typeof configuration !== 'object' || configuration === null) return body;
  if (configuration.blocking !== undefined && configuration.blocking !== null) return body;
  return {
    ...call,
    params: { ...call.params, configuration: { ...configuration, blocking: true } },
  };
}

/**
 * Whether a failure before a stream's first event is answered as SSE (an `error` event) rather
 * than JSON. The v0.3 resubscribe always is (as SDK 1.3's Express adapter does). So is a v0.3
 * `message/stream` sent without `A2A-Version`, as v0.3 clients send it (the header came with
 * v1.0): the v0.3 SDK's server began the event stream before reading it, and its clients read only
 * `text/event-stream` there (a JSON answer reached them as "Invalid response Content-Type", the
 * error lost). With `A2A-Version: 0.3` (a v1.0 client speaking v0.3) it is JSON, as SDK 1.3's
 * Express adapter answers, which that client turns into the typed error.
 */
function failsAsSse(body: unknown, versionHeader: string | undefined): boolean {
  const method = (body as { method?: unknown } | undefined)?.method;
  if (method === LEGACY_METHOD_TASKS_RESUBSCRIBE) return true;
  return method === LEGACY_METHOD_MESSAGE_STREAM && versionHeader === undefined;
}

/** A v0.3 stream event's envelope as JSON, an input-required status update marked `final`. */
function encodeLegacyEnvelope(value: unknown): string {
  const result = (value as { result?: { kind?: unknown; final?: unknown } } | undefined)?.result;
  if (result !== undefined && result.final !== true && endsAtPause(result)) {
    return JSON.stringify({ ...(value as object), result: { ...result, final: true } });
  }
  return JSON.stringify(value);
}

/** Whether a JSON-RPC call subscribes to a task's events (`SubscribeToTask`, v0.3's resubscribe). */
function isSubscription(body: unknown): boolean {
  const method = (body as { method?: unknown } | undefined)?.method;
  return method === 'SubscribeToTask' || method === LEGACY_METHOD_TASKS_RESUBSCRIBE;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    typeof (value as AsyncIterable<unknown> | undefined)?.[Symbol.asyncIterator] === 'function'
  );
}

/**
 * The body of a JSON-RPC call, read as the SDK's Express adapter reads it (`express.json()`,
 * strict; no `Content-Type`, no body), or the answer refusing it: a media type other than JSON,
 * a body that is not JSON (-32700) or that nests too deep (-32600).
 */
async function readCallBody(
  context: Context,
): Promise<{ ok: true; body: unknown } | { ok: false; refusal: Response }> {
  const contentType = requestHeader(context, 'content-type');
  const mediaType = mediaTypeOf(contentType);
  if (mediaType === undefined) return { ok: true, body: undefined };
  if (mediaType !== 'application/json') {
    const error = new ContentTypeNotSupportedError(
      `Unsupported Content-Type "${contentType}"; expected application/json.`,
    );
    const refusal = envelope(null, JsonRpcTransportHandler.mapToJSONRPCError(error));
    return { ok: false, refusal: context.json(refusal, 200) };
  }
  const parsed = await readExpressJson(context, { strict: true });
  if (parsed.ok) return { ok: true, body: parsed.value };
  const error = parsed.tooDeep
    ? { code: A2A_ERROR_CODE.INVALID_REQUEST, message: TOO_DEEP }
    : { code: A2A_ERROR_CODE.PARSE_ERROR, message: parsed.reason };
  return { ok: false, refusal: context.json(envelope(null, error), 200) };
}

/**
 * The JSON-RPC endpoint: the SDK's JsonRpcTransportHandler (and its v0.3
 * LegacyJsonRpcTransportHandler) behind the same guards, status codes and SSE framing as the
 * SDK's Express `jsonRpcHandler`.
 */
export function createJsonRpcHandler(options: JsonRpcRouteOptions): Handler {
  const handler = new JsonRpcTransportHandler(options.requestHandler);
  const legacyHandler = options.legacyCompat
    ? new LegacyJsonRpcTransportHandler(options.requestHandler)
    : undefined;

  return async (context) => {
    const read = await readCallBody(context);
    if (!read.ok) return read.refusal;
    const { body } = read;
    // Absent or empty: a v0.3 caller (the header came with v1.0).
    const versionHeader = requestHeader(context, VERSION_HEADER) || undefined;
    const legacy =
      legacyHandler !== undefined &&
      (versionHeader ?? A2A_LEGACY_PROTOCOL_VERSION) === A2A_LEGACY_PROTOCOL_VERSION;
    const mapError = legacy
      ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError
      : JsonRpcTransportHandler.mapToJSONRPCError;
    // An internal error on a v1.0 send whose message the SDK cannot decode, or on a v0.3 task
    // call whose id is not a string, is the caller's.
    const refine = (error: Envelope['error']): Envelope['error'] => {
      if (error.code !== A2A_ERROR_CODE.INTERNAL_ERROR) return error;
      if (legacy) return hasNonStringTaskId(body) ? INVALID_TASK_ID : error;
      return hasUndecodableMessage(body) ? INVALID_MESSAGE : error;
    };
    const errorEnvelope = (error: unknown) => envelope(requestIdOf(body), refine(mapError(error)));

    try {
      const callContext = await buildCallContext(context, {
        userBuilder: options.userBuilder,
        legacy,
      });
      validateVersion(
        callContext.requestedVersion,
        await options.requestHandler.getAgentCard(),
        'JSONRPC',
      );
      // The transport handlers validate any body at runtime (Express hands them `req.body` as is).
      const output = legacy
        ? await (legacyHandler ?? handler).handle(
            withLegacyBlockingDefault(body) as Record<string, unknown>,
            callContext,
          )
        : await handler.handle(
            withoutUnrecognizedStatus(body) as Record<string, unknown>,
            callContext,
          );
      const headers = extensionHeaders(callContext, legacy);
      if (!isAsyncIterable(output)) {
        const failed = (output as Partial<Envelope>).error;
        const refined = failed === undefined ? failed : refine(failed);
        if (refined === undefined || refined === failed) return context.json(output, 200, headers);
        return context.json(envelope(requestIdOf(body), refined), 200, headers);
      }
      const iterator = output[Symbol.asyncIterator]();
      const first = await firstStep(iterator);
      const alwaysSse = legacy && failsAsSse(body, versionHeader);
      if ('error' in first && !alwaysSse) {
        return context.json(errorEnvelope(first.error), 200, headers);
      }
      return sseResponse(iterator, first, {
        encode: legacy ? encodeLegacyEnvelope : (value) => JSON.stringify(value),
        encodeError: (error) => JSON.stringify(errorEnvelope(error)),
        headers: { ...SSE_HEADERS, ...headers },
        stopWhenGone: isSubscription(body),
      });
    } catch (error) {
      const response = errorEnvelope(error);
      return context.json(
        response,
        response.error.code === A2A_ERROR_CODE.INTERNAL_ERROR ? 500 : 200,
      );
    }
  };
}
