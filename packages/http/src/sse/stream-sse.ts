import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Context } from 'hono';
import { SSE_HEADERS, type SSENodeTarget } from './sse-target.ts';
import {
  createSSEWriter,
  type SSEWriter,
  type SSEWriterOptions,
  sseErrorMessage,
} from './sse-writer.ts';

/** Options of {@link streamSSE}. */
export interface StreamSSEOptions extends Omit<SSEWriterOptions, 'signal' | 'headers'> {
  /** Extra response headers. */
  headers?: Record<string, string>;
  /**
   * On Node (`@hono/node-server`), write frames straight to the `ServerResponse` instead of
   * through a web `ReadableStream`: several times faster and lighter (default true). Headers set
   * by middleware before the handler are kept; middleware that rewrites the response afterwards
   * (compression, for one) is bypassed.
   */
  direct?: boolean;
}

function nodeResponseOf(context: Context): SSENodeTarget | undefined {
  const outgoing = (context.env as { outgoing?: Partial<SSENodeTarget> } | undefined)?.outgoing;
  if (
    typeof outgoing?.writeHead !== 'function' ||
    typeof outgoing.writableLength !== 'number' ||
    outgoing.headersSent === true
  ) {
    return undefined;
  }
  return outgoing as SSENodeTarget;
}

/**
 * The "already sent" answer for @hono/node-server. It skips writing a response that carries its
 * marker header, but not when the response is one of its own lightweight (cacheable) ones, and
 * Hono wraps the handler's response into such a one whenever middleware touched `context.res`
 * (CORS does). Reading `bodyUsed` makes this one a plain Response, and a wrapper around a plain
 * one stays plain, so the marker holds with any middleware.
 */
function alreadySent(): Response {
  if (sharedAlreadySent === undefined) {
    // Created on first use, that is after @hono/node-server has installed its Response.
    const response = new Response(null, { headers: RESPONSE_ALREADY_SENT.headers });
    sharedAlreadySent = response.bodyUsed ? RESPONSE_ALREADY_SENT : response;
  }
  return sharedAlreadySent;
}

let sharedAlreadySent: Response | undefined;

async function runInto(
  writer: SSEWriter,
  run: (writer: SSEWriter) => Promise<void> | void,
): Promise<void> {
  try {
    await run(writer);
  } catch (error) {
    writer.write(sseErrorMessage(error));
  } finally {
    writer.close();
  }
}

function headersWithPrepared(
  context: Context,
  extra: Record<string, string> | undefined,
): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  // Headers set by earlier middleware (CORS, request ids...); newResponse reads them without
  // creating the context's response object.
  for (const [name, value] of context.newResponse(null).headers) {
    const previous = headers[name];
    if (name === 'set-cookie' && previous !== undefined) {
      headers[name] = [...(Array.isArray(previous) ? previous : [previous]), value];
    } else headers[name] = value;
  }
  return Object.assign(headers, extra);
}

/**
 * Answers a request with an SSE stream and hands its writer to `begin`, which owns it from then on
 * and must close it (or calls `unopened` instead, for a HEAD request, which starts no stream). What
 * {@link streamSSE} is built on; the REST routes use it directly so an open stream keeps no
 * suspended async function of its own.
 */
export function openSSE(
  context: Context,
  begin: (writer: SSEWriter) => void,
  options: StreamSSEOptions = {},
  unopened?: () => void,
): Response {
  if (context.req.method === 'HEAD') {
    // Hono answers HEAD with the GET handler: send the headers, start nothing nobody will read.
    unopened?.();
    return context.body(null, 200, { ...SSE_HEADERS, ...options.headers });
  }
  const writerOptions = {
    heartbeatMs: options.heartbeatMs,
    maxBufferedBytes: options.maxBufferedBytes,
    shutdownSignal: options.shutdownSignal,
    onClose: options.onClose,
  };
  const response = options.direct === false ? undefined : nodeResponseOf(context);
  if (response !== undefined) {
    // The caller going away is the Node response's 'close' (the writer listens to it), so the web
    // Request's signal is never read: @hono/node-server then creates no AbortController for it.
    const headers = headersWithPrepared(context, options.headers);
    begin(createSSEWriter(response, { ...writerOptions, headers }));
    return alreadySent();
  }
  const signal = context.req.raw.signal;
  let writer: SSEWriter | undefined;
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        writer = createSSEWriter(controller, { ...writerOptions, signal });
        begin(writer);
      },
      cancel() {
        writer?.close();
      },
    },
    // A zero high-water mark makes desiredSize count down the queued bytes exactly.
    new ByteLengthQueuingStrategy({ highWaterMark: 0 }),
  );
  return context.body(body, 200, { ...SSE_HEADERS, ...options.headers });
}

/**
 * Answers a request with an SSE stream: `run` writes events; when it returns the stream ends,
 * when it throws an `error` event is written first. The writer's signal aborts when the caller
 * goes away, so `run` can stop its work.
 *
 * @example
 * app.get('/ticks', (context) =>
 *   streamSSE(context, async (writer) => {
 *     writer.write({ event: 'tick', data: '1', id: 1 });
 *   }),
 * );
 */
export function streamSSE(
  context: Context,
  run: (writer: SSEWriter) => Promise<void> | void,
  options: StreamSSEOptions = {},
): Response {
  return openSSE(context, (writer) => void runInto(writer, run), options);
}
