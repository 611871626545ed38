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

/** Resolves after `ms` milliseconds, or rejects with a CancellationError when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(new CancellationError());
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new CancellationError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
