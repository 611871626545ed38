import { AgentPortError, isTerminalStatus, type Task, type TaskRunner } from '@agentport/core';
import { lastEventIdOf, SSE_HEADERS, type SSEWriter, streamSSE } from '@agentport/http';
import type { Context, Env } from 'hono';
import { wireEvent, wireTask } from '../wire/wire-task.ts';

/**
 * Characters written since the reader last caught up before the stream waits for it again: the
 * reader's backlog stays near this (far under the writer's 1 MiB cap), and the log is read from
 * the store at the reader's pace, however far behind it is. Waiting after every event instead
 * would cost a timer turn (~1 ms) per event, ten seconds for a replay of 10,000 text deltas.
 */
const WRITTEN_BEFORE_DRAIN = 64 * 1024;

/** Options of {@link taskEventsHandler}. */
export interface TaskEventsOptions {
  runner: TaskRunner;
  /** Idle time before an SSE heartbeat comment, in milliseconds. */
  heartbeatMs?: number | undefined;
}

/** Writes the task as it is, as a `task` event numbered by its `seq`; whether it is finished. */
function writeSnapshot(writer: SSEWriter, task: Task): boolean {
  writer.write({ event: 'task', data: JSON.stringify({ task: wireTask(task) }), id: task.seq });
  return isTerminalStatus(task.status);
}

/**
 * Writes a task's log entries after `after`, then each new one, until the task ends or pauses
 * (core's `follow` ends once caught up with a paused task); every event is named by its type,
 * carries the event as its data (a pause's `inputRequest` as `inputSchema`, see `wireEvent`) and
 * its sequence number as its id.
 */
async function writeEntries(
  writer: SSEWriter,
  runner: TaskRunner,
  id: string,
  after: number,
): Promise<void> {
  let written = 0;
  for await (const { seq, event } of runner.follow(id, { after, signal: writer.signal })) {
    const data = JSON.stringify(wireEvent(event));
    if (!writer.write({ event: event.type, data, id: seq })) return;
    written += data.length;
    if (written >= WRITTEN_BEFORE_DRAIN) {
      await writer.drained();
      written = 0;
    }
  }
}

/**
 * Writes a task's log after `after` until the task ends. A reader that falls so far behind that
 * retention drops the events it has not read yet (a task appending faster than it reads, past
 * the store's per-task cap) is sent the task as it is then, as a new `task` event, and the log
 * after that: it skips what it could no longer be given, and misses nothing of the task.
 */
async function writeLog(
  writer: SSEWriter,
  runner: TaskRunner,
  id: string,
  after: number,
): Promise<void> {
  let from = after;
  for (;;) {
    try {
      await writeEntries(writer, runner, id, from);
      return;
    } catch (error) {
      if (!AgentPortError.isInstance(error) || error.code !== 'events_expired') throw error;
      const task = await runner.get(id);
      if (writer.closed || writeSnapshot(writer, task)) return;
      from = task.seq;
    }
  }
}

/**
 * `GET /tasks/{id}/events`: without `Last-Event-ID`, a `task` event with the task as it is
 * (`data: {"task": Task}`, id its `seq`), then every later event of its log; with
 * `Last-Event-ID: N` (or `?lastEventId=N`), the events after N. Either way it follows live and
 * ends after the terminal status update (a reader that fell behind the log's retention is sent a
 * new `task` event, see `writeLog`). What would fail the stream's first read is answered as
 * JSON before it starts: 404 for an unknown task (or another agent's), 400 for an id that is not
 * a number or is beyond the task's last event, 410 `events_expired` when retention dropped them.
 */
export function taskEventsHandler(options: TaskEventsOptions) {
  const { runner } = options;
  const sseOptions = options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs };
  return async function taskEvents(context: Context<Env, '/tasks/:id/events'>): Promise<Response> {
    const id = context.req.param('id');
    const after = lastEventIdOf(context);
    const task = await runner.get(id);
    if (after !== undefined) await runner.events(id, { after, limit: 1 });
    // Hono answers HEAD with the GET handler's headers: never start a stream nobody reads.
    if (context.req.raw.method === 'HEAD') return new Response(null, { headers: SSE_HEADERS });
    return streamSSE(
      context,
      async (writer) => {
        if (after !== undefined) return writeLog(writer, runner, id, after);
        if (writeSnapshot(writer, task)) return;
        await writeLog(writer, runner, id, task.seq);
      },
      sseOptions,
    );
  };
}
