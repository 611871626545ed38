import { AgentPortError, CancellationError, toAgentPortError } from '@agentport/core';
import { formatComment, formatSSE, type SSEMessage } from './format-sse.ts';
import { openSink, type SSETarget } from './sse-target.ts';

/** Options of an SSE writer. */
export interface SSEWriterOptions {
  /** Idle time before a `: heartbeat` comment, in milliseconds; 0 disables (default 15,000). */
  heartbeatMs?: number;
  /** Bytes the reader may fall behind before the stream ends with an error event (default 1 MiB). */
  maxBufferedBytes?: number;
  /** Aborting it ends the stream (the caller went away). */
  signal?: AbortSignal;
  /** Extra headers, sent with the SSE headers when the writer starts a Node response. */
  headers?: Record<string, string | string[]>;
}

/** Writes Server-Sent Events to a streaming response. */
export interface SSEWriter {
  /** Writes and flushes one event; false when the stream has already ended. */
  write(message: SSEMessage): boolean;
  /** Writes a comment line; false when the stream has already ended. */
  comment(text: string): boolean;
  /** Ends the stream; idempotent. */
  close(): void;
  readonly closed: boolean;
  /** Aborted when the stream ends for any reason: closed, reader gone, or buffer cap exceeded. */
  readonly signal: AbortSignal;
}

/** The default heartbeat interval: 15 seconds. */
export const DEFAULT_HEARTBEAT_MS = 15_000;
/** The default cap on bytes buffered for a slow reader: 1 MiB. */
export const DEFAULT_MAX_BUFFERED_BYTES = 1024 * 1024;
/** How long a reader past the cap gets to take the final error event before the connection drops. */
const OVERFLOW_GRACE_MS = 10_000;

const HEARTBEAT = formatComment('heartbeat');
/** The abort reason of every ended stream (shared: a fresh DOMException per stream is costly). */
const STREAM_ENDED = new CancellationError('The SSE stream ended');

/** The SSE `error` event for anything thrown, with a safe `{ code, message }` payload. */
export function sseErrorMessage(error: unknown): SSEMessage {
  const known = toAgentPortError(error);
  return { event: 'error', data: JSON.stringify({ code: known.code, message: known.message }) };
}

function slowReader(maxBufferedBytes: number): AgentPortError {
  return new AgentPortError({
    code: 'slow_reader',
    message: `The reader fell more than ${maxBufferedBytes} bytes behind; the stream was ended`,
    status: 503,
  });
}

/**
 * Creates an SSE writer over a streaming target (a `ReadableStream` controller or a Node
 * `ServerResponse`); throws a `StreamingUnsupportedError` when the target cannot stream.
 *
 * @example
 * const body = new ReadableStream<Uint8Array>({
 *   start(controller) {
 *     const writer = createSSEWriter(controller);
 *     writer.write({ event: 'hello', data: 'world', id: 1 });
 *     writer.close();
 *   },
 * });
 */
export function createSSEWriter(target: SSETarget, options: SSEWriterOptions = {}): SSEWriter {
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const maxBufferedBytes = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
  const { signal } = options;
  const ended = new AbortController();
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let idle = true;
  const sink = openSink(target, options.headers, () => end());

  function end(): void {
    if (ended.signal.aborted) return;
    clearInterval(heartbeat);
    signal?.removeEventListener('abort', end);
    ended.abort(STREAM_ENDED);
    sink.close();
  }

  function overflow(): void {
    sink.write(formatSSE(sseErrorMessage(slowReader(maxBufferedBytes))));
    end();
    // A reader that never reads would hold the backlog forever: drop it after a grace period.
    setTimeout(() => sink.destroy(), OVERFLOW_GRACE_MS).unref?.();
  }

  function push(frame: string): boolean {
    if (ended.signal.aborted) return false;
    if (sink.buffered() > maxBufferedBytes) {
      overflow();
      return false;
    }
    sink.write(frame);
    idle = false;
    return !ended.signal.aborted;
  }

  if (heartbeatMs > 0) {
    heartbeat = setInterval(() => {
      if (idle) push(HEARTBEAT);
      idle = true;
    }, heartbeatMs);
    heartbeat.unref?.();
  }
  if (signal?.aborted) end();
  else signal?.addEventListener('abort', end, { once: true });

  return {
    write: (message) => push(formatSSE(message)),
    comment: (text) => push(formatComment(text)),
    close: end,
    get closed() {
      return ended.signal.aborted;
    },
    signal: ended.signal,
  };
}
