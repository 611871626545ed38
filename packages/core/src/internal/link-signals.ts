/** A signal that aborts when any of its sources does, until it is disposed. */
export interface LinkedSignal {
  readonly signal: AbortSignal;
  /** Stops listening to the sources (call it once the work the signal guards is over). */
  dispose(): void;
}

/**
 * Like `AbortSignal.any`, for hot paths: plain listeners that {@link LinkedSignal.dispose} removes,
 * where `AbortSignal.any` keeps weak references that cost ~9 µs a call here, mostly in GC.
 * The signal aborts with the first aborted source's reason.
 *
 * @example
 * const linked = linkSignals([request.signal, shutdown]);
 * try { await runner.wait(id, { signal: linked.signal }); } finally { linked.dispose(); }
 */
export function linkSignals(sources: readonly AbortSignal[]): LinkedSignal {
  const controller = new AbortController();
  const aborted = sources.find((source) => source.aborted);
  if (aborted !== undefined) {
    controller.abort(aborted.reason);
    return { signal: controller.signal, dispose: () => undefined };
  }
  const listeners = sources.map((source) => {
    const onAbort = () => controller.abort(source.reason);
    source.addEventListener('abort', onAbort, { once: true });
    return onAbort;
  });
  return {
    signal: controller.signal,
    dispose() {
      sources.forEach((source, index) => {
        source.removeEventListener('abort', listeners[index] as () => void);
      });
    },
  };
}
