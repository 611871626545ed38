import {
  type AgentEvent,
  AgentFailureError,
  type AgentInput,
  type AgentPortError,
  type AgentRunOptions,
  type ArtifactUpdateEvent,
  CancellationError,
  isInterruptedStatus,
  isTerminalStatus,
  type Message,
  type Task,
  type TaskArtifactChunk,
  type TaskEvent,
  type TaskPatch,
  type TaskProgressEvent,
  type TaskStatusUpdateEvent,
  toAgentPortError,
  UNFINISHED_STATUSES,
} from '@agentport/core';
import {
  type AgentEventObserver,
  afterMicrotasks,
  checkedOutput,
  observeAgentEvents,
  toAgentFailure,
} from '@agentport/core/internal';
import { type SSEWriter, sseErrorMessage } from '../sse/sse-writer.ts';
import type { StreamedAgent, StreamRunHost } from './stream-run-host.ts';
import {
  chunkOf,
  endOf,
  failedEnd,
  faultOf,
  hasChunks,
  isTerminalConflict,
  type PendingEvent,
  type RunEnd,
  turnRecord,
  withProgress,
  writeInOrder,
} from './stream-run-writes.ts';
import { endMessage, isProgress, isStreamed, pauseMessage, progressMessage } from './task-sse.ts';

const FROM_WORKING = Object.freeze({ expectedStatus: 'working' as const });
const FROM_UNFINISHED = Object.freeze({ expectedStatus: UNFINISHED_STATUSES });
const CANCEL: TaskPatch = Object.freeze({ status: 'canceled' });
const STREAM_LEFT = new CancellationError('The run was canceled');
const ignore = (): void => undefined;

/**
 * One streamed run (REST's `POST /{name}/stream`, compat's `POST /runs`), a task of its store:
 * the agent's events go to the task's log (those of one turn in one write, the last ones with
 * the update that ends it; artifact chunks as updates of its artifacts, in order), and the
 * reader is written what the store says it appended, in its order and with its sequence
 * numbers, as the store tells its listener (`changed`), in the same step: a cancel from anywhere
 * lands in the stream where it lands in the log. The reader leaving starts a grace period; a run
 * nobody reads (nor rejoins) when it runs out is canceled, which aborts its agent. A run whose
 * agent pauses (`input-required`) ends there, its task waiting for the caller's answer.
 */
export class StreamRun implements AgentEventObserver {
  readonly id: string;
  /** The conversation of the run's task. */
  readonly contextId: string;
  readonly #host: StreamRunHost;
  readonly #agent: StreamedAgent;
  readonly #controller = new AbortController();
  /** The caller's message as the task holds it (the store's copy), else its text (its input). */
  readonly #input: AgentInput;
  /** The conversation's earlier messages, until the agent is handed them. */
  #history: readonly Message[] | undefined;
  /** The stream's own reader, until it leaves. */
  #writer: SSEWriter | undefined;
  /** The sequence number of the last event of the log this run has been told of. */
  #seen: number;
  /** The readers that rejoined it (streams of its log), which keep it going without `#writer`. */
  #readers = 0;
  #grace: ReturnType<typeof setTimeout> | undefined;
  /** The agent's events not given to the store yet, and their SSE data (progress events only). */
  #pending: PendingEvent[] | undefined;
  #pendingJson: string[] | undefined;
  /** The SSE data of the events of the store write under way, for `changed` to send. */
  #writingJson: readonly string[] | undefined;
  /** The appends under way, one after the other. */
  #appending: Promise<void> | undefined;
  #scheduled = false;
  /** The run's end, once the agent gave it: no more events are taken. */
  #end: RunEnd | undefined;
  /** The task is over for this run (terminal, or paused for its caller). */
  #ended = false;

  constructor(host: StreamRunHost, agent: StreamedAgent, task: Task, history?: readonly Message[]) {
    this.#host = host;
    this.#agent = agent;
    this.id = task.id;
    this.contextId = task.contextId;
    this.#seen = task.seq;
    this.#input = task.messages[0] ?? task.input;
    this.#history = history;
  }

