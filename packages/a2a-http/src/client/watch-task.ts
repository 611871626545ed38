import { isTerminalStatus, type Task } from '@agentport/core';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { MalformedResponseError } from '../errors/malformed-response-error.ts';
import { RemoteHttpError } from '../errors/remote-http-error.ts';
import { errorBodySchema, taskResponseSchema } from '../wire/task-schemas.ts';
import {
  errorOf,
  type HttpCall,
  type HttpTransport,
  parseJsonText,
  send,
} from './http-transport.ts';

/** The most characters one SSE event may buffer before the stream is rejected. */
const MAX_EVENT_CHARACTERS = 16 * 1024 * 1024;

/**
 * Streams a task's changes from `GET /tasks/{id}/events`: the task now, then after every change,
 * ending after a terminal task (or when the remote ends the stream). The timeout covers the wait
 * for the response headers only.
 */
export async function* watchTask(
  transport: HttpTransport,
  id: string,
  signal: AbortSignal | undefined,
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
  const reader = response.body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream({ maxBufferSize: MAX_EVENT_CHARACTERS }))
    .getReader();
  try {
    while (true) {
      let step: ReadableStreamReadResult<{ event?: string | undefined; data: string }>;
      try {
        step = await reader.read();
      } catch (error) {
        throw exchange.fail(error);
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
    await reader.cancel().catch(() => undefined);
  }
}
