import type { RunSlots } from './run-slots.ts';
import type { TaskStore } from './task-store.ts';

/** How a runner takes submitted tasks other runners left waiting in a shared store. */
export interface Claims {
  /** Looks for submitted tasks of the agent and starts as many as there are free slots. */
  poll(): void;
  stop(): void;
}

/**
 * Claims for a runner of `agentName`: a task's start is a conditional step (`submitted` to
 * `working`), so of the runners that try it exactly one runs it and the others skip it; no lock
 * is held. Polls every `intervalMs`, as a slot frees and at once. A task another process submits
 * is not taken as its change is relayed: that process, which starts it at once when it has a
 * slot, would lose the race as often as not; only what waits past a poll is shared.
 */
export function startClaims(
  store: TaskStore,
  agentName: string,
  slots: RunSlots,
  options: { intervalMs: number; retryLost: boolean; rerun: (id: string) => void },
): Claims {
  const { intervalMs } = options;
  let polling = false;
  let stopped = false;
  const poll = () => {
    const room = slots.room();
    if (stopped || polling || room <= 0) return;
    polling = true;
    // Newest first, as the store lists: the runner that queued a task runs its queue oldest
    // first, so every task is taken by one of them.
    const limit = Math.min(100, room);
    store
      .list({ agentName, status: 'submitted', limit })
      .then(async (page) => {
        for (const task of page.tasks) slots.start(task.id);
        const left = limit - page.tasks.length;
        if (!options.retryLost || store.takeOverLost === undefined || left <= 0) return;
        // The runs of a retry-safe agent that died with their process are made again here.
        for (const id of await store.takeOverLost(agentName, left)) options.rerun(id);
      })
      .catch(() => undefined)
      .finally(() => {
        polling = false;
      });
  };
  const timer = setInterval(poll, intervalMs);
  timer.unref?.();
  poll();
  return {
    poll,
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
