import { isTerminalStatus, type Task } from '@agentport/core';
import { ParseError } from 'eventsource-parser';
import { MalformedResponseError } from '../errors/malformed-response-error.ts';
import { RemoteHttpError } from '../errors/remote-http-error.ts';
import { RemoteTimeoutError } from '../errors/remote-timeout-error.ts';
import { errorBodySchema, taskResponseSchema } from '../wire/task-schemas.ts';
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

/**
 * Streams a task's changes from `GET /tasks/{id}/events`: the task now, then after every change,
 * ending after a terminal task (or when the remote ends the stream). The timeout covers the wait
 * for the response headers only; after them, a stream silent for `idleMs` (no event, no
 * heartbeat) fails with a {@link StalledEventsError} (no limit when undefined). When the stream breaks, the events that
 * arrived before are yielded first, then the error is thrown.
 */
export async function* watchTask(
  transport: HttpTransport,
  id: string,
  signal: AbortSignal | undefined,
  idleMs: number | undefined,
): AsyncGenerator<Task> {
  const call: HttpCall = {
    operation: 'watchTask',
    method: 'GET',
    path: `/tasks/${encodeURIComponent(id)}/events`,
    signal,
    taskId: id,
    accept: 'text/event-stream',
  };
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
  } catch (error) {
    exchange.release();
    await response.body?.cancel().catch(() => undefined);
    throw error;
  }
  exchange.clear();
  const events = readEvents(response.body, {
    maxEventCharacters: MAX_EVENT_CHARACTERS,
    readAheadCharacters: READ_AHEAD_CHARACTERS,
    idleMs,
  });
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
        const { task } = parseJsonText(call.operation, data, taskResponseSchema);
        yield task;
        if (isTerminalStatus(task.status)) return;
      } else if (event === 'error') {
        const { error } = parseJsonText(call.operation, `{"error":${data}}`, errorBodySchema);
        throw new RemoteHttpError({
          operation: call.operation,
          httpStatus: response.status,
          remoteCode: error.code,
          remoteMessage: error.message,
        });
      }
    }
  } finally {
    exchange.release();
    await events.return(undefined);
  }
}
