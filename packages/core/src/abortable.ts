import { CancellationError } from './errors/cancellation-error.ts';

/** Pulls the next item, rejecting with a CancellationError as soon as `signal` aborts. */
export function nextOrAbort<T>(
  iterator: AsyncIterator<T>,
  signal: AbortSignal,
): Promise<IteratorResult<T>> {
  if (signal.aborted) return Promise.reject(new CancellationError());
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new CancellationError());
    signal.addEventListener('abort', onAbort, { once: true });
    iterator.next().then(
      (result) => {
        signal.removeEventListener('abort', onAbort);
        resolve(result);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** Reads an async iterator step by step, each step rejecting at once when a signal aborts. */
export interface AbortableReader<T> {
  /** Pulls the next item, or rejects with a CancellationError as soon as the signal aborts. */
  next(): Promise<IteratorResult<T>>;
  /** Stops listening to the signal. */
  dispose(): void;
}

/**
 * Wraps an iterator for a whole run with one abort listener, rather than one added and removed
 * per item as {@link nextOrAbort} does (EventTarget listeners are costly on hot paths).
 */
export function abortableReader<T>(
  iterator: AsyncIterator<T>,
  signal: AbortSignal,
): AbortableReader<T> {
  let rejectPending: ((error: unknown) => void) | undefined;
  const onAbort = () => rejectPending?.(new CancellationError());
  signal.addEventListener('abort', onAbort, { once: true });
  return {
    next() {
      if (signal.aborted) return Promise.reject(new CancellationError());
      return new Promise((resolve, reject) => {
        rejectPending = reject;
        iterator.next().then(
          (result) => {
            rejectPending = undefined;
            resolve(result);
          },
          (error: unknown) => {
            rejectPending = undefined;
            reject(error);
          },
        );
      });
    },
    dispose() {
      rejectPending = undefined;
      signal.removeEventListener('abort', onAbort);
    },
  };
}

/** One pending abortable sleep, with one bound abort listener rather than closures. */
class Sleeper {
  readonly #signal: AbortSignal;
  readonly #resolve: () => void;
  readonly #reject: (error: unknown) => void;
  readonly #timer: ReturnType<typeof setTimeout>;
  readonly #onAbort = this.#abort.bind(this);

  constructor(
    ms: number,
    signal: AbortSignal,
    resolve: () => void,
    reject: (error: unknown) => void,
  ) {
    this.#signal = signal;
    this.#resolve = resolve;
    this.#reject = reject;
    this.#timer = setTimeout(wake, ms, this);
    signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  wake(): void {
    this.#signal.removeEventListener('abort', this.#onAbort);
    this.#resolve();
  }

  #abort(): void {
    clearTimeout(this.#timer);
    this.#reject(new CancellationError());
  }
}

function wake(sleeper: Sleeper): void {
  sleeper.wake();
}

/** Resolves after `ms` milliseconds, or rejects with a CancellationError when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal === undefined) return new Promise((resolve) => setTimeout(resolve, ms));
  if (signal.aborted) return Promise.reject(new CancellationError());
  return new Promise((resolve, reject) => {
    new Sleeper(ms, signal, resolve, reject);
  });
}
