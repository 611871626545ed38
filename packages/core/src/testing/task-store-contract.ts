import { describe } from 'vitest';
import { describeLogReads, describeLogWrites } from './task-store-contract/log.ts';
import type { TaskStoreFactory } from './task-store-contract/support.ts';
import { describeTaskReads, describeTaskWrites } from './task-store-contract/tasks.ts';

export type {
  TaskStoreContractOptions,
  TaskStoreFactory,
} from './task-store-contract/support.ts';

/**
 * The behaviour every `TaskStore` owes its callers, as vitest tests: create, get, update (the
 * conditional check, the lifecycle, terminal tasks never changing), list, expiry, subscribe, and
 * the log (each step's events in order, append, events after N with its two errors, follow, the
 * snapshot-plus-events invariant under racing reads, one winner among concurrent updates). Call
 * it in a test file with a factory making a new, empty store for each test, honouring the
 * options it is given (a clock, a TTL, a per-task cap on the log).
 *
 * @example
 * describeTaskStoreContract('the memory store', (options) =>
 *   createMemoryTaskStore({ now: options.now, ttlMs: options.ttlMs, maxEventsPerTask: options.maxEventsPerTask }),
 * );
 */
export function describeTaskStoreContract(name: string, createStore: TaskStoreFactory): void {
  describe(`${name} (TaskStore contract)`, () => {
    describeTaskWrites(createStore);
    describeTaskReads(createStore);
    describeLogWrites(createStore);
    describeLogReads(createStore);
  });
}
