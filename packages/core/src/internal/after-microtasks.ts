/** Callbacks due once the current microtasks have run, in the order they were given. */
let due: Array<() => void> = [];

function runDue(): void {
  const callbacks = due;
  due = [];
  for (const callback of callbacks) callback();
}

/**
 * Schedules `runDue` after the microtasks. A `process.nextTick` callback runs once the
 * microtasks have, but only when queued from a microtask or a macrotask: one queued from inside
 * another `nextTick` callback (where Node emits a request body's `end`, say) runs before the
 * microtasks that callback queued. Queued from a microtask of our own, it runs after them all,
 * wherever this was called from. Runtimes without `process.nextTick` get a `setTimeout(…, 0)`.
 */
const scheduleRunDue: () => void =
  typeof globalThis.process?.nextTick === 'function'
    ? () => queueMicrotask(tickRunDue)
    : () => void setTimeout(runDue, 0);

function tickRunDue(): void {
  globalThis.process.nextTick(runDue);
}

/**
 * Calls `callback` once the microtasks running now, and those they queue, have all run, still
 * in the same event-loop turn. Every callback due then shares one scheduled call, which costs a
 * microtask and a `nextTick` queue entry where a `setImmediate` or a timer also refs and unrefs a
 * libuv handle. Callbacks must not throw (the ones after it would not run).
 */
export function afterMicrotasks(callback: () => void): void {
  if (due.push(callback) === 1) scheduleRunDue();
}
