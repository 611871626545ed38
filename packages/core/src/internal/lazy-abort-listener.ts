import { afterMicrotasks } from './after-microtasks.ts';

const PENDING = 0;
const LISTENING = 1;
const STOPPED = 2;

/**
 * Calls `onAbort` once when `signal` aborts, unless stopped first; but listens only if still
 * wanted once the microtasks running when it was made have run (see {@link afterMicrotasks}),
 * and calls `onAbort` then if the signal aborted meanwhile. A run or a wait that ends within
 * them (a fast agent, a task it runs) never touches the signal: a listener added to and removed
 * from an `AbortSignal` costs 1.5-2 µs here (Node's EventTarget validates, wraps and links it).
 * Whoever needs to know sooner checks `signal.aborted` itself (a run does at every step).
 */
export class LazyAbortListener {
  readonly #signal: AbortSignal;
  readonly #onAbort: () => void;
  #state = PENDING;

  constructor(signal: AbortSignal, onAbort: () => void) {
    this.#signal = signal;
    this.#onAbort = onAbort;
    afterMicrotasks(() => this.#arm());
  }

  #arm(): void {
    if (this.#state !== PENDING) return;
    if (this.#signal.aborted) {
      this.#state = STOPPED;
      this.#onAbort();
      return;
    }
    this.#state = LISTENING;
    this.#signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  /** Stops listening (or never starts); `onAbort` is not called after this. */
  stop(): void {
    if (this.#state === LISTENING) this.#signal.removeEventListener('abort', this.#onAbort);
    this.#state = STOPPED;
  }
}
