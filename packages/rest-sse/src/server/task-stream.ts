import {
  AgentFailureError,
  AgentPortError,
  CancellationError,
  type TaskLogEntry,
  type TaskRunner,
  type TaskStatusUpdateEvent,
} from '@agentport/core';
import { type SSEMessage, type SSEWriter, sseErrorMessage } from '@agentport/http';

/** The events a store writes itself: not the agent's, so not sent on a REST stream but the end. */
const STORE_EVENT_TYPES: ReadonlySet<string> = new Set([
  'status-update',
  'message',
  'artifact-update',
]);

/** What `#follow` answers once the stream is over. */
const STOPPED = -1;
/** What `#write` answers for the completed task's end. */
const COMPLETED = 'completed';

/** The `error` event of a task that ended without completing. */
function endError(event: TaskStatusUpdateEvent): SSEMessage {
  if (event.error !== undefined) {
    const { code, message } = event.error;
    return { event: 'error', data: JSON.stringify({ code, message }) };
  }
  if (event.status === 'canceled')
    return sseErrorMessage(new CancellationError('The run was canceled'));
  return sseErrorMessage(
    new AgentPortError({
      code: 'agent_failure',
      message: `The run ended ${event.status}`,
      status: 500,
    }),
  );
}

/**
 * Writes a task's log as a REST stream: each agent progress event named by its type, its data
 * the event without its type, its id the event's sequence number; the terminal status update as
 * `done` `{ output }` or `error` `{ code, message }`. Other store events are not sent.
 */
class TaskStreamWriter {
  readonly #writer: SSEWriter;
  readonly #runner: TaskRunner;
  readonly #id: string;
  /** The text of the deltas written, when every one was (the stream started at the first). */
  #text: string | undefined;
  /** Whether the task ended (or the stream is not the run's own): its end cancels nothing. */
  #ended: boolean;

  constructor(writer: SSEWriter, runner: TaskRunner, id: string, options: TaskStreamOptions) {
    this.#writer = writer;
    this.#runner = runner;
    this.#id = id;
    this.#text = options.after === 0 ? '' : undefined;
    this.#ended = !options.cancels;
  }

  /** Follows the log after `after` until the task ends or the stream does; never rejects. */
  async run(after: number): Promise<void> {
    const writer = this.#writer;
    // The caller gone, a slow reader cut off, or shutdown: nobody reads the run any more.
    writer.signal.addEventListener('abort', this.#abandon, { once: true });
    try {
      let from = after;
      while (from !== STOPPED) from = await this.#follow(from);
    } catch (error) {
      writer.write(sseErrorMessage(error));
    } finally {
      writer.close();
    }
  }

  /**
   * Writes the log after `after` until the end: STOPPED, or where to go on from when the events
   * not written yet were dropped by retention (an agent appending faster than this follows, past
   * the store's per-task cap): those are skipped, and `done` says the whole output.
   */
  async #follow(after: number): Promise<number> {
    try {
      const signal = this.#writer.signal;
      for await (const entry of this.#runner.follow(this.#id, { after, signal })) {
        const written = this.#write(entry);
        if (written === COMPLETED) await this.#done(entry);
        if (written !== true) return STOPPED;
      }
      return STOPPED;
    } catch (error) {
      if (!AgentPortError.isInstance(error) || error.code !== 'events_expired') throw error;
      this.#text = undefined;
      const task = await this.#runner.get(this.#id);
      return this.#writer.closed ? STOPPED : task.seq - 1;
    }
  }

  /** The `done` event of the completed task, with its whole output. */
  async #done({ seq, event }: TaskLogEntry): Promise<void> {
    const update = event as TaskStatusUpdateEvent;
    const output = update.output ?? this.#text ?? (await this.#runner.get(this.#id)).output ?? '';
    this.#writer.write({ event: 'done', data: JSON.stringify({ output }), id: seq });
  }

  /** Writes one entry; false once the stream should stop, COMPLETED when `done` is due. */
  #write({ seq, event }: TaskLogEntry): boolean | typeof COMPLETED {
    const writer = this.#writer;
    if (!STORE_EVENT_TYPES.has(event.type)) {
      const { type, ...data } = event;
      let json: string;
      try {
        json = JSON.stringify(data);
      } catch (cause) {
        // An event that cannot be sent (a BigInt, a cycle): the agent's mistake; the stream ends
        // with its failure, and ending cancels the run.
        const agentName = this.#runner.agent.name;
        writer.write({ ...sseErrorMessage(new AgentFailureError({ agentName, cause })), id: seq });
        return false;
      }
      if (type === 'text-delta' && this.#text !== undefined) this.#text += event.delta;
      return writer.write({ event: type, data: json, id: seq });
    }
    if (event.type !== 'status-update') return true;
    const update = event as TaskStatusUpdateEvent;
    if (update.status === 'completed') {
      this.#ended = true;
      return COMPLETED;
    }
    if (
      update.status === 'failed' ||
      update.status === 'canceled' ||
      update.status === 'rejected'
    ) {
      this.#ended = true;
      writer.write({ ...endError(update), id: seq });
      return false;
    }
    return true;
  }

  readonly #abandon = (): void => {
    if (this.#ended) return;
    this.#runner.cancel(this.#id).catch(() => undefined);
  };
}

/** How {@link writeTaskStream} follows a task. */
export interface TaskStreamOptions {
  /** The events after this sequence number are written (0: from the start). */
  after: number;
  /** Whether the stream ending before the task does cancels it (the run's own stream). */
  cancels: boolean;
}

/** Streams a task's run to an SSE writer (see `TaskStreamWriter`) and closes it at the end. */
export function writeTaskStream(
  writer: SSEWriter,
  runner: TaskRunner,
  id: string,
  options: TaskStreamOptions,
): void {
  void new TaskStreamWriter(writer, runner, id, options).run(options.after);
}
