import type { RunSlots } from './run-slots.ts';
import type { Task } from './task.ts';
import type { TaskStore } from './task-store.ts';

/** How a runner takes submitted tasks other runners left waiting in a shared store. */
export interface Claims {
  /** Looks for submitted tasks of the agent and starts as many as there are free slots. */
  poll(): void;
  /** A change relayed from another process: a task it submitted is taken if a slot is free. */
  offer(task: Task, relayed: boolean): void;
  stop(): void;
}

/**
 * Claims for a runner of `agentName`: a task's start is a conditional step (`submitted` to
 * `working`), so of the runners that try it exactly one runs it and the others skip it; no lock
 * is held. Polls every `intervalMs`, as a slot frees and at once; a task another process
 * submits is offered as its change is relayed.
 */
export function startClaims(
  store: TaskStore,
  agentName: string,
  slots: RunSlots,
  intervalMs: number,
): Claims {
  let polling = false;
  let stopped = false;
  const poll = () => {
    const room = slots.room();
    if (stopped || polling || room <= 0) return;
    polling = true;
    // Newest first, as the store lists: the runner that queued a task runs its queue oldest
    // first, so every task is taken by one of them.
    store
      .list({ agentName, status: 'submitted', limit: Math.min(100, room) })
      .then((page) => {
        for (const task of page.tasks) slots.start(task.id);
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
    offer(task, relayed) {
      if (relayed && task.status === 'submitted' && slots.room() > 0) slots.start(task.id);
    },
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
