import { describe, expect, it } from 'vitest';
import { afterMicrotasks } from './after-microtasks.ts';

/** Runs `start` from a `process.nextTick` callback (as Node runs a request's `end` handlers). */
function fromTick(start: (log: string[]) => void): Promise<string[]> {
  const log: string[] = [];
  return new Promise((resolve) => {
    process.nextTick(() => {
      start(log);
      setImmediate(() => resolve(log));
    });
  });
}

/** Queues a chain of microtasks, each logging its step. */
function chain(log: string[], steps: number): void {
  let promise = Promise.resolve();
  for (let step = 1; step <= steps; step += 1) {
    promise = promise.then(() => {
      log.push(`microtask ${step}`);
    });
  }
}

describe('afterMicrotasks', () => {
  it('calls back once the microtasks queued before and by them have run, in order', async () => {
    const log: string[] = [];
    await Promise.resolve().then(() => {
      afterMicrotasks(() => log.push('first'));
      chain(log, 3);
      afterMicrotasks(() => log.push('second'));
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['microtask 1', 'microtask 2', 'microtask 3', 'first', 'second']);
  });

  it('waits for the microtasks also when called from a process.nextTick callback', async () => {
    const log = await fromTick((log) => {
      afterMicrotasks(() => log.push('after'));
      chain(log, 3);
    });
    expect(log).toEqual(['microtask 1', 'microtask 2', 'microtask 3', 'after']);
  });
});
