import { afterMicrotasks } from '../internal/after-microtasks.ts';
import type { TaskProgressEvent } from './task-event.ts';
import type { TaskArtifactChunk, TaskStore } from './task-store.ts';
import { FROM_WORKING } from './task-writes.ts';

/** An artifact chunk among the pending events (written with an update, not an append). */
class PendingChunk {
  readonly chunk: TaskArtifactChunk;
  constructor(chunk: TaskArtifactChunk) {
    this.chunk = chunk;
  }
}

type Pending = TaskProgressEvent | PendingChunk;

/**
 * Writes a working task's progress events to its log at most once per run of microtasks (see
 * `afterMicrotasks`, whose callbacks due at once share one scheduled call): events an agent
 * yields in one go become one `append` (most runs end before it and never append at all: their
 * events go with the update that ends them, see `takePending`). Appends are made one after the
 * other, so the log keeps the agent's order; `settle` stops them and waits for one under way.
 */
export class ProgressLog {
  readonly #store: TaskStore;
  readonly #id: string;
  #pending: Pending[] | undefined;
  /** Whether the pending events hold an artifact chunk. */
  #chunks = false;
  #scheduled = false;
  #settled = false;
  #inflight: Promise<void> | undefined;
  #failure: unknown;
  #hasFailed = false;

  constructor(store: TaskStore, id: string) {
    this.#store = store;
    this.#id = id;
  }

  /** Adds an artifact chunk, written in order with the events (by an update of the task). */
  addChunk(chunk: TaskArtifactChunk): void {
    this.#chunks = true;
    this.add(new PendingChunk(chunk));
  }

  /** Adds an event and schedules an append for the end of this turn; throws an earlier append's error. */
  add(event: Pending): void {
    if (this.#hasFailed) throw this.#failure;
    if (this.#pending === undefined) this.#pending = [event];
    else this.#pending.push(event);
    if (this.#scheduled) return;
    this.#scheduled = true;
    afterMicrotasks(() => this.#flush());
  }

  #flush(): void {
    this.#scheduled = false;
    const events = this.#pending;
    if (this.#settled || events === undefined) return;
    this.#pending = undefined;
    const chunks = this.#chunks;
    this.#chunks = false;
    const append = () =>
      (chunks
        ? this.#writeInOrder(events)
        : this.#store.append(this.#id, events as TaskProgressEvent[])
      ).then(
        () => undefined,
        (error: unknown) => {
          this.#failure = error;
          this.#hasFailed = true;
        },
      );
    this.#inflight = this.#inflight === undefined ? append() : this.#inflight.then(append);
  }

  /** Writes events and chunks in their order: each chunk with the events before it, in one update. */
  async #writeInOrder(items: readonly Pending[]): Promise<unknown> {
    let progress: TaskProgressEvent[] = [];
    let artifacts: TaskArtifactChunk[] = [];
    for (const item of items) {
      if (item instanceof PendingChunk) {
        artifacts.push(item.chunk);
        continue;
      }
      if (artifacts.length > 0) {
        await this.#store.update(this.#id, { progress, artifacts }, FROM_WORKING);
        progress = [];
        artifacts = [];
      }
      progress.push(item);
    }
    if (artifacts.length > 0)
      return this.#store.update(this.#id, { progress, artifacts }, FROM_WORKING);
    return progress.length > 0 ? this.#store.append(this.#id, progress) : undefined;
  }

  /** Whether `error` is the one an append failed with (which `add` throws). */
  failedWith(error: unknown): boolean {
    return this.#hasFailed && error === this.#failure;
  }

  /**
   * Stops appending. When an append was made, resolves once it is done or rejects with its
   * error; when none was (most runs), returns undefined: there is nothing to wait for.
   */
  settle(): Promise<void> | undefined {
    // Chunks not written yet are written now: the update that ends the run carries events only.
    if (this.#chunks) this.#flush();
    this.#settled = true;
    return this.#inflight?.then(() => {
      if (this.#hasFailed) throw this.#failure;
    });
  }

  /** The events not appended yet (for the update that ends the run), once settled; undefined when none. */
  takePending(): TaskProgressEvent[] | undefined {
    const events = this.#pending;
    this.#pending = undefined;
    return events as TaskProgressEvent[] | undefined;
  }
}
