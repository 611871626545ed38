import { createParser, type EventSourceParser } from 'eventsource-parser';

/** One server-sent event: its `event` field (the type), its data and its `id`, if any. */
export interface ServerSentEvent {
  event: string | undefined;
  data: string;
  id: string | undefined;
}

/** Options of {@link readEvents}. */
export interface ReadEventsOptions {
  /** The most characters one event may buffer; a longer one ends the stream with a `ParseError`. */
  maxEventCharacters: number;
  /** Reading pauses while this many characters of parsed events wait for the consumer. */
  readAheadCharacters: number;
  /**
   * How long the body may send nothing (no event, no comment) while a read waits for it; past
   * that the stream ends with a {@link StreamIdleError}. Undefined: no limit.
   */
  idleMs?: number | undefined;
}

/** The body sent nothing for `idleMs` while it was being read: a stalled connection. */
export class StreamIdleError extends Error {
  readonly idleMs: number;

  constructor(idleMs: number) {
    super(`The event stream sent nothing for ${idleMs} ms`);
    this.name = 'StreamIdleError';
    this.idleMs = idleMs;
  }
}

/**
 * The events parsed from a body ahead of its consumer, and the reading that fills them: reading
 * runs while fewer than `readAheadCharacters` wait, and stops at the body's end or a failure.
 */
class ReadAhead {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  readonly #parser: EventSourceParser;
  readonly #options: ReadEventsOptions;
  readonly #queue: ServerSentEvent[] = [];
  #queuedCharacters = 0;
  #reading = false;
  #wake: (() => void) | undefined;
  /** Why the stream ends before the body does, once something failed. */
  failure: { error: unknown } | undefined;
  /** Whether the whole body has been read. */
  ended = false;

  constructor(body: ReadableStream<Uint8Array>, options: ReadEventsOptions) {
    this.#reader = body.getReader();
    this.#options = options;
    this.#parser = createParser({
      maxBufferSize: options.maxEventCharacters,
      onEvent: ({ event, data, id }) => {
        this.#queue.push({ event, data, id });
        this.#queuedCharacters += data.length;
      },
      onError: (error) => {
        // Other parse errors (an unknown field, a bad retry) are ignored, as EventSource does.
        if (error.type === 'max-buffer-size-exceeded') this.failure ??= { error };
      },
    });
  }

  /**
   * The first queued event, if any; reading goes on meanwhile, so that it continues while the
   * consumer handles the event (unless enough is queued already).
   */
  take(): ServerSentEvent | undefined {
    const next = this.#queue.shift();
    if (next !== undefined) this.#queuedCharacters -= next.data.length;
    if (!this.#reading && this.failure === undefined && !this.ended) void this.#pump();
    return next;
  }

  /** Resolves once reading has brought something: an event, the end or a failure. */
  arrival(): Promise<void> {
    return new Promise((resolve) => {
      this.#wake = () => {
        this.#wake = undefined;
        resolve();
      };
    });
  }

  /** Stops reading the body. */
  cancel(): Promise<void> {
    return this.#reader.cancel().catch(() => undefined);
  }

  async #pump(): Promise<void> {
    const { idleMs, readAheadCharacters } = this.#options;
    this.#reading = true;
    try {
      while (
        this.failure === undefined &&
        !this.ended &&
        this.#queuedCharacters < readAheadCharacters
      ) {
        // Only a read under way counts: reading paused for a slow consumer is not the remote's silence.
        const timer =
          idleMs === undefined ? undefined : setTimeout(() => this.#stalled(idleMs), idleMs);
        let step: ReadableStreamReadResult<Uint8Array>;
        try {
          step = await this.#reader.read();
        } finally {
          clearTimeout(timer);
        }
        if (step.done) {
          this.ended = true;
          this.#parser.feed(this.#decoder.decode());
        } else {
          this.#parser.feed(this.#decoder.decode(step.value, { stream: true }));
        }
        this.#wake?.();
      }
    } catch (error) {
      this.failure ??= { error };
    } finally {
      this.#reading = false;
      this.#wake?.();
    }
  }

  /** A read that waits `idleMs` for the body ends the stream (the remote has gone silent). */
  #stalled(idleMs: number): void {
    this.failure ??= { error: new StreamIdleError(idleMs) };
    void this.cancel();
  }
}

/**
 * Parses an SSE body, reading it ahead of the consumer: events that arrived before the body
 * failed (a reset connection) are all yielded, then the failure is thrown. Piped through web
 * transform streams instead, an error discards every chunk still queued in them, so a consumer
 * slower than the remote would lose the last events before a break.
 */
export async function* readEvents(
  body: ReadableStream<Uint8Array>,
  options: ReadEventsOptions,
): AsyncGenerator<ServerSentEvent> {
  const readAhead = new ReadAhead(body, options);
  try {
    while (true) {
      const next = readAhead.take();
      if (next !== undefined) {
        yield next;
      } else if (readAhead.failure !== undefined) {
        throw readAhead.failure.error;
      } else if (readAhead.ended) {
        return;
      } else {
        await readAhead.arrival();
      }
    }
  } finally {
    await readAhead.cancel();
  }
}
