import { afterMicrotasks } from './after-microtasks.ts';

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
    afterMicrotasks(() => this.arm());
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
