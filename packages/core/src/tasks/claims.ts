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
 * is held. Polls every `intervalMs`, as a slot frees and at once. Only a task submitted at least
 * `intervalMs` ago is taken: the process that submitted it starts it at once when it has a slot,
 * and a poll landing between its create and its start would otherwise run it elsewhere; only what
 * waits past a poll is shared.
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
    const before = Date.now() - intervalMs;
    const limit = Math.min(100, room);
    (store.claimSubmitted === undefined
      ? waitingTasks(store, agentName, before, limit)
      : store.claimSubmitted(agentName, limit, new Date(before))
    )
      .then(async (ids) => {
        for (const id of ids) slots.start(id);
        const left = limit - ids.length;
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

/**
 * The ids of at most `limit` submitted tasks of `agentName` created by `before` (epoch ms). Newest
 * first, as the store lists: the runner that queued a task runs its queue oldest first, so every
 * task is taken by one of them. The few pages read skip the tasks too new to take.
 */
async function waitingTasks(
  store: TaskStore,
  agentName: string,
  before: number,
  limit: number,
): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 3 && ids.length < limit; page += 1) {
    const listed = await store.list({ agentName, status: 'submitted', limit: 100, cursor });
    for (const task of listed.tasks) {
      if (ids.length < limit && Date.parse(task.createdAt) <= before) ids.push(task.id);
    }
    cursor = listed.nextCursor;
    if (cursor === undefined) break;
  }
  return ids;
}
