import { AgentPortError, CancellationError, toAgentPortError } from '@agentport/core';
import { ShuttingDownError } from '../errors/shutting-down-error.ts';
import { formatComment, formatSSE, type SSEMessage } from './format-sse.ts';
import { type HeartbeatMember, joinHeartbeat, leaveHeartbeat } from './heartbeat.ts';
import { openSink, type SSESink, type SSESinkOwner, type SSETarget } from './sse-target.ts';

/** Options of an SSE writer. */
export interface SSEWriterOptions {
  /**
   * The longest an open stream stays silent, in milliseconds: a `: heartbeat` comment is written
   * after 0.75-1x of it without a write; 0 disables (default 15,000).
   */
  heartbeatMs?: number;
  /**
   * Bytes the reader may fall behind before the stream ends with an error event (default 1 MiB);
   * the event written last is not counted, so one event larger than the cap still goes out.
   */
  maxBufferedBytes?: number;
  /** Aborting it ends the stream (the caller went away). */
  signal?: AbortSignal;
  /** Aborting it ends the stream with a final `error` event `shutting_down` (the server stops). */
  shutdownSignal?: AbortSignal;
  /**
   * Called once when the stream ends, for any reason (what `signal` tells, without the cost of a
   * listener on it): for work that outlives its reader and must know it left.
   */
  onClose?: () => void;
  /** Extra headers, sent with the SSE headers when the writer starts a Node response. */
  headers?: Record<string, string | string[]>;
  /**
   * How long a reader past `maxBufferedBytes` is given to get back under it. Unset (the default),
   * the write that finds it past the cap ends the stream with a `slow_reader` error event; set, the
   * stream goes on, and a reader still past the cap that long later is cut off without a last event
   * (a web stream errored, a Node connection destroyed), the stream ended or not: for a protocol
   * whose error events are not ours, and to let a reader take a burst larger than the cap.
   */
  slowReaderGraceMs?: number;
  /**
   * Over a web stream, join the frames written within one turn of the event loop into one chunk,
   * enqueued at its end, so a burst of events leaves in one write (default false: each frame is
   * enqueued at once). A Node response always joins the frames of one tick.
   */
  batchWrites?: boolean;
}

/** Writes Server-Sent Events to a streaming response. */
export interface SSEWriter {
  /** Writes and flushes one event; false when the stream has already ended. */
  write(message: SSEMessage): boolean;
  /** Writes a comment line; false when the stream has already ended. */
  comment(text: string): boolean;
  /**
   * Resolves once the reader has taken everything written so far, the stream has ended, or 10 s
   * have passed: a writer of whole snapshots (each event replacing the last) waits on it and
   * then writes only the newest, rather than queueing every one for a reader that takes them
   * slower than they come, which would end the stream with `slow_reader`. A reader that takes
   * nothing for 10 s is not waited for longer: the writes that follow end its stream as
   * `slow_reader` once it is more than the cap behind.
   */
  drained(): Promise<void>;
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
/** How often `drained` looks at the backlog while the reader catches up. */
const DRAIN_CHECK_MS = 10;

/** Resolves after `ms`, on a timer that keeps no process alive. */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref?.());
}
/**
 * Idle checks per heartbeat interval: a stream beats on the fourth check without a write, so it
 * is never silent for longer than the interval (and at least three quarters of it).
 */
const CHECKS_PER_HEARTBEAT = 4;

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
  return new StreamWriter(target, options);
}

/**
 * The open writers of each shutdown signal: one abort listener per signal serves all of them, so a
 * writer costs a set entry instead of a listener and a bound function.
 */
const shutdownGroups = new WeakMap<AbortSignal, Set<StreamWriter>>();

function joinShutdown(signal: AbortSignal, writer: StreamWriter): void {
  let members = shutdownGroups.get(signal);
  if (members === undefined) {
    const group = new Set<StreamWriter>();
    members = group;
    shutdownGroups.set(signal, group);
    signal.addEventListener(
      'abort',
      () => {
        shutdownGroups.delete(signal);
        for (const member of group) member.shutDown();
        group.clear();
      },
      { once: true },
    );
  }
  members.add(writer);
}

/**
 * A stream that ended more than the cap ahead of its reader: the reader is dropped if it takes
 * nothing of that backlog in a grace period (one that keeps taking it is given another), rather
 * than holding it for as long as it stays connected.
 */
function dropIfStuck(sink: SSESink, left: number): void {
  setTimeout(() => {
    const now = sink.buffered();
    if (now >= left) sink.destroy();
    else if (now > 0) dropIfStuck(sink, now);
  }, OVERFLOW_GRACE_MS).unref?.();
}

