import {
  AgentPortError,
  CancellationError,
  type TaskEvent,
  type TaskStatusUpdateEvent,
} from '@agentport/core';
import type { SSEMessage } from '../sse/format-sse.ts';
import { sseErrorMessage } from '../sse/sse-writer.ts';
import { pauseJson } from './stream-run-writes.ts';

/** The events a store writes itself: a run's stream (REST's, compat's) sends none of them but the terminal update. */
const STORE_EVENT_TYPES: ReadonlySet<string> = new Set([
  'status-update',
  'message',
  'artifact-update',
]);

/** Whether a log event is the agent's own progress (sent on a run's stream as it is). */
export function isProgress(event: TaskEvent): boolean {
  return !STORE_EVENT_TYPES.has(event.type);
}

/**
 * Whether a log event goes out on a run's stream as it is: the agent's progress, or an artifact
 * chunk (as the store wrote it: `{ artifactId, name?, parts, append, lastChunk }`).
 */
export function isStreamed(event: TaskEvent): boolean {
  return event.type === 'artifact-update' || !STORE_EVENT_TYPES.has(event.type);
}

/** A progress event as a run's stream sends it: named by its type, its data the rest, its id `seq`. */
export function progressMessage(seq: number, event: TaskEvent, json?: string): SSEMessage {
  if (json !== undefined) return { event: event.type, data: json, id: seq };
  const { type, ...data } = event;
  return { event: type, data: JSON.stringify(data), id: seq };
}

/**
 * The last event of a run's stream when its task paused for the caller (the status update at
 * `seq`): `input-required` `{ question, parts, taskId, contextId }`, `json` its data when the run
 * that paused has it.
 */
export function pauseMessage(
  seq: number,
  update: TaskStatusUpdateEvent,
  json: string | undefined,
  taskId: string,
  contextId: string,
): SSEMessage {
  return {
    event: 'input-required',
    data: json ?? pauseJson(update.message, taskId, contextId),
    id: seq,
  };
}

/**
 * The last event of a run's stream, for its task's terminal status update at `seq`: `done`
 * `{ output }` when completed, else `error` `{ code, message }`; `json` is its data when the run
 * that ended the task still has it (the agent's own `done` or `error` event, as the stream sent
 * it before streams were tasks), `output` the task's output for a completed task.
 */
export function endMessage(
  seq: number,
  update: TaskStatusUpdateEvent,
  json: string | undefined,
  output: string | undefined,
): SSEMessage {
  if (update.status === 'completed') {
    const data = json ?? JSON.stringify({ output: update.output ?? output ?? '' });
    return { event: 'done', data, id: seq };
  }
  if (json !== undefined) return { event: 'error', data: json, id: seq };
  if (update.error !== undefined) {
    const { code, message } = update.error;
    return { event: 'error', data: JSON.stringify({ code, message }), id: seq };
  }
  const error =
    update.status === 'canceled'
      ? new CancellationError('The run was canceled')
      : new AgentPortError({
          code: 'agent_failure',
          message: `The run ended ${update.status}`,
          status: 500,
        });
  return { ...sseErrorMessage(error), id: seq };
}
