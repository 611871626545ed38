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

/**
 * Writes a stream's events, waiting for its reader once {@link WRITTEN_BEFORE_DRAIN} characters
 * (events and task snapshots alike) were written since it last caught up.
 */
class PacedWriter {
  readonly writer: SSEWriter;
  #written = 0;

  constructor(writer: SSEWriter) {
    this.writer = writer;
  }

  /** Writes an event; false once the stream has ended. */
  async write(event: string, data: string, id: number): Promise<boolean> {
    if (!this.writer.write({ event, data, id })) return false;
    this.#written += data.length;
    if (this.#written >= WRITTEN_BEFORE_DRAIN) {
      await this.writer.drained();
      this.#written = 0;
    }
    return !this.writer.closed;
  }

  /** Writes the task as it is, as a `task` event numbered by its `seq`; whether the stream goes on. */
  snapshot(task: Task): Promise<boolean> {
    return this.write('task', JSON.stringify({ task: wireTask(task) }), task.seq);
  }
}

/**
 * Writes a task's log entries after `after`, then each new one, until the task ends or pauses
 * (core's `follow` ends once caught up with a paused task); every event is named by its type,
 * carries the event as its data (a pause's `inputRequest` as `inputSchema`, see `wireEvent`) and
 * its sequence number as its id.
 */
async function writeEntries(
  paced: PacedWriter,
  runner: TaskRunner,
  id: string,
  after: number,
): Promise<void> {
  const { signal } = paced.writer;
  for await (const { seq, event } of runner.follow(id, { after, signal })) {
    if (!(await paced.write(event.type, JSON.stringify(wireEvent(event)), seq))) return;
  }
}

/**
 * Writes a task's log after `after` until the task ends. A reader that falls so far behind that
 * retention drops the events it has not read yet (a task appending faster than it reads, past
 * the store's per-task cap) is sent the task as it is then, as a new `task` event, and the log
 * after that: it skips what it could no longer be given, and misses nothing of the task. Those
 * snapshots are paced as events are, so however often retention outruns the reader, its backlog
 * stays bounded.
 */
async function writeLog(
  paced: PacedWriter,
  runner: TaskRunner,
  id: string,
  after: number,
): Promise<void> {
  let from = after;
  for (;;) {
    try {
      await writeEntries(paced, runner, id, from);
      return;
    } catch (error) {
      if (!AgentPortError.isInstance(error) || error.code !== 'events_expired') throw error;
      const task = await runner.get(id);
      if (!(await paced.snapshot(task)) || isTerminalStatus(task.status)) return;
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
        const paced = new PacedWriter(writer);
        if (after !== undefined) return writeLog(paced, runner, id, after);
        if (!(await paced.snapshot(task)) || isTerminalStatus(task.status)) return;
        await writeLog(paced, runner, id, task.seq);
      },
      sseOptions,
    );
  };
}
