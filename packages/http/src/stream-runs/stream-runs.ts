import type { Task, TaskEvent, TaskStore } from '@agentport/core';
import { randomUuid } from '@agentport/core/internal';
import { type StreamedAgent, StreamRun, type StreamRunHost } from './stream-run.ts';

/**
 * How long a stream run's task is kept once finished, by default: ten minutes, for a client whose
 * stream dropped near its end to rejoin it and read how it ended (A2A tasks are kept an hour).
 */
export const DEFAULT_STREAM_RETAIN_MS = 10 * 60 * 1000;

/** The metadata of every stream run's task (the store keeps no copy of an empty one). */
const NO_METADATA: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

/**
 * A surface's stream runs, by task id: one store listener for them all (a run is told of its
 * own task's changes through it, never through a listener of its own), and how long each goes on
 * once nobody reads it.
 */
export class StreamRuns implements StreamRunHost {
  readonly store: TaskStore;
  readonly graceMs: number;
  readonly closing: AbortSignal;
  /** How long each run's task is kept once finished (its own retention in the store). */
  readonly retainMs: number;
  readonly #runs = new Map<string, StreamRun>();
  #unsubscribe: (() => void) | undefined;

  constructor(
    store: TaskStore,
    graceMs: number,
    closing: AbortSignal,
    retainMs = DEFAULT_STREAM_RETAIN_MS,
  ) {
    this.store = store;
    this.graceMs = graceMs;
    this.closing = closing;
    this.retainMs = retainMs;
  }

  /** Creates the task of a run of `agent`, started (`working`); the agent starts at `open`. */
  start(agent: StreamedAgent, input: string): Promise<StreamRun> {
    const id = randomUuid();
    const { store } = this;
    // Promise steps, not an async function: this is on every stream's path.
    return store
      .create({
        id,
        agentName: agent.name,
        input,
        metadata: NO_METADATA,
        status: 'working',
        retainMs: this.retainMs,
      })
      .then((task) => {
        // Nobody knew the id until now: nothing but this run wrote the task.
        const run = new StreamRun(this, agent, id, task.seq);
        this.#runs.set(id, run);
        this.#unsubscribe ??= store.subscribe(this.#changed);
        return run;
      });
  }

  /** The run of a task, while it is on in this server. */
  get(id: string): StreamRun | undefined {
    return this.#runs.get(id);
  }

  ended(run: StreamRun): void {
    this.#runs.delete(run.id);
  }

  /** Cancels every run still on (shutdown); the listener stays, to tell them of their cancel. */
  close(): void {
    for (const run of this.#runs.values()) run.cancel();
  }

  readonly #changed = (task: Task, events: readonly TaskEvent[]): void => {
    this.#runs.get(task.id)?.changed(task, events);
  };
}
