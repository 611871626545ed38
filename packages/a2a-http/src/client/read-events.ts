import { createParser } from 'eventsource-parser';

/** One server-sent event: its `event` field (the type) and its data. */
export interface ServerSentEvent {
  event: string | undefined;
  data: string;
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
 * Parses an SSE body, reading it ahead of the consumer: events that arrived before the body
 * failed (a reset connection) are all yielded, then the failure is thrown. Piped through web
 * transform streams instead, an error discards every chunk still queued in them, so a consumer
 * slower than the remote would lose the last events before a break.
 */
export async function* readEvents(
  body: ReadableStream<Uint8Array>,
  options: ReadEventsOptions,
): AsyncGenerator<ServerSentEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const queue: ServerSentEvent[] = [];
  let queuedCharacters = 0;
  let failure: { error: unknown } | undefined;
  let ended = false;
  let reading = false;
  let wake: (() => void) | undefined;
  const parser = createParser({
    maxBufferSize: options.maxEventCharacters,
    onEvent({ event, data }) {
      queue.push({ event, data });
      queuedCharacters += data.length;
    },
    onError(error) {
      // Other parse errors (an unknown field, a bad retry) are ignored, as EventSource does.
      if (error.type === 'max-buffer-size-exceeded') failure ??= { error };
    },
  });

  const { idleMs } = options;
  /** A read that waits `idleMs` for the body ends the stream (the remote has gone silent). */
  function stalled(): void {
    failure ??= { error: new StreamIdleError(idleMs as number) };
    reader.cancel().catch(() => undefined);
  }

  async function pump(): Promise<void> {
    reading = true;
    try {
      while (failure === undefined && !ended && queuedCharacters < options.readAheadCharacters) {
        // Only a read under way counts: reading paused for a slow consumer is not the remote's silence.
        const timer = idleMs === undefined ? undefined : setTimeout(stalled, idleMs);
        let step: ReadableStreamReadResult<Uint8Array>;
        try {
          step = await reader.read();
        } finally {
          clearTimeout(timer);
        }
        if (step.done) {
          ended = true;
          parser.feed(decoder.decode());
        } else {
          parser.feed(decoder.decode(step.value, { stream: true }));
        }
        wake?.();
      }
    } catch (error) {
      failure ??= { error };
    } finally {
      reading = false;
      wake?.();
    }
  }

  try {
    while (true) {
      const next = queue.shift();
      if (next !== undefined) queuedCharacters -= next.data.length;
      // Keeps reading while the consumer handles the event (unless enough is queued already).
      if (!reading && failure === undefined && !ended) void pump();
      if (next !== undefined) {
        yield next;
      } else if (failure !== undefined) {
        throw failure.error;
      } else if (ended) {
        return;
      } else {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
