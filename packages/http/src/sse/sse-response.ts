import { atEndOfTurn, cancelEndOfTurn } from './end-of-turn.ts';
import { formatSSE, type SSEMessage } from './format-sse.ts';
import { SSE_HEADERS } from './sse-target.ts';
import { createSSEWriter, type SSEWriter } from './sse-writer.ts';

/** How {@link sseResponse} writes a stream of values as Server-Sent Events. */
export interface SSEResponseOptions<T> {
  /** The `data` of one value's event (JSON text, say). */
  encode(value: T): string;
  /** The `data` of the `error` event written when the stream fails. */
  encodeError(error: unknown): string;
  /**
   * The response headers, whole (default {@link SSE_HEADERS}): spread `SSE_HEADERS` in to add to
   * them, or give a protocol's own.
   */
  headers?: Readonly<Record<string, string>>;
  /** As the SSE writer's: the longest a stream stays silent before a heartbeat (default 15 s). */
  heartbeatMs?: number;
  /** How far behind a reader may fall, in bytes (default 1 MiB). */
  maxBufferedBytes?: number;
  /**
   * How long a reader past `maxBufferedBytes` has to get back under it before it is cut off, its
   * stream errored without a last event (default 10 s).
   */
  slowReaderGraceMs?: number;
  /**
   * Stop the iterator (`return()`) when the reader goes away or is cut off, rather than drain it
   * without encoding what it yields (the default, for an iterator whose work must finish).
   */
  stopWhenGone?: boolean;
}

/** The first step of an iterator: its first result, or the error reading it threw. */
export type FirstStep<T> = { result: IteratorResult<T> } | { error: unknown };

/** The default grace of a reader past the cap: 10 seconds. */
const SLOW_READER_GRACE_MS = 10_000;

const NOT_YET = Symbol('not yet');

/** The step a pending `next()` settles with, or NOT_YET if it does not within this turn. */
function stepWithinTurn<T>(
  next: Promise<IteratorResult<T>>,
): Promise<FirstStep<T> | typeof NOT_YET> {
  return new Promise((resolve) => {
    const timer = atEndOfTurn(resolve, NOT_YET);
    next.then(
      (result) => {
        cancelEndOfTurn(timer);
        resolve({ result });
      },
      (error: unknown) => {
        cancelEndOfTurn(timer);
        resolve({ error });
      },
    );
  });
}

/** The events of a stream ready within the turn it starts in. */
interface Ready<T> {
  readonly messages: SSEMessage[];
  /** Whether the stream goes on past them, and the `next()` it waits for. */
  readonly next: Promise<IteratorResult<T>> | undefined;
}

async function readyWithinTurn<T>(
  iterator: AsyncIterator<T>,
  first: FirstStep<T>,
  options: SSEResponseOptions<T>,
): Promise<Ready<T>> {
  const messages: SSEMessage[] = [];
  /** Adds a settled step's event; false once the stream is over. */
  const take = (step: FirstStep<T>): boolean => {
    if ('error' in step) {
      messages.push({ event: 'error', data: options.encodeError(step.error) });
      return false;
    }
    if (step.result.done === true) return false;
    messages.push({ data: options.encode(step.result.value) });
    return true;
  };
  for (let open = take(first); open; ) {
    const next = iterator.next();
    const step = await stepWithinTurn(next);
    if (step === NOT_YET) return { messages, next };
    open = take(step);
  }
  return { messages, next: undefined };
}

/** Writes what the iterator yields from `next` on, then an `error` event if it throws. */
async function pump<T>(
  iterator: AsyncIterator<T>,
  next: Promise<IteratorResult<T>>,
  writer: SSEWriter,
  options: SSEResponseOptions<T>,
): Promise<void> {
  try {
    for (let result = await next; result.done !== true; result = await iterator.next()) {
      // Once the reader has gone, a stream still drained (for its work's sake) encodes nothing.
      if (!writer.closed) writer.write({ data: options.encode(result.value) });
    }
  } catch (error) {
    if (!writer.closed) writer.write({ event: 'error', data: options.encodeError(error) });
  }
}

function streamOf<T>(
  iterator: AsyncIterator<T>,
  ready: Ready<T> & { next: Promise<IteratorResult<T>> },
  options: SSEResponseOptions<T>,
): ReadableStream<Uint8Array> {
  let writer: SSEWriter | undefined;
  let finished = false;
  const stop = () => {
    if (!finished) iterator.return?.().catch(() => undefined);
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const opened = createSSEWriter(controller, {
          heartbeatMs: options.heartbeatMs,
          maxBufferedBytes: options.maxBufferedBytes,
          slowReaderGraceMs: options.slowReaderGraceMs ?? SLOW_READER_GRACE_MS,
          batchWrites: true,
        });
        writer = opened;
        if (options.stopWhenGone === true) {
          opened.signal.addEventListener('abort', stop, { once: true });
        }
        for (const message of ready.messages) opened.write(message);
        void pump(iterator, ready.next, opened, options).finally(() => {
          finished = true;
          opened.close();
        });
      },
      cancel() {
        writer?.close();
      },
    },
    // A zero high-water mark makes desiredSize count down the queued bytes exactly.
    new ByteLengthQueuingStrategy({ highWaterMark: 0 }),
  );
}

/**
 * Answers a stream of values as Server-Sent Events, one `data` event per value, from an iterator
 * whose first step is already known (so a caller can answer an error before the first event in
 * its own way). The events ready within the current turn of the event loop, and afterwards each
 * batch of events that arrive within one turn, leave in one write: a quick stream is a single
 * body with its `Content-Length`, instead of a write for the head, each event and the end. It
 * has the SSE writer's heartbeat; a reader past `maxBufferedBytes` for `slowReaderGraceMs` is cut
 * off. When the reader goes away the iterator is drained to its end without encoding what it
 * yields, or stopped (`stopWhenGone`).
 *
 * @example
 * const iterator = events();
 * return sseResponse(iterator, await firstStep(iterator), {
 *   encode: (value) => JSON.stringify(value),
 *   encodeError: (error) => JSON.stringify({ message: String(error) }),
 * });
 */
export async function sseResponse<T>(
  iterator: AsyncIterator<T>,
  first: FirstStep<T>,
  options: SSEResponseOptions<T>,
): Promise<Response> {
  const headers = options.headers ?? SSE_HEADERS;
  const ready = await readyWithinTurn(iterator, first, options);
  if (ready.next === undefined) {
    let text = '';
    for (const message of ready.messages) text += formatSSE(message);
    return new Response(text, { status: 200, headers });
  }
  const body = streamOf(iterator, { messages: ready.messages, next: ready.next }, options);
  return new Response(body, { status: 200, headers });
}

/** Reads the first step of an iterator, catching what it throws (for {@link sseResponse}). */
export async function firstStep<T>(iterator: AsyncIterator<T>): Promise<FirstStep<T>> {
  try {
    return { result: await iterator.next() };
  } catch (error) {
    return { error };
  }
}
