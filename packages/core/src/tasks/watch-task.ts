import type { Task } from './task.ts';
import type { TaskEvent } from './task-event.ts';
import { isTerminalStatus } from './task-lifecycle.ts';

/**
 * Called with a task after each change and the events the change appended (see `TaskListener`),
 * then with undefined if the runner closes first.
 */
export type Watcher = (task: Task | undefined, events?: readonly TaskEvent[]) => void;

/**
 * A task runner's `watch`: yields the task now and after every change its watcher hears of, until
 * it is terminal, `signal` aborts or the runner closes (the watcher is called with undefined).
 * Changes that arrive out of order (an older `seq`) are skipped, and so are those a slow
 * consumer has not taken before a newer one came: each task is whole, so only the newest is kept
 * (one task, not a queue of them, however fast the task changes).
 */
export async function* watchTask(
  id: string,
  signal: AbortSignal | undefined,
  get: (id: string) => Promise<Task>,
  addWatcher: (id: string, watcher: Watcher) => void,
  removeWatcher: (id: string, watcher: Watcher) => void,
): AsyncGenerator<Task> {
  let newest: Task | undefined;
  let ended = false;
  let wake: (() => void) | undefined;
  const watcher: Watcher = (task) => {
    if (task === undefined) ended = true;
    else if (newest === undefined || task.seq > newest.seq) newest = task;
    wake?.();
  };
  addWatcher(id, watcher);
  const onAbort = () => wake?.();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    let last = await get(id);
    yield last;
    while (!isTerminalStatus(last.status) && !signal?.aborted) {
      const next = newest;
      newest = undefined;
      if (next === undefined) {
        if (ended) break;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
        continue;
      }
      if (next.seq <= last.seq) continue;
      last = next;
      yield last;
    }
  } finally {
    removeWatcher(id, watcher);
    signal?.removeEventListener('abort', onAbort);
  }
}
