import {
  followTaskEvents,
  isInterruptedStatus,
  isTerminalStatus,
  type Task,
  TaskNotFoundError,
  type TaskStatusUpdateEvent,
} from '@agentport/core';
import type { Context } from 'hono';
import { lastEventIdOf } from '../last-event-id.ts';
import type { ActionStreamOptions } from '../route-action.ts';
import { type SSEWriter, sseErrorMessage } from '../sse/sse-writer.ts';
import { openSSE } from '../sse/stream-sse.ts';
import type { StreamRuns } from './stream-runs.ts';
import { endMessage, isStreamed, pauseMessage, progressMessage } from './task-sse.ts';

/** Characters written before the replay waits for the reader to catch up (as a2a-http's events). */
const WRITTEN_BEFORE_DRAIN = 64 * 1024;

/**
 * Writes a run's log after `after` as its stream, live to its end (or to its task's pause for
 * the caller, `input-required`, as the run's own stream ended); a reader keeps the run going.
 */
async function writeRejoined(
  writer: SSEWriter,
  runs: StreamRuns,
  id: string,
  contextId: string,
  after: number,
): Promise<void> {
  const run = runs.get(id);
  run?.join();
  try {
    let written = 0;
    for await (const { seq, event } of followTaskEvents(runs.store, id, {
      after,
      signal: writer.signal,
    })) {
      if (isStreamed(event)) {
        const message = progressMessage(seq, event);
        if (!writer.write(message)) return;
        written += message.data.length;
        if (written >= WRITTEN_BEFORE_DRAIN) {
          await writer.drained();
          written = 0;
        }
        continue;
      }
      const update = event as TaskStatusUpdateEvent;
      if (event.type !== 'status-update') continue;
      if (isInterruptedStatus(update.status)) {
        writer.write(pauseMessage(seq, update, undefined, id, contextId));
        return;
      }
      if (!isTerminalStatus(update.status)) continue;
      const output =
        update.status === 'completed' && update.output === undefined
          ? (await runs.store.get(id))?.output
          : undefined;
      writer.write(endMessage(seq, update, undefined, output));
      return;
    }
  } catch (error) {
    writer.write(sseErrorMessage(error));
  } finally {
    run?.leave();
    writer.close();
  }
}

/**
 * The stream of a run rejoined after `Last-Event-ID` (or `?lastEventId`; without one, from its
 * start), the same events as the run's own stream sent, then live to its end or its pause (REST's
 * `GET /{name}/tasks/{id}/stream`, compat's `GET /runs/{id}/stream`). What would fail its first
 * read is a JSON error before it starts, as on a2a-http's `GET /tasks/{id}/events`: 404 for an
 * unknown task or one of an agent `serves` refuses, 400 for an id that is not a number or is
 * beyond the task's last event, 410 when retention dropped the events.
 */
export async function rejoinStream(
  context: Context,
  runs: StreamRuns,
  serves: (agentName: string) => boolean,
  id: string,
  options: ActionStreamOptions,
): Promise<Response> {
  const after = lastEventIdOf(context) ?? 0;
  const task = await runs.store.get(id);
  if (task === undefined || !serves(task.agentName)) throw new TaskNotFoundError(id);
  await runs.store.events(id, { after, limit: 1 });
  return openSSE(context, (writer) => writeTaskLog(writer, runs, task, after), options);
}

/**
 * Writes a task's log after `after` to `writer`, in a run's stream format, live to the task's end
 * or its pause (`input-required`), then closes it: what a rejoin streams once checked, and how a
 * surface streams a task it resumed (after the resumed task's `seq`) when no stream run of its
 * own runs it.
 */
export function writeTaskLog(writer: SSEWriter, runs: StreamRuns, task: Task, after: number): void {
  void writeRejoined(writer, runs, task.id, task.contextId, after);
}
