const schedule: (callback: () => void) => void =
  typeof globalThis.process?.nextTick === 'function'
    ? (callback) => globalThis.process.nextTick(callback)
    : (callback) => void setTimeout(callback, 0);

/** Callbacks due once the current microtasks have run, in the order they were given. */
let due: Array<() => void> = [];

function runDue(): void {
  const callbacks = due;
  due = [];
  for (const callback of callbacks) callback();
}

/**
 * Calls `callback` once the microtasks running now, and those they queue, have all run: Node
 * runs `process.nextTick` callbacks then, still in the same event-loop turn. Every callback due
 * then shares one scheduled call, which costs a queue entry where a `setImmediate` or a timer also
 * refs and unrefs a libuv handle. Other runtimes without `process.nextTick` get a
 * `setTimeout(callback, 0)`. Callbacks must not throw (the ones after it would not run).
 */
export function afterMicrotasks(callback: () => void): void {
  if (due.push(callback) === 1) schedule(runDue);
}
