import { isSettledStatus } from '@agentport/core';
import { ParseError } from 'eventsource-parser';
import { MalformedResponseError } from '../errors/malformed-response-error.ts';
import { RemoteHttpError } from '../errors/remote-http-error.ts';
import { RemoteTimeoutError } from '../errors/remote-timeout-error.ts';
import { RemoteUnreachableError } from '../errors/remote-unreachable-error.ts';
import { errorBodySchema, taskResponseSchema } from '../wire/task-schemas.ts';
import type { A2ATask as Task } from '../wire/wire-task.ts';
import { foldTaskEvent } from './fold-task-event.ts';
import {
  errorOf,
  type HttpCall,
  type HttpTransport,
  parseJsonText,
  send,
} from './http-transport.ts';
import { readEvents, type ServerSentEvent, StreamIdleError } from './read-events.ts';

/** The most characters one SSE event may buffer before the stream is rejected. */
const MAX_EVENT_CHARACTERS = 16 * 1024 * 1024;
/** Reading pauses while this many characters of events wait for a slow consumer. */
const READ_AHEAD_CHARACTERS = 1024 * 1024;
/**
 * How many times in a row a broken stream is rejoined (`lastEventId` = the last event seen)
 * without an event arriving in between, before the break is the watch's error.
 */
const MAX_RESUMES = 2;

/**
 * An events stream that sent nothing, not even a heartbeat, for longer than the watch allows: a
 * stalled connection (`remote_timeout`, 504).
 */
export class StalledEventsError extends RemoteTimeoutError {
  constructor(url: string, idleMs: number) {
    super('watchTask', url, idleMs);
    this.name = 'StalledEventsError';
    this.message = `watchTask failed: ${url} sent nothing for ${idleMs} ms, not even a heartbeat`;
  }
}

/** Opens the events stream (after `after`, when rejoining); a failed answer is its error. */
async function openStream(transport: HttpTransport, call: HttpCall) {
  const exchange = await send(transport, call);
  const { response } = exchange;
  try {
    if (!response.ok) throw await errorOf(call, exchange);
    const contentType = response.headers.get('content-type') ?? '';
    if (!contentType.startsWith('text/event-stream') || response.body === null) {
      throw new MalformedResponseError(
        call.operation,
        `${contentType || 'no content type'} instead of an event stream`,
      );
    }
    return { exchange, body: response.body };
  } catch (error) {
    exchange.release();
    await response.body?.cancel().catch(() => undefined);
    throw error;
  }
}

/** The sequence number an SSE event of the log carries as its `id`. */
function seqOf(operation: string, event: ServerSentEvent): number {
  const seq = Number(event.id);
  if (event.id === undefined || !Number.isSafeInteger(seq) || seq < 1) {
    throw new MalformedResponseError(operation, `a ${event.event} event without a sequence id`);
  }
  return seq;
}

/**
 * One events stream: a `task` event is the task as it is; every other named event is one event of
 * its log, folded into the task known so far (`from` when rejoining, else the stream's `task`
 * event; one before any task is skipped); an `error` event is a {@link RemoteHttpError}.
 */
async function* readStream(
  transport: HttpTransport,
  id: string,
  options: WatchStreamOptions,
): AsyncGenerator<Task> {
  const { signal, idleMs, from } = options;
  const call: HttpCall = {
    operation: 'watchTask',
    method: 'GET',
    path: `/tasks/${encodeURIComponent(id)}/events`,
    signal,
    taskId: id,
    accept: 'text/event-stream',
    ...(from === undefined ? {} : { query: { lastEventId: String(from.seq) } }),
  };
  const { exchange, body } = await openStream(transport, call);
  exchange.clear();
  const events = readEvents(body, {
    maxEventCharacters: MAX_EVENT_CHARACTERS,
    readAheadCharacters: READ_AHEAD_CHARACTERS,
    idleMs,
  });
  let task = from;
  try {
    while (true) {
      // Events read ahead are not handed over once the caller has given up.
      if (signal?.aborted) throw exchange.fail(signal.reason);
      let step: IteratorResult<ServerSentEvent>;
      try {
        step = await events.next();
      } catch (error) {
        if (error instanceof StreamIdleError) {
          exchange.release();
          throw new StalledEventsError(`${transport.baseUrl}${call.path}`, error.idleMs);
        }
        if (!(error instanceof ParseError)) throw exchange.fail(error);
        throw new MalformedResponseError(
          call.operation,
          `an event of more than ${MAX_EVENT_CHARACTERS} characters`,
          { cause: error },
        );
      }
      if (step.done) return;
      const { event, data } = step.value;
      if (event === 'task') {
        task = parseJsonText(call.operation, data, taskResponseSchema).task;
      } else if (event === 'error') {
        const { error } = parseJsonText(call.operation, `{"error":${data}}`, errorBodySchema);
        throw new RemoteHttpError({
          operation: call.operation,
          httpStatus: 200,
          remoteCode: error.code,
          remoteMessage: error.message,
        });
      } else if (event !== undefined && task !== undefined) {
        const seq = seqOf(call.operation, step.value);
        // Seen already (a server that resent it): folding it twice would double its change.
        if (seq <= task.seq) continue;
        task = foldTaskEvent(call.operation, task, seq, event, data);
      } else {
        continue;
      }
      yield task;
      if (isSettledStatus(task.status)) return;
    }
  } finally {
    exchange.release();
    await events.return(undefined);
  }
}

/** Options of one events stream of a watch. */
interface WatchStreamOptions {
  signal: AbortSignal | undefined;
  idleMs: number | undefined;
  /** The task as last seen, when rejoining a broken stream after its `seq`. */
  from?: Task | undefined;
}

/** Whether a watch whose stream failed with `error` rejoins it after `task`'s last event. */
function rejoins(error: unknown, task: Task | undefined, signal: AbortSignal | undefined): boolean {
  return (
    error instanceof RemoteUnreachableError &&
    task !== undefined &&
    task.seq > 0 &&
    signal?.aborted !== true
  );
}

/**
 * Streams a task from `GET /tasks/{id}/events`: the task now, then after each event of its log,
 * ending after a terminal task (or when the remote ends the stream). The timeout covers the wait
 * for the response headers only; after them, a stream silent for `idleMs` (no event, no
 * heartbeat) fails with a {@link StalledEventsError} (no limit when undefined). When the
 * connection breaks, the events that arrived before are yielded first; then the stream is
 * rejoined after the last event seen (`lastEventId`), when the task carries sequence numbers,
 * up to {@link MAX_RESUMES} times in a row without an event in between; else the error is thrown.
 */
export async function* watchTask(
  transport: HttpTransport,
  id: string,
  signal: AbortSignal | undefined,
  idleMs: number | undefined,
): AsyncGenerator<Task> {
  let task: Task | undefined;
  let resumes = 0;
  for (;;) {
    try {
      for await (const next of readStream(transport, id, { signal, idleMs, from: task })) {
        task = next;
        resumes = 0;
        yield next;
        if (isSettledStatus(next.status)) return;
      }
      return;
    } catch (error) {
      if (!rejoins(error, task, signal) || resumes >= MAX_RESUMES) throw error;
      resumes += 1;
    }
  }
}
