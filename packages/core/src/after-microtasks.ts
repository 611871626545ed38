/**
 * Calls `callback` once the microtasks running now, and those they queue, have all run: Node
 * runs `process.nextTick` callbacks then, still in the same event-loop turn. It costs a queue
 * entry, where a `setImmediate` or a timer also refs and unrefs a libuv handle. Other runtimes
 * without `process.nextTick` get a `setTimeout(callback, 0)`.
 */
export const afterMicrotasks: (callback: () => void) => void =
  typeof globalThis.process?.nextTick === 'function'
    ? (callback) => globalThis.process.nextTick(callback)
    : (callback) => void setTimeout(callback, 0);
