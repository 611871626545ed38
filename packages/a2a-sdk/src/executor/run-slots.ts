import { InvalidInputError } from '@agentport/core';

/** A run waiting for a slot: `settle(true)` hands it one, `settle(false)` drops it (aborted). */
interface Waiter {
  settle(granted: boolean): void;
}

/** The default of `maxConcurrency`: how many agent runs of one server go at once. */
export const DEFAULT_MAX_CONCURRENCY = 16;

/** `maxConcurrency` as given, or a clear InvalidInputError (field `maxConcurrency`). */
export function checkMaxConcurrency(maxConcurrency: number): number {
  if (!Number.isSafeInteger(maxConcurrency) || maxConcurrency < 1) {
    throw new InvalidInputError(
      `maxConcurrency must be an integer of at least 1, got ${
        typeof maxConcurrency === 'number' ? maxConcurrency : JSON.stringify(maxConcurrency)
      }`,
      { field: 'maxConcurrency' },
    );
  }
  return maxConcurrency;
}

/**
 * At most `limit` runs at once, the others waiting first come first served. A freed slot goes
 * straight to the longest waiting run, so a newcomer never overtakes one, and waiters exist only
 * while every slot is taken. Taking a free slot is a counter check: no promise, no allocation.
 */
export class RunSlots {
  readonly #limit: number;
  #active = 0;
  /** The runs waiting, oldest first (a Set keeps insertion order and drops an aborted one at once). */
  readonly #waiting = new Set<Waiter>();

  constructor(limit: number) {
    this.#limit = checkMaxConcurrency(limit);
  }

  /** Takes a free slot at once; false when every slot is taken (then {@link acquire}). */
  tryAcquire(): boolean {
    if (this.#active >= this.#limit) return false;
    this.#active += 1;
    return true;
  }

  /**
   * Waits for a slot, behind the runs already waiting: true once this run holds one (release it),
   * false when `signal` aborts first (the run leaves the queue holding nothing).
   */
  async acquire(signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return false;
    const granted = await new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        settle: (value) => {
          this.#waiting.delete(waiter);
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
      };
      const onAbort = () => waiter.settle(false);
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiting.add(waiter);
    });
    // Aborted between getting the slot and running: give it on instead of starting.
    if (granted && signal.aborted) {
      this.release();
      return false;
    }
    return granted;
  }

  /** Frees a slot taken by {@link tryAcquire} or {@link acquire}: it goes to the next waiter. */
  release(): void {
    if (this.#waiting.size === 0) {
      this.#active -= 1;
      return;
    }
    // The slot passes on to the oldest waiter: the count of runs holding one stays the same.
    this.#waiting.values().next().value?.settle(true);
  }

  /** How many runs hold a slot. */
  get active(): number {
    return this.#active;
  }

  /** How many runs wait for one. */
  get waiting(): number {
    return this.#waiting.size;
  }
}
