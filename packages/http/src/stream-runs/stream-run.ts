import {
  type Agent,
  type AgentEvent,
  AgentFailureError,
  type AgentPortError,
  CancellationError,
  isTerminalStatus,
  type Task,
  type TaskEvent,
  type TaskPatch,
  type TaskProgressEvent,
  type TaskStatusUpdateEvent,
  type TaskStore,
  toAgentPortError,
  UNFINISHED_STATUSES,
} from '@agentport/core';
import {
  type AgentEventObserver,
  afterMicrotasks,
  checkedOutput,
  errorFromEvent,
  observeAgentEvents,
  taskProgressFault,
  toAgentFailure,
} from '@agentport/core/internal';
import { type SSEWriter, sseErrorMessage } from '../sse/sse-writer.ts';
import { endMessage, isProgress, progressMessage } from './task-sse.ts';

/** What a stream run runs: an agent, or anything that streams a run by an agent's name (a runner). */
export type StreamedAgent = Pick<Agent, 'name' | 'stream'>;

/** What a run is kept by: the store of its task, the grace of its reader, and its list of runs. */
export interface StreamRunHost {
  readonly store: TaskStore;
  /** How long a run nobody reads goes on before its task is canceled. */
  readonly graceMs: number;
  /** Aborted on shutdown: a run whose reader leaves then is canceled at once. */
  readonly closing: AbortSignal;
  /** The run is over (its task is terminal): forget it. */
  ended(run: StreamRun): void;
}

const FROM_WORKING = Object.freeze({ expectedStatus: 'working' as const });
const FROM_UNFINISHED = Object.freeze({ expectedStatus: UNFINISHED_STATUSES });
const CANCEL: TaskPatch = Object.freeze({ status: 'canceled' });
const STREAM_LEFT = new CancellationError('The run was canceled');
const ignore = (): void => undefined;

/** The end of a run as the agent gave it (or as it failed): its patch and its SSE data. */
interface RunEnd {
  patch: TaskPatch;
  json: string;
}

/**
 * One streamed run (REST's `POST /{name}/stream`, compat's `POST /runs`), a task of its store: the agent's events go to the task's log
 * (those of one turn in one write, the last ones with the update that ends it), and the stream's
 * reader is written what the store says it appended, in its order and with its sequence numbers,
 * as the store tells its listener (`changed`), in the same step: a cancel from anywhere lands in
 * the stream where it lands in the log. The reader leaving starts a grace period; a run nobody
 * reads (nor rejoins) when it runs out is canceled, which aborts its agent.
 */
export class StreamRun implements AgentEventObserver {
  readonly id: string;
  readonly #host: StreamRunHost;
  readonly #agent: StreamedAgent;
  readonly #controller = new AbortController();
  /** The stream's own reader, until it leaves. */
  #writer: SSEWriter | undefined;
  /** The sequence number of the last event of the log this run has been told of. */
  #seen: number;
  /** The readers that rejoined it (streams of its log), which keep it going without `#writer`. */
  #readers = 0;
  #grace: ReturnType<typeof setTimeout> | undefined;
  /** The agent's events not given to the store yet, and their SSE data. */
  #pending: TaskProgressEvent[] | undefined;
  #pendingJson: string[] | undefined;
  /** The SSE data of the events of the store write under way, for `changed` to send. */
  #writingJson: readonly string[] | undefined;
  /** The appends under way, one after the other. */
  #appending: Promise<void> | undefined;
  #scheduled = false;
  /** The run's end, once the agent gave it: no more events are taken. */
  #end: RunEnd | undefined;
  /** The task is terminal: the run is over. */
  #ended = false;

  constructor(host: StreamRunHost, agent: StreamedAgent, id: string, seen: number) {
    this.#host = host;
    this.#agent = agent;
    this.id = id;
    this.#seen = seen;
  }

