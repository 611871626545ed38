import { LazyAbortListener } from '../internal/lazy-abort-listener.ts';
import { LazyTimeout } from '../internal/lazy-timeout.ts';
import type { Task } from './task.ts';
import { isSettledStatus } from './task-lifecycle.ts';
import type { TaskWaitOptions } from './task-runner.ts';
import type { TaskWatchers } from './task-watchers.ts';
import type { Watcher } from './watch-task.ts';

/** A wait for one task: `task` settles as {@link untilTerminal} says; `stop` ends the wait. */
export interface TerminalWait {
  readonly task: Promise<Task>;
  stop(): void;
}

/**
 * Watches a task from now on: `task` resolves once it is terminal or paused for its caller
 * (input-required, auth-required), or as it is (read with `get`)
 * when `timeoutMs` runs out or the runner closes, and rejects with the signal's reason when
 * `signal` aborts. `stop` must be called once it is no longer awaited.
 */
export function untilTerminal(
  id: string,
  { signal, timeoutMs }: TaskWaitOptions,
  get: (id: string) => Promise<Task>,
  watchers: TaskWatchers,
): TerminalWait {
  let resolve!: (task: Task) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<Task>((resolveTask, rejectTask) => {
    resolve = resolveTask;
    reject = rejectTask;
  });
  const readNow = () => void get(id).then(resolve, reject);
  const watcher: Watcher = (changed) => {
    if (changed === undefined) readNow();
    else if (isSettledStatus(changed.status)) resolve(changed);
  };
  watchers.add(id, watcher);
  const timer = timeoutMs === undefined ? undefined : new LazyTimeout(timeoutMs, readNow);
  const onAbort = () => reject(signal?.reason);
  let listening: LazyAbortListener | undefined;
  // Aborted already (while its task was being created): rejects at once.
  if (signal?.aborted === true) onAbort();
  else if (signal !== undefined) listening = new LazyAbortListener(signal, onAbort);
  const stop = () => {
    watchers.remove(id, watcher);
    timer?.clear();
    listening?.stop();
  };
  return { task: promise, stop };
}

/**
 * A task runner's `wait`: resolves with the task once it is terminal or paused, or as it is when
 * `timeoutMs` runs out or the runner closes; rejects with the signal's reason when it aborts.
 */
export async function waitForTask(
  id: string,
  options: TaskWaitOptions,
  get: (id: string) => Promise<Task>,
  watchers: TaskWatchers,
): Promise<Task> {
  options.signal?.throwIfAborted();
  if (watchers.closed) return get(id);
  const waiting = untilTerminal(id, options, get, watchers);
  try {
    const current = await get(id);
    if (isSettledStatus(current.status)) return current;
    return await waiting.task;
  } finally {
    waiting.stop();
  }
}
