import { formatSSEErrorEvent, formatSSEEvent, SSE_HEADERS } from '@a2a-js/sdk';

/** How to write one stream of SDK events as Server-Sent Events. */
export interface SseOptions<T> {
  /** The `data` of one event. */
  encode(value: T): unknown;
  /** The `data` of the `error` event written when the stream fails midway. */
  encodeError(error: unknown): unknown;
  /** Extra response headers. */
  headers?: Record<string, string>;
}

/** The first step of a stream: its first result, or the error reading it threw. */
export type FirstStep<T> = { result: IteratorResult<T> } | { error: unknown };

/**
 * Answers an SSE response from an iterator whose first step is already known (so that callers
 * can answer errors before the first event as plain JSON). When the client goes away the iterator
 * is still drained to its end: the SDK persists task state inside it.
 */
export function sseResponse<T>(
  iterator: AsyncIterator<T>,
  first: FirstStep<T>,
  options: SseOptions<T>,
): Response {
  const encoder = new TextEncoder();
  let open = true;
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      // Events that come within one turn of the event loop leave as one chunk: one socket write
      // (a syscall) instead of one per event.
      let pending = '';
      let scheduled: ReturnType<typeof setImmediate> | undefined;
      const flush = () => {
        scheduled = undefined;
        if (!open || pending === '') return;
        const text = pending;
        pending = '';
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          open = false;
        }
      };
      const send = (text: string) => {
        if (!open) return;
        pending += text;
        scheduled ??= setImmediate(flush);
      };
      try {
        if ('error' in first) throw first.error;
        if (first.result.done === true) return;
        send(formatSSEEvent(options.encode(first.result.value)));
        for (
          let result = await iterator.next();
          result.done !== true;
          result = await iterator.next()
        ) {
          send(formatSSEEvent(options.encode(result.value)));
        }
      } catch (error) {
        send(formatSSEErrorEvent(options.encodeError(error)));
      } finally {
        if (scheduled !== undefined) clearImmediate(scheduled);
        flush();
        if (open) {
          open = false;
          controller.close();
        }
      }
    },
    cancel() {
      open = false;
    },
  });
  return new Response(body, { status: 200, headers: { ...SSE_HEADERS, ...options.headers } });
}

/** Reads the first step of a stream, catching what it throws. */
export async function firstStep<T>(iterator: AsyncIterator<T>): Promise<FirstStep<T>> {
  try {
    return { result: await iterator.next() };
  } catch (error) {
    return { error };
  }
}
