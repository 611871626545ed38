import { afterMicrotasks } from '../after-microtasks.ts';

/** Timeouts started in the current run of microtasks, armed together once it is over. */
let starting: LazyTimeout[] = [];

function armStarting(): void {
  const timeouts = starting;
  starting = [];
  for (const timeout of timeouts) timeout.arm();
}

/**
 * A timeout whose timer is set only if it is still on once the microtasks running when it was
 * started have run (see {@link afterMicrotasks}). A wait for a fast agent ends within them, and a
 * Node timer set and cleared in one go is costly (4-7 µs of a create-and-wait over HTTP: Node
 * makes the timer list for its duration, schedules and refs the libuv timer, then undoes it all).
 */
export class LazyTimeout {
  readonly #ms: number;
  readonly #callback: () => void;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #cleared = false;

  constructor(ms: number, callback: () => void) {
    this.#ms = ms;
    this.#callback = callback;
    if (starting.push(this) === 1) afterMicrotasks(armStarting);
  }

  /** Sets the timer (once), unless cleared. */
  arm(): void {
    if (this.#cleared || this.#timer !== undefined) return;
    this.#timer = setTimeout(this.#callback, this.#ms);
  }

  clear(): void {
    this.#cleared = true;
    clearTimeout(this.#timer);
  }
}
