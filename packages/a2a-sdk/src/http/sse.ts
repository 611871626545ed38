import { formatSSEErrorEvent, formatSSEEvent, SSE_HEADERS } from '@a2a-js/sdk';

/** How to write one stream of SDK events as Server-Sent Events. */
export interface SseOptions<T> {
  /** The `data` of one event. */
  encode(value: T): unknown;
  /** The `data` of the `error` event written when the stream fails midway. */
  encodeError(error: unknown): unknown;
  /** Extra response headers. */
  headers?: Record<string, string>;
  /**
   * A `: heartbeat` comment is written after this long without an event (default 15 s), so
   * proxies and load balancers that cut idle connections (nginx after 60 s) keep a quiet
   * stream open; A2A clients skip SSE comments.
   */
  heartbeatMs?: number;
  /**
   * Stop the iterator (`return()`) when the client goes away, rather than draining it: for a
   * subscription, which persists nothing (a dropped one kept the SDK copying every event of its
   * task to it until the task ended).
   */
  stopWhenGone?: boolean;
  /**
   * How far behind (bytes written but not yet taken) a reader may fall (default 1 MiB), and for
   * how long (default 10 s): a reader still past the cap when that time is up is cut off (its
   * connection closed), so a client that stops reading does not hold its backlog for ever.
   */
  maxBacklogBytes?: number;
  slowReaderGraceMs?: number;
}

const MAX_BACKLOG_BYTES = 1024 * 1024;
const SLOW_READER_GRACE_MS = 10_000;
/** The error a stuck reader's stream ends with (nobody reads it: the connection is closed). */
const SLOW_READER = new Error('The reader fell too far behind; the stream was cut');

/** The SSE comment that keeps an idle stream open, as the REST/SSE surface writes it. */
const HEARTBEAT = ': heartbeat\n\n';
const HEARTBEAT_MS = 15_000;

/** The first step of a stream: its first result, or the error reading it threw. */
export type FirstStep<T> = { result: IteratorResult<T> } | { error: unknown };

const NOT_YET = Symbol('not yet');

/** The step a pending `next()` settles with, or NOT_YET if it does not within this loop turn. */
function stepWithinTurn<T>(
  next: Promise<IteratorResult<T>>,
): Promise<FirstStep<T> | typeof NOT_YET> {
  return new Promise((resolve) => {
    const timer = setImmediate(() => resolve(NOT_YET));
    next.then(
      (result) => {
        clearImmediate(timer);
        resolve({ result });
      },
      (error: unknown) => {
        clearImmediate(timer);
        resolve({ error });
      },
    );
  });
}

/**
 * Answers an SSE response from an iterator whose first step is already known (so that callers
 * can answer errors before the first event as plain JSON). The events ready within the current
 * turn of the event loop, and afterwards each batch of events that arrive within one turn, leave
 * in one write: a quick task's whole stream is a single response body with its headers, instead
 * of a socket write (a syscall) for the headers, each event and the end. When the client goes away
 * the iterator is still drained to its end (the SDK persists task state inside it), without
 * encoding what it yields.
 */
export async function sseResponse<T>(
  iterator: AsyncIterator<T>,
  first: FirstStep<T>,
  options: SseOptions<T>,
): Promise<Response> {
  const headers = { ...SSE_HEADERS, ...options.headers };
  let text = '';
  let next: Promise<IteratorResult<T>> | undefined;
  /** Adds a settled step to `text`; false once the stream is over. */
  const take = (step: FirstStep<T>): boolean => {
    if ('error' in step) {
      text += formatSSEErrorEvent(options.encodeError(step.error));
      return false;
    }
    if (step.result.done === true) return false;
    text += formatSSEEvent(options.encode(step.result.value));
    return true;
  };

  let open = take(first);
  while (open) {
    next = iterator.next();
    const step = await stepWithinTurn(next);
    if (step === NOT_YET) break;
    next = undefined;
    open = take(step);
  }
  if (!open) return new Response(text, { status: 200, headers });

  const encoder = new TextEncoder();
  const stopIterator = () => {
    if (options.stopWhenGone === true) iterator.return?.().catch(() => undefined);
  };
  let judging: ReturnType<typeof setTimeout> | undefined;
  const body = new ReadableStream<Uint8Array>(
    {
      async start(controller) {
        let pending = text;
        let scheduled: ReturnType<typeof setImmediate> | undefined;
        /** Cuts a reader still past the cap once its grace is up (the stream may have ended since). */
        const judge = () => {
          judging = undefined;
          if ((controller.desiredSize ?? 0) >= 0) return;
          open = false;
          stopIterator();
          try {
            controller.error(SLOW_READER);
          } catch {
            // Already errored.
          }
        };
        const flush = () => {
          scheduled = undefined;
          if (!open || pending === '') return;
          const chunk = pending;
          pending = '';
          try {
            controller.enqueue(encoder.encode(chunk));
          } catch {
            open = false;
            return;
          }
          if (judging === undefined && (controller.desiredSize ?? 0) < 0) {
            judging = setTimeout(judge, options.slowReaderGraceMs ?? SLOW_READER_GRACE_MS);
            judging.unref();
          }
        };
        flush();
        // Beats once a whole interval has passed since the last write: each write moves the
        // timer on (`refresh`, no new timer), so a quiet stretch is never longer than that.
        const heartbeat = setTimeout(() => send(HEARTBEAT), options.heartbeatMs ?? HEARTBEAT_MS);
        heartbeat.unref();
        const send = (event: string) => {
          if (!open) return;
          heartbeat.refresh();
          pending += event;
          scheduled ??= setImmediate(flush);
        };
        try {
          for (
            let result = await (next ?? iterator.next());
            result.done !== true;
            result = await iterator.next()
          ) {
            // Once the client has gone, a stream still drained (for its task's sake, see above)
            // encodes nothing more: nobody reads it.
            if (open) send(formatSSEEvent(options.encode(result.value)));
          }
        } catch (error) {
          if (open) send(formatSSEErrorEvent(options.encodeError(error)));
        } finally {
          clearTimeout(heartbeat);
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
        clearTimeout(judging);
        stopIterator();
      },
    },
    {
      highWaterMark: options.maxBacklogBytes ?? MAX_BACKLOG_BYTES,
      size: (chunk) => chunk.byteLength,
    },
  );
  return new Response(body, { status: 200, headers });
}

/** Reads the first step of a stream, catching what it throws. */
export async function firstStep<T>(iterator: AsyncIterator<T>): Promise<FirstStep<T>> {
  try {
    return { result: await iterator.next() };
  } catch (error) {
    return { error };
  }
}
