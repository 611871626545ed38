/** How many events a run yields between two looks at the clock. */
export const EVENTS_PER_LOOK = 32;

/** How long a run may keep the event loop to itself before it gives it a turn, in milliseconds. */
export const TURN_BUDGET_MS = 4;

/**
 * Calls `callback(argument)` on a later turn of the event loop, after pending I/O and timers
 * (`setImmediate` where the runtime has it).
 */
export const onNextTurn: <T>(callback: (argument: T) => void, argument: T) => void =
  typeof globalThis.setImmediate === 'function'
    ? (callback, argument) => void globalThis.setImmediate(callback, argument)
    : (callback, argument) => void setTimeout(callback, 0, argument);

/**
 * A run's share of the event loop. Events an agent yields without waiting for I/O are all read in
 * one run of microtasks, which no timer, socket or other request can enter however long it lasts.
 * `spend()` once per event says when the run has kept the loop for {@link TURN_BUDGET_MS} since it
 * last gave it a turn (the clock is read every {@link EVENTS_PER_LOOK} events, so a short stream
 * never reads it); `rest()` once it has.
 */
export class RunPace {
  #events = 0;
  /** When the run last gave the loop a turn, or first looked at the clock; -1 before. */
  #since = -1;

  /** Counts one event; true when the run should give the event loop a turn before the next. */
  spend(): boolean {
    this.#events += 1;
    if (this.#events < EVENTS_PER_LOOK) return false;
    this.#events = 0;
    const now = performance.now();
    if (this.#since < 0) {
      this.#since = now;
      return false;
    }
    return now - this.#since >= TURN_BUDGET_MS;
  }

  /** The run has given the event loop a turn. */
  rest(): void {
    this.#since = performance.now();
  }
}
