import { AgentPortError, InvalidInputError, toAgentPortError } from '@agentport/core';
import { formatComment, formatSSE, type SSEMessage } from './format-sse.ts';

/** Where an SSE writer puts its bytes: the controller of a response body stream. */
export interface SSETarget {
  enqueue(chunk: Uint8Array): void;
  close(): void;
  /** How many more bytes the target takes before its buffer is full (null when errored). */
  readonly desiredSize: number | null;
}

/** Options of an SSE writer. */
export interface SSEWriterOptions {
  /** Idle time before a `: heartbeat` comment, in milliseconds; 0 disables (default 15,000). */
  heartbeatMs?: number;
  /** Bytes the reader may fall behind before the stream ends with an error event (default 1 MiB). */
  maxBufferedBytes?: number;
  /** Aborting it ends the stream (the caller went away). */
  signal?: AbortSignal;
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

const encoder = new TextEncoder();

/** The SSE `error` event for anything thrown, with a safe `{ code, message }` payload. */
export function sseErrorMessage(error: unknown): SSEMessage {
  const known = toAgentPortError(error);
  return { event: 'error', data: JSON.stringify({ code: known.code, message: known.message }) };
}

function isTarget(value: unknown): value is SSETarget {
  const target = value as Partial<SSETarget> | null | undefined;
  return typeof target?.enqueue === 'function' && typeof target.close === 'function';
}

/**
 * Creates an SSE writer over a streaming target; throws when the target cannot stream.
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
  if (!isTarget(target) || target.desiredSize === null) {
    throw new InvalidInputError(
      'The SSE writer needs a target that can stream (an open stream controller)',
    );
  }
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const maxBufferedBytes = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
  const ended = new AbortController();
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let idle = true;

  function end(): void {
    if (ended.signal.aborted) return;
    clearInterval(heartbeat);
    options.signal?.removeEventListener('abort', end);
    ended.abort();
    try {
      target.close();
    } catch {
      // The reader already canceled the stream.
    }
  }

  function push(frame: string): boolean {
    if (ended.signal.aborted) return false;
    const chunk = encoder.encode(frame);
    const room = target.desiredSize;
    if (room === null) {
      end();
      return false;
    }
    if (maxBufferedBytes - room + chunk.byteLength > maxBufferedBytes) {
      // The reader is too slow: stop buffering, say why, and end the stream.
      target.enqueue(encoder.encode(formatSSE(sseErrorMessage(slowReader()))));
      end();
      return false;
    }
    target.enqueue(chunk);
    idle = false;
    return true;
  }

  if (heartbeatMs > 0) {
    heartbeat = setInterval(() => {
      if (idle) push(formatComment('heartbeat'));
      idle = true;
    }, heartbeatMs);
    heartbeat.unref?.();
  }
  if (options.signal?.aborted) end();
  options.signal?.addEventListener('abort', end, { once: true });

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

function slowReader(): AgentPortError {
  return new AgentPortError({
    code: 'slow_reader',
    message: 'The reader fell too far behind; the stream was ended',
    status: 503,
  });
}
