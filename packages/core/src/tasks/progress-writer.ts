import { afterMicrotasks } from '../internal/after-microtasks.ts';
import type { TaskStore } from './task-store.ts';

/**
 * Writes a working task's growing output to the store at most once per run of microtasks (see
 * `afterMicrotasks`, whose callbacks due at once share one scheduled call): deltas an agent
 * yields in one go become one write (most runs end before it and never write progress at all).
 * `settle` drops the pending write (the final update carries the whole output) and waits for one
 * already under way, so writes stay in order.
 */
export class ProgressWriter {
  readonly #store: TaskStore;
  readonly #id: string;
  #output = '';
  #written = '';
  #scheduled = false;
  #settled = false;
  #inflight: Promise<void> | undefined;
  #failure: unknown;
  #hasFailed = false;

  constructor(store: TaskStore, id: string) {
    this.#store = store;
    this.#id = id;
  }

  /** The output so far. */
  get output(): string {
    return this.#output;
  }

  /** Appends a delta and schedules a write for the end of this turn; throws an earlier write's error. */
  append(delta: string): void {
    if (this.#hasFailed) throw this.#failure;
    this.#output += delta;
    if (this.#scheduled) return;
    this.#scheduled = true;
    afterMicrotasks(() => this.#flush());
  }

  #flush(): void {
    this.#scheduled = false;
    if (this.#settled || this.#output === this.#written) return;
    const output = this.#output;
    this.#written = output;
    const previous = this.#inflight ?? Promise.resolve();
    this.#inflight = previous.then(() =>
      this.#store.update(this.#id, { output }, { expectedStatus: 'working' }).then(
        () => undefined,
        (error: unknown) => {
          this.#failure = error;
          this.#hasFailed = true;
        },
      ),
    );
  }

  /** Whether `error` is the one a progress write failed with (which `append` throws). */
  failedWith(error: unknown): boolean {
    return this.#hasFailed && error === this.#failure;
  }

  /**
   * Stops writing progress. When a write was made, resolves once it is done or rejects with its
   * error; when none was (most runs), returns undefined: there is nothing to wait for.
   */
  settle(): Promise<void> | undefined {
    this.#settled = true;
    return this.#inflight?.then(() => {
      if (this.#hasFailed) throw this.#failure;
    });
  }
}