class StreamWriter implements SSEWriter, HeartbeatMember, SSESinkOwner, EventListenerObject {
  readonly #sink: SSESink;
  readonly #ended = new AbortController();
  /** How often the heartbeat group checks this stream for silence; 0 when heartbeats are off. */
  readonly #checkEveryMs: number;
  readonly #maxBufferedBytes: number;
  readonly #signal: AbortSignal | undefined;
  readonly #shutdownSignal: AbortSignal | undefined;
  readonly #onClose: (() => void) | undefined;
  /** Idle checks since the last write (joining counts as a write). */
  #idleChecks = 0;
  /**
   * The id of the writer's own final event (`shutting_down`, `slow_reader`): the number after the
   * last numeric id written, so it continues the stream's sequence; none after a string id.
   */
  #nextId: number | undefined = 1;
  /** The size of the frame written last, which the backlog check leaves out. */
  #lastFrameSize = 0;
  /** See {@link SSEWriterOptions.slowReaderGraceMs}. */
  readonly #slowReaderGraceMs: number | undefined;
  /** Whether a grace period is running for a reader past the cap. */
  #judging = false;

  constructor(target: SSETarget, options: SSEWriterOptions) {
    this.#checkEveryMs = (options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS) / CHECKS_PER_HEARTBEAT;
    this.#maxBufferedBytes = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
    this.#signal = options.signal;
    this.#shutdownSignal = options.shutdownSignal;
    this.#onClose = options.onClose;
    this.#slowReaderGraceMs = options.slowReaderGraceMs;
    this.#sink = openSink(target, options.headers, this, options.batchWrites === true);
    if (this.#checkEveryMs > 0) joinHeartbeat(this.#checkEveryMs, this);
    // The writer is its own abort listener (handleEvent): no bound function per stream.
    if (this.#signal?.aborted) this.close();
    else this.#signal?.addEventListener('abort', this, { once: true });
    if (this.#shutdownSignal === undefined || this.#ended.signal.aborted) return;
    if (this.#shutdownSignal.aborted) this.shutDown();
    else joinShutdown(this.#shutdownSignal, this);
  }

  get closed(): boolean {
    return this.#ended.signal.aborted;
  }

  get signal(): AbortSignal {
    return this.#ended.signal;
  }

  write(message: SSEMessage): boolean {
    return this.#push(formatSSE(message), message.id);
  }

  comment(text: string): boolean {
    return this.#push(formatComment(text));
  }

  async drained(): Promise<void> {
    const until = Date.now() + OVERFLOW_GRACE_MS;
    // The frames of this turn go out at its end (see the Node sink): look after that.
    await pause(0);
    while (!this.#ended.signal.aborted && this.#sink.buffered() > 0 && Date.now() < until) {
      await pause(DRAIN_CHECK_MS);
    }
  }

  close(): void {
    if (this.#ended.signal.aborted) return;
    if (this.#checkEveryMs > 0) leaveHeartbeat(this.#checkEveryMs, this);
    this.#signal?.removeEventListener('abort', this);
    if (this.#shutdownSignal !== undefined) shutdownGroups.get(this.#shutdownSignal)?.delete(this);
    this.#ended.abort(STREAM_ENDED);
    this.#sink.close();
    const left = this.#sink.buffered();
    if (left > this.#maxBufferedBytes) dropIfStuck(this.#sink, left);
    this.#onClose?.();
  }

  /** The caller's signal aborted. */
  handleEvent(): void {
    this.close();
  }

  beat(): void {
    this.#idleChecks += 1;
    if (this.#idleChecks >= CHECKS_PER_HEARTBEAT) this.#push(HEARTBEAT);
  }

  /** The server is stopping: a last `shutting_down` error event, then the end. */
  shutDown(): void {
    this.write(this.#finalEvent(new ShuttingDownError()));
    this.close();
  }

  /** The writer's own last event: an error event numbered after the stream's events. */
  #finalEvent(error: AgentPortError): SSEMessage {
    const message = sseErrorMessage(error);
    if (this.#nextId !== undefined) message.id = this.#nextId;
    return message;
  }

  #push(frame: string, id?: string | number): boolean {
    if (this.#ended.signal.aborted) return false;
    // What the reader has not taken, but for the frame written last, which it may not have had
    // a chance to take (one large event): the backlog stays under the cap plus one frame.
    if (
      this.#slowReaderGraceMs === undefined &&
      this.#sink.buffered() - this.#lastFrameSize > this.#maxBufferedBytes
    ) {
      this.#overflow();
      return false;
    }
    this.#sink.write(frame);
    this.#lastFrameSize = frame.length;
    if (id !== undefined) this.#nextId = typeof id === 'number' ? id + 1 : undefined;
    this.#idleChecks = 0;
    if (this.#slowReaderGraceMs !== undefined && !this.#judging) this.#judgeLater();
    return !this.#ended.signal.aborted;
  }

  /** Gives a reader past the cap its grace, then cuts it off if it is still past it. */
  #judgeLater(): void {
    if (this.#sink.buffered() <= this.#maxBufferedBytes) return;
    this.#judging = true;
    setTimeout(() => {
      this.#judging = false;
      if (this.#sink.buffered() <= this.#maxBufferedBytes) return;
      this.#sink.cut(slowReader(this.#maxBufferedBytes));
      this.close();
    }, this.#slowReaderGraceMs).unref?.();
  }

  #overflow(): void {
    const sink = this.#sink;
    sink.write(formatSSE(this.#finalEvent(slowReader(this.#maxBufferedBytes))));
    this.close();
    // A reader that never reads would hold the backlog forever: drop it after a grace period.
    setTimeout(() => sink.destroy(), OVERFLOW_GRACE_MS).unref?.();
  }
}
