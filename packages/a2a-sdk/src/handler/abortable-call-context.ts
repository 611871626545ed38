import { ServerCallContext, type ServerCallContextOptions } from '@a2a-js/sdk/server';

/**
 * The SDK's call context, plus the caller's abort signal: aborted when the caller goes away (its
 * connection closes before the answer). Work that only exists for this caller (a reply with a
 * message, which no one can fetch later) stops with it.
 */
export class AbortableCallContext extends ServerCallContext {
  readonly #signal: () => AbortSignal;
  readonly #onGone: ((listener: () => void) => void) | undefined;

  /**
   * `signal` is read on first use: on some servers the signal is built when first asked for.
   * `onGone`, when given, registers a listener of the caller going away more cheaply than a
   * signal (on Node, on the response itself); by default the signal's `abort` is listened to.
   */
  constructor(
    options: ServerCallContextOptions,
    signal: () => AbortSignal,
    onGone?: (listener: () => void) => void,
  ) {
    super(options);
    this.#signal = signal;
    this.#onGone = onGone;
  }

  /** Aborted when the caller goes away. */
  get signal(): AbortSignal {
    return this.#signal();
  }

  /** Calls `listener` once if the caller goes away before the answer is all written. */
  onCallerGone(listener: () => void): void {
    if (this.#onGone !== undefined) this.#onGone(listener);
    else this.signal.addEventListener('abort', listener, { once: true });
  }
}

/** Calls `listener` once if the caller of a call context goes away (when it can tell). */
export function onCallerGone(context: ServerCallContext, listener: () => void): void {
  if (context instanceof AbortableCallContext) context.onCallerGone(listener);
}

/** The caller's abort signal of a call context, when it has one. */
export function callerSignalOf(context: ServerCallContext): AbortSignal | undefined {
  return context instanceof AbortableCallContext ? context.signal : undefined;
}
