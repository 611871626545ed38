import { ServerCallContext, type ServerCallContextOptions } from '@a2a-js/sdk/server';

/**
 * The SDK's call context, plus the caller's abort signal: aborted when the caller goes away (its
 * connection closes before the answer). Work that only exists for this caller (a reply with a
 * message, which no one can fetch later) stops with it.
 */
export class AbortableCallContext extends ServerCallContext {
  readonly #signal: () => AbortSignal;

  /** `signal` is read on first use: on some servers the signal is built when first asked for. */
  constructor(options: ServerCallContextOptions, signal: () => AbortSignal) {
    super(options);
    this.#signal = signal;
  }

  /** Aborted when the caller goes away. */
  get signal(): AbortSignal {
    return this.#signal();
  }
}

/** The caller's abort signal of a call context, when it has one. */
export function callerSignalOf(context: ServerCallContext): AbortSignal | undefined {
  return context instanceof AbortableCallContext ? context.signal : undefined;
}