  /**
   * Starts the agent, its events streamed to `writer` (the run's own reader): it is handed
   * `input` (default: the caller's message as the task holds it, or its text), the earlier
   * messages, the `contextId` and the `taskId`.
   */
  open(writer: SSEWriter, input?: AgentInput): void {
    this.#writer = writer;
    const options: AgentRunOptions = {
      signal: this.#controller.signal,
      contextId: this.contextId,
      taskId: this.id,
    };
    if (this.#history !== undefined) options.history = this.#history;
    this.#history = undefined;
    let events: AsyncIterable<AgentEvent>;
    try {
      events = this.#agent.stream(input ?? this.#input, options);
    } catch (error) {
      this.error(error);
      return;
    }
    observeAgentEvents(events, this);
  }

  next(event: AgentEvent): boolean {
    if (this.#end !== undefined || this.#ended) return false;
    const { type, ...data } = event;
    let json: string;
    try {
      const fault = faultOf(event);
      if (fault !== undefined) throw new TypeError(`Agent '${this.#agent.name}' yielded ${fault}`);
      if (type === 'done') checkedOutput(event.output, this.#agent.name);
      json = type === 'input-required' ? '' : JSON.stringify(data);
    } catch (cause) {
      // An event the log could not keep or the stream could not send (a BigInt, a cycle, a
      // line break in its type, an output that is not a string): the agent's mistake.
      this.#fail(new AgentFailureError({ agentName: this.#agent.name, cause }));
      return false;
    }
    if (type === 'done' || type === 'error' || type === 'input-required') {
      this.#finish(endOf(event, json, this.#agent.name, this.id, this.contextId));
      return false;
    }
    if (type === 'artifact-update') this.#add(chunkOf(event as ArtifactUpdateEvent), undefined);
    else this.#add(event as TaskProgressEvent, json);
    return true;
  }

  error(error: unknown): void {
    this.#fail(toAgentFailure(error, this.#agent.name));
  }

  complete(): void {
    if (this.#end !== undefined || this.#ended) return;
    const agentName = this.#agent.name;
    this.#fail(
      new AgentFailureError({ agentName, message: `Agent '${agentName}' ended without a result` }),
    );
  }

  /** The store changed the task (see `TaskListener`): what it appended goes to the reader. */
  changed(task: Task, events: readonly TaskEvent[]): void {
    const first = task.seq - events.length + 1;
    // A store that told of fewer events than it appended: read the log from the last one seen.
    if (first !== this.#seen + 1) {
      if (task.seq > this.#seen) void this.#catchUp();
      return;
    }
    const json = this.#writingJson;
    let progress = 0;
    for (let index = 0; index < events.length; index += 1) {
      const event = events[index] as TaskEvent;
      const own = isProgress(event) ? json?.[progress++] : undefined;
      this.#deliver(first + index, event, own, task.output);
    }
  }

  /** A reader rejoined the run: it goes on while one reads. */
  join(): void {
    this.#readers += 1;
    this.#stopGrace();
  }

  /** A rejoined reader left. */
  leave(): void {
    this.#readers -= 1;
    if (this.#writer === undefined) this.#startGrace();
  }

  /** Cancels the task (its agent is aborted once the store says so). */
  cancel(): void {
    if (this.#ended) return;
    this.#host.store.update(this.id, CANCEL, FROM_UNFINISHED).then(ignore, () => {
      // The store could not cancel it: stop the agent all the same.
      this.#controller.abort(STREAM_LEFT);
    });
  }

  /**
   * The stream's reader left (it went away, fell too far behind, or the server is stopping): the
   * writer's `onClose`, also called when the run closes it.
   */
  left(): void {
    this.#writer = undefined;
    if (this.#ended) return;
    if (this.#host.closing.aborted) this.cancel();
    else this.#startGrace();
  }

  #startGrace(): void {
    if (this.#ended || this.#readers > 0 || this.#grace !== undefined) return;
    this.#grace = setTimeout(() => {
      this.#grace = undefined;
      if (this.#readers === 0 && this.#writer === undefined) this.cancel();
    }, this.#host.graceMs);
    this.#grace.unref?.();
  }

  #stopGrace(): void {
    if (this.#grace === undefined) return;
    clearTimeout(this.#grace);
    this.#grace = undefined;
  }

  /** One event of the log, at `seq`, to the reader; the terminal one (or a pause) ends the run. */
  #deliver(seq: number, event: TaskEvent, json: string | undefined, output?: string): void {
    this.#seen = seq;
    if (isStreamed(event)) {
      this.#writer?.write(progressMessage(seq, event, json));
      return;
    }
    if (event.type !== 'status-update') return;
    const update = event as TaskStatusUpdateEvent;
    if (isTerminalStatus(update.status) || isInterruptedStatus(update.status))
      this.#close(seq, update, output);
  }

  /** The task ended (the agent's end or pause, a cancel, a failure): the last event, and the run is over. */
  #close(seq: number, update: TaskStatusUpdateEvent, output: string | undefined): void {
    this.#ended = true;
    this.#stopGrace();
    const own = update.status === 'canceled' ? undefined : this.#end?.json;
    const writer = this.#writer;
    if (writer !== undefined) {
      this.#writer = undefined;
      writer.write(
        isInterruptedStatus(update.status)
          ? pauseMessage(seq, update, own, this.id, this.contextId)
          : endMessage(seq, update, own, output),
      );
      writer.close();
    }
    // An agent that completed or paused has ended: nothing to stop.
    if (update.status !== 'completed' && !isInterruptedStatus(update.status))
      this.#controller.abort(STREAM_LEFT);
    this.#pending = undefined;
    this.#pendingJson = undefined;
    this.#host.ended(this);
  }

  /** Reads the log after the last event seen, when the store told of fewer than it appended. */
  async #catchUp(): Promise<void> {
    try {
      const entries = await this.#host.store.events(this.id, { after: this.#seen });
      for (const { seq, event } of entries) {
        if (seq === this.#seen + 1 && !this.#ended) this.#deliver(seq, event, undefined);
      }
    } catch (error) {
      this.#writer?.write(sseErrorMessage(error));
    }
  }

  /** An event (or artifact chunk, without SSE data: the store's event is sent) for the next write. */
  #add(event: PendingEvent, json: string | undefined): void {
    if (this.#pending === undefined) {
      this.#pending = [event];
      this.#pendingJson = json === undefined ? [] : [json];
    } else {
      this.#pending.push(event);
      if (json !== undefined) this.#pendingJson?.push(json);
    }
    if (this.#scheduled) return;
    this.#scheduled = true;
    // A closure per turn of events, not a bound function kept by every idle run.
    afterMicrotasks(() => this.#flush());
  }

  /** Gives the store the events of this turn, after the appends under way. */
  #flush(): void {
    this.#scheduled = false;
    if (this.#end !== undefined || this.#ended) return;
    this.#writePending();
  }

  /** Writes the pending events (in order with their chunks), after the writes under way. */
  #writePending(): void {
    const events = this.#pending;
    const json = this.#pendingJson ?? [];
    if (events === undefined) return;
    this.#pending = undefined;
    this.#pendingJson = undefined;
    const append = (): Promise<void> => {
      const written = hasChunks(events)
        ? writeInOrder(events, json, this.#write)
        : this.#write(events as TaskProgressEvent[], json, undefined);
      return written.then(ignore, (error: unknown) => this.#appendFailed(error));
    };
    const previous = this.#appending;
    const appending = previous === undefined ? append() : previous.then(append);
    this.#appending = appending;
    void appending.then(() => {
      if (this.#appending === appending) this.#appending = undefined;
    });
  }

  /** One write of progress (and chunks): what the store appends goes out with its own SSE data. */
  readonly #write = (
    progress: TaskProgressEvent[],
    json: readonly string[],
    artifacts: TaskArtifactChunk[] | undefined,
  ): Promise<Task> => {
    this.#writingJson = json;
    const { store } = this.#host;
    const written =
      artifacts === undefined
        ? store.append(this.id, progress)
        : store.update(this.id, { progress, artifacts }, FROM_WORKING);
    this.#writingJson = undefined;
    return written;
  };

  #appendFailed(error: unknown): void {
    // A run canceled meanwhile: the cancel ends it. Anything else is the store failing.
    if (this.#ended || isTerminalConflict(error)) return;
    this.#fail(toAgentPortError(error));
  }

  #fail(error: AgentPortError): void {
    this.#finish(failedEnd(error));
  }

  /**
   * The agent ended: its turn recorded in the conversation (before the task says so, for a
   * follow-up sent as soon as the caller sees it), then its last events and its end in one
   * update, after the writes under way (artifact chunks still pending are written first).
   */
  #finish(end: RunEnd): void {
    if (this.#end !== undefined || this.#ended) return;
    this.#end = end;
    if (this.#pending !== undefined && hasChunks(this.#pending)) this.#writePending();
    const record = turnRecord(this.#host.conversations, this.#agent.name, this, this.#input, end);
    const write = (): Promise<void> => {
      if (this.#ended) return Promise.resolve();
      const recording = record?.();
      if (recording === undefined) return this.#writeEnd(end);
      return recording.then(
        () => this.#writeEnd(end),
        (error: unknown) => {
          // The conversation could not be written: the run fails, and its stream says so.
          const failed = failedEnd(toAgentPortError(error));
          this.#end = failed;
          return this.#writeEnd(failed);
        },
      );
    };
    if (this.#appending === undefined) void write();
    else void this.#appending.then(write);
  }

  /** The update that ends the run, with the events not written yet. */
  #writeEnd(end: RunEnd): Promise<void> {
    if (this.#ended) return Promise.resolve();
    const progress = this.#pending as TaskProgressEvent[] | undefined;
    const patch = progress === undefined ? end.patch : withProgress(end.patch, progress);
    this.#writingJson = this.#pendingJson;
    this.#pending = undefined;
    this.#pendingJson = undefined;
    const updated = this.#host.store.update(this.id, patch, FROM_WORKING);
    this.#writingJson = undefined;
    return updated.then(ignore, (error: unknown) => {
      if (!this.#ended && !isTerminalConflict(error)) this.#storeFailed(error);
    });
  }

  /** The store could not end the task: the reader is told, the agent stopped, the run forgotten. */
  #storeFailed(error: unknown): void {
    const writer = this.#writer;
    this.#ended = true;
    this.#stopGrace();
    this.#controller.abort(STREAM_LEFT);
    if (writer !== undefined) {
      this.#writer = undefined;
      const { code, message } = toAgentPortError(error);
      writer.write({ event: 'error', data: JSON.stringify({ code, message }), id: this.#seen + 1 });
      writer.close();
    }
    this.#host.ended(this);
  }
}
