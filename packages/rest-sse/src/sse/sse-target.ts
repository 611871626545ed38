import { StreamingUnsupportedError } from './streaming-unsupported-error.ts';

/** A web stream target: the controller of a response body `ReadableStream`. */
export interface SSEStreamTarget {
  enqueue(chunk: Uint8Array): void;
  close(): void;
  /** Room left before the queue is full; null once the stream has errored. */
  readonly desiredSize: number | null;
}

/** A Node target: an `http.ServerResponse` (or any writable with the same members). */
export interface SSENodeTarget {
  write(chunk: string): boolean;
  end(chunk?: string): unknown;
  on(event: 'close', listener: () => void): unknown;
  /** Bytes written but not yet handed to the operating system. */
  readonly writableLength: number;
  readonly writableEnded: boolean;
  readonly destroyed: boolean;
  readonly headersSent?: boolean;
  writeHead?(status: number, headers: Record<string, string | string[]>): unknown;
  flushHeaders?(): void;
  destroy?(): unknown;
}

/** Where an SSE writer puts its frames: a web stream controller or a Node response. */
export type SSETarget = SSEStreamTarget | SSENodeTarget;

/** The writer's view of a target: write a frame, measure the backlog, close. */
export interface SSESink {
  write(frame: string): void;
  /** What the reader has not taken yet (bytes for Node and byte-counting streams). */
  buffered(): number;
  close(): void;
  /** Drops the connection (Node); used when a reader never takes the final frames. */
  destroy(): void;
}

/** The headers of every SSE response. */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

const encoder = new TextEncoder();

function isNodeTarget(value: object): value is SSENodeTarget {
  const target = value as Partial<SSENodeTarget>;
  return (
    typeof target.write === 'function' &&
    typeof target.end === 'function' &&
    typeof target.on === 'function' &&
    typeof target.writableLength === 'number'
  );
}

function isStreamTarget(value: object): value is SSEStreamTarget {
  const target = value as Partial<SSEStreamTarget>;
  return (
    typeof target.enqueue === 'function' &&
    typeof target.close === 'function' &&
    'desiredSize' in target
  );
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value !== 'object') return typeof value;
  return value.constructor?.name ?? 'object';
}

function streamSink(controller: SSEStreamTarget, onGone: () => void): SSESink {
  if (controller.desiredSize === null) {
    throw new StreamingUnsupportedError('the stream controller has already errored');
  }
  // What the queue held at creation; the backlog is how far desiredSize has dropped since.
  const capacity = controller.desiredSize;
  return {
    write(frame) {
      try {
        controller.enqueue(encoder.encode(frame));
      } catch {
        // The reader canceled the stream.
        onGone();
      }
    },
    buffered: () => capacity - (controller.desiredSize ?? capacity),
    close() {
      try {
        controller.close();
      } catch {
        // Already closed or canceled.
      }
    },
    destroy() {},
  };
}

function nodeSink(
  response: SSENodeTarget,
  headers: Record<string, string | string[]> | undefined,
  onGone: () => void,
): SSESink {
  if (response.writableEnded || response.destroyed) {
    throw new StreamingUnsupportedError('the response has already ended');
  }
  // Frames written in one tick are joined and written once at its end: one chunk costs far less
  // than one per event, and nothing waits past the current tick. A new response's head goes out
  // then too (with the first events when they come at once), so the caller learns the stream is
  // open even if its first event takes a while.
  let pending = '';
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    const chunk = pending;
    pending = '';
    if (response.writableEnded || response.destroyed) return;
    if (chunk !== '') response.write(chunk);
    else response.flushHeaders?.();
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    process.nextTick(flush);
  };
  if (response.headersSent !== true && response.writeHead !== undefined) {
    response.writeHead(200, { ...headers, ...SSE_HEADERS });
    schedule();
  }
  response.on('close', onGone);
  return {
    write(frame) {
      schedule();
      pending += frame;
    },
    buffered: () => response.writableLength + pending.length,
    close() {
      if (response.writableEnded) return;
      const chunk = pending;
      pending = '';
      if (chunk === '') response.end();
      else response.end(chunk);
    },
    destroy() {
      pending = '';
      response.destroy?.();
    },
  };
}

/**
 * Opens a sink over a target, or throws {@link StreamingUnsupportedError} when it cannot stream;
 * a Node response whose head is not sent yet gets `headers` plus the SSE headers; `onGone` runs
 * when the reader leaves.
 */
export function openSink(
  target: unknown,
  headers: Record<string, string | string[]> | undefined,
  onGone: () => void,
): SSESink {
  if (typeof target === 'object' && target !== null) {
    if (isNodeTarget(target)) return nodeSink(target, headers, onGone);
    if (isStreamTarget(target)) return streamSink(target, onGone);
  }
  throw new StreamingUnsupportedError(
    `expected a ReadableStream controller or a Node ServerResponse, got ${describe(target)}`,
  );
}