  /** Starts the agent, its events streamed to `writer` (the run's own reader). */
  open(writer: SSEWriter, input: string): void {
    this.#writer = writer;
    let events: AsyncIterable<AgentEvent>;
    try {
      events = this.#agent.stream(input, { signal: this.#controller.signal });
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
      if (type === 'done') checkedOutput(event.output, this.#agent.name);
      else if (type !== 'error') {
        const fault = taskProgressFault(event);
        if (fault !== undefined)
          throw new TypeError(`Agent '${this.#agent.name}' yielded ${fault}`);
      }
      json = JSON.stringify(data);
    } catch (cause) {
      // An event the log could not keep or the stream could not send (a BigInt, a cycle, a
      // line break in its type, an output that is not a string): the agent's mistake.
      this.#fail(new AgentFailureError({ agentName: this.#agent.name, cause }));
      return false;
    }
    if (type === 'done') {
      this.#finish({ patch: { status: 'completed', output: event.output }, json });
      return false;
    }
    if (type === 'error') {
      const { code, message } = errorFromEvent(event, this.#agent.name);
      this.#finish({ patch: { status: 'failed', error: { code, message } }, json });
      return false;
    }
    this.#add(event as TaskProgressEvent, json);
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

  /** One event of the log, at `seq`, to the reader; the terminal one ends the run. */
  #deliver(seq: number, event: TaskEvent, json: string | undefined, output?: string): void {
    this.#seen = seq;
    if (isProgress(event)) {
      this.#writer?.write(progressMessage(seq, event, json));
      return;
    }
    if (event.type !== 'status-update') return;
    const update = event as TaskStatusUpdateEvent;
    if (isTerminalStatus(update.status)) this.#close(seq, update, output);
  }

  /** The task ended (the agent's end, a cancel, a failure): the last event, and the run is over. */
  #close(seq: number, update: TaskStatusUpdateEvent, output: string | undefined): void {
    this.#ended = true;
    this.#stopGrace();
    const own = this.#end?.json;
    const writer = this.#writer;
    if (writer !== undefined) {
      this.#writer = undefined;
      writer.write(endMessage(seq, update, update.status === 'canceled' ? undefined : own, output));
      writer.close();
    }
    if (update.status !== 'completed') this.#controller.abort(STREAM_LEFT);
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

  #add(event: TaskProgressEvent, json: string): void {
    if (this.#pending === undefined) {
      this.#pending = [event];
      this.#pendingJson = [json];
    } else {
      this.#pending.push(event);
      this.#pendingJson?.push(json);
    }
    if (this.#scheduled) return;
    this.#scheduled = true;
    // A closure per turn of events, not a bound function kept by every idle run.
    afterMicrotasks(() => this.#flush());
  }

  /** Gives the store the events of this turn, after the appends under way. */
  #flush(): void {
    this.#scheduled = false;
    const events = this.#pending;
    const json = this.#pendingJson;
    if (this.#end !== undefined || this.#ended || events === undefined) return;
    this.#pending = undefined;
    this.#pendingJson = undefined;
    const append = (): Promise<void> => {
      this.#writingJson = json;
      const appended = this.#host.store.append(this.id, events);
      this.#writingJson = undefined;
      return appended.then(ignore, (error: unknown) => this.#appendFailed(error));
    };
    const previous = this.#appending;
    const appending = previous === undefined ? append() : previous.then(append);
    this.#appending = appending;
    void appending.then(() => {
      if (this.#appending === appending) this.#appending = undefined;
    });
  }

  #appendFailed(error: unknown): void {
    // A run canceled meanwhile: the cancel ends it. Anything else is the store failing.
    if (this.#ended || isTerminalConflict(error)) return;
    this.#fail(toAgentPortError(error));
  }

  #fail(error: AgentPortError): void {
    const { code, message } = error;
    this.#finish({
      patch: { status: 'failed', error: { code, message } },
      json: JSON.stringify({ code, message }),
    });
  }

  /** The agent ended: its last events and its end in one update, after the appends under way. */
  #finish(end: RunEnd): void {
    if (this.#end !== undefined || this.#ended) return;
    this.#end = end;
    const write = (): Promise<void> => {
      if (this.#ended) return Promise.resolve();
      const progress = this.#pending;
      const patch = progress === undefined ? end.patch : withProgress(end.patch, progress);
      this.#writingJson = this.#pendingJson;
      this.#pending = undefined;
      this.#pendingJson = undefined;
      const updated = this.#host.store.update(this.id, patch, FROM_WORKING);
      this.#writingJson = undefined;
      return updated.then(ignore, (error: unknown) => {
        if (!this.#ended && !isTerminalConflict(error)) this.#storeFailed(error);
      });
    };
    if (this.#appending === undefined) void write();
    else void this.#appending.then(write);
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

/** The end of a run with the events not written yet (no spread: it is on every run's path). */
function withProgress(patch: TaskPatch, progress: TaskProgressEvent[]): TaskPatch {
  return patch.error === undefined
    ? { status: patch.status, output: patch.output, progress }
    : { status: patch.status, error: patch.error, progress };
}

/** Whether a write lost to a cancel (the task was terminal by then). */
function isTerminalConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'task_conflict' || code === 'invalid_transition';
}
