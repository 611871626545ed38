import { atEndOfTurn } from './end-of-turn.ts';
import { StreamingUnsupportedError } from './streaming-unsupported-error.ts';

/** A web stream target: the controller of a response body `ReadableStream`. */
export interface SSEStreamTarget {
  enqueue(chunk: Uint8Array): void;
  close(): void;
  /** Room left before the queue is full; null once the stream has errored. */
  readonly desiredSize: number | null;
  /** Errors the stream (a reader cut off); a target without it cannot be cut. */
  error?(reason?: unknown): void;
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
  /**
   * Cuts the reader off at once, dropping what it has not taken: a web stream is errored with
   * `reason`, a Node connection destroyed.
   */
  cut(reason: unknown): void;
}

/** Who a sink tells when the reader leaves. */
export interface SSESinkOwner {
  close(): void;
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

function flushStreamSink(sink: StreamSink): void {
  sink.flush();
}

// Sinks are classes, not objects of closures: an idle stream keeps one small object per sink
// rather than a closure and a context per method.
class StreamSink implements SSESink {
  readonly #controller: SSEStreamTarget;
  readonly #owner: SSESinkOwner;
  /** What the queue held at creation; the backlog is how far desiredSize has dropped since. */
  readonly #capacity: number;
  /** Whether the frames of one turn are joined into one chunk, enqueued at its end. */
  readonly #batch: boolean;
  /** The frames of this turn not enqueued yet (when batching). */
  #pending = '';
  #scheduled = false;

  constructor(controller: SSEStreamTarget, owner: SSESinkOwner, batch: boolean) {
    if (controller.desiredSize === null) {
      throw new StreamingUnsupportedError('the stream controller has already errored');
    }
    this.#controller = controller;
    this.#owner = owner;
    this.#capacity = controller.desiredSize;
    this.#batch = batch;
  }

  write(frame: string): void {
    if (!this.#batch) {
      this.#enqueue(frame);
      return;
    }
    this.#pending += frame;
    if (this.#scheduled) return;
    this.#scheduled = true;
    atEndOfTurn(flushStreamSink, this);
  }

  /** Enqueues the frames of this turn as one chunk (when batching). */
  flush(): void {
    this.#scheduled = false;
    if (this.#pending === '') return;
    const chunk = this.#pending;
    this.#pending = '';
    this.#enqueue(chunk);
  }

  buffered(): number {
    return this.#capacity - (this.#controller.desiredSize ?? this.#capacity) + this.#pending.length;
  }

  close(): void {
    this.flush();
    try {
      this.#controller.close();
    } catch {
      // Already closed or canceled.
    }
  }

  destroy(): void {}

  cut(reason: unknown): void {
    this.#pending = '';
    try {
      this.#controller.error?.(reason);
    } catch {
      // Already closed or canceled.
    }
  }

  #enqueue(chunk: string): void {
    try {
      this.#controller.enqueue(encoder.encode(chunk));
    } catch {
      // The reader canceled the stream.
      this.#owner.close();
    }
  }
}

/** Where a Node response keeps its sink, so one shared 'close' listener serves every response. */
const NODE_SINK = Symbol('agentport.sseSink');
/** Frames of one tick written at once from this size on: a socket's default high-water mark. */
const WRITE_AT_ONCE_CHARS = 64 * 1024;

interface SinkCarrier {
  [NODE_SINK]?: NodeSink;
}

function onResponseClose(this: SinkCarrier): void {
  this[NODE_SINK]?.gone();
}

/**
 * Node keeps a response's head for the life of the response as the string it built header by
 * header: a tree of ~25 rope nodes (~800 bytes) on an SSE stream. Searching it makes V8 flatten it
 * in place into one string (~250 bytes); the head is sent as it was. Nothing happens where the
 * field is missing.
 */
function flattenHead(response: SSENodeTarget): void {
  const head = (response as { _header?: unknown })._header;
  if (typeof head === 'string') head.indexOf('\0');
}

function flushNodeSink(sink: NodeSink): void {
  sink.flush();
}

class NodeSink implements SSESink {
  readonly #response: SSENodeTarget;
  readonly #owner: SSESinkOwner;
  // Frames written in one tick are joined and written once at its end: one chunk costs far less
  // than one per event, and nothing waits past the current tick. A new response's head goes out
  // then too (with the first events when they come at once), so the caller learns the stream is
  // open even if its first event takes a while.
  #pending = '';
  #scheduled = false;
  /** Whether anything was written (the head with it). */
  #wrote = false;

  constructor(
    response: SSENodeTarget,
    headers: Record<string, string | string[]> | undefined,
    owner: SSESinkOwner,
  ) {
    if (response.writableEnded || response.destroyed) {
      throw new StreamingUnsupportedError('the response has already ended');
    }
    this.#response = response;
    this.#owner = owner;
    if (response.headersSent !== true && response.writeHead !== undefined) {
      response.writeHead(200, { ...headers, ...SSE_HEADERS });
      flattenHead(response);
      this.#schedule();
    }
    const carrier = response as SinkCarrier;
    if (carrier[NODE_SINK] === undefined) {
      carrier[NODE_SINK] = this;
      response.on('close', onResponseClose);
    } else {
      // A second writer on the same response (unusual): it gets a listener of its own.
      response.on('close', () => this.gone());
    }
  }

  write(frame: string): void {
    this.#pending += frame;
    // A tick's frames past a socket's high-water mark go at once: held to the end of the tick,
    // an agent's megabyte of events in one tick would read as a backlog the reader never had a
    // chance to take (and end its stream as a slow reader's).
    if (this.#pending.length >= WRITE_AT_ONCE_CHARS) this.#writePending();
    else this.#schedule();
  }

  buffered(): number {
    return this.#response.writableLength + this.#pending.length;
  }

  close(): void {
    const response = this.#response;
    if (response.writableEnded) return;
    const chunk = this.#pending;
    this.#pending = '';
    if (chunk === '') response.end();
    else response.end(chunk);
  }

  destroy(): void {
    this.#pending = '';
    this.#response.destroy?.();
  }

  cut(): void {
    this.destroy();
  }

  /** The reader went away. */
  gone(): void {
    this.#owner.close();
  }

  flush(): void {
    this.#scheduled = false;
    const response = this.#response;
    if (this.#pending !== '') this.#writePending();
    else if (!this.#wrote && !response.writableEnded && !response.destroyed) {
      response.flushHeaders?.();
    }
  }

  #writePending(): void {
    const response = this.#response;
    const chunk = this.#pending;
    this.#pending = '';
    if (response.writableEnded || response.destroyed) return;
    response.write(chunk);
    this.#wrote = true;
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    process.nextTick(flushNodeSink, this);
  }
}

/**
 * Opens a sink over a target, or throws {@link StreamingUnsupportedError} when it cannot stream;
 * a Node response whose head is not sent yet gets `headers` plus the SSE headers; `owner` is
 * closed when the reader leaves. With `batch`, a web stream gets the frames of one turn of the
 * event loop as one chunk at its end (a Node response always gets a tick's frames in one write).
 */
export function openSink(
  target: unknown,
  headers: Record<string, string | string[]> | undefined,
  owner: SSESinkOwner,
  batch = false,
): SSESink {
  if (typeof target === 'object' && target !== null) {
    if (isNodeTarget(target)) return new NodeSink(target, headers, owner);
    if (isStreamTarget(target)) return new StreamSink(target, owner, batch);
  }
  throw new StreamingUnsupportedError(
    `expected a ReadableStream controller or a Node ServerResponse, got ${describe(target)}`,
  );
}
