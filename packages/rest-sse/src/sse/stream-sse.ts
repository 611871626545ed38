import type { Context } from 'hono';
import {
  createSSEWriter,
  type SSEWriter,
  type SSEWriterOptions,
  sseErrorMessage,
} from './sse-writer.ts';

/** The headers of every SSE response. */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

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
  options: Omit<SSEWriterOptions, 'signal'> & { headers?: Record<string, string> } = {},
): Response {
  const signal = context.req.raw.signal;
  let writer: SSEWriter | undefined;
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        writer = createSSEWriter(controller, { ...options, signal });
        const current = writer;
        Promise.resolve()
          .then(() => run(current))
          .catch((error: unknown) => {
            current.write(sseErrorMessage(error));
          })
          .finally(() => current.close());
      },
      cancel() {
        writer?.close();
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: options.maxBufferedBytes ?? 1024 * 1024 }),
  );
  return new Response(body, { status: 200, headers: { ...SSE_HEADERS, ...options.headers } });
}
