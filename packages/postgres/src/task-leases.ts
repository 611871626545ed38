import {
  InvalidTransitionError,
  type Task,
  TaskConflictError,
  TaskNotFoundError,
  type TaskPatch,
  type TaskUpdateOptions,
} from '@agentport/core';
import type { StoreState } from './task-store-state.ts';
import { unavailableOr } from './unavailable.ts';

/** The store's conditional update, which the lease steps make as any other step. */
export type UpdateTask = (
  state: StoreState,
  id: string,
  patch: TaskPatch,
  options: TaskUpdateOptions,
) => Promise<Task>;

/** What a task whose process stopped answering for it ends with. */
const WORKER_LOST = {
  code: 'worker_lost',
  message: 'The replica running the task stopped before it ended',
};

/**
 * Takes over lost working tasks of an agent (see `TaskStore.takeOverLost`): leased to this store
 * in one statement, then each one's output cleared by an ordinary step (logged as working).
 */
export async function takeOverLost(
  state: StoreState,
  update: UpdateTask,
  agentName: string,
  limit: number,
): Promise<string[]> {
  const at = state.now();
  const { rows } = await unavailableOr(() =>
    state.pool.query<{ id: string }>({
      ...state.sql.takeOverLost,
      values: [agentName, limit, state.instance, new Date(at + state.leaseMs), new Date(at)],
    }),
  );
  const taken: string[] = [];
  for (const { id } of rows) {
    state.leased.add(id);
    try {
      await update(state, id, { status: 'working', output: '' }, { expectedStatus: 'working' });
      taken.push(id);
    } catch (error) {
      // Canceled meanwhile: nothing to run again.
      if (!(error instanceof TaskConflictError) && !(error instanceof InvalidTransitionError)) {
        throw error;
      }
    }
  }
  return taken;
}

/**
 * Claims submitted tasks of an agent for this process (see `TaskStore.claimSubmitted`): leased to
 * it in one statement, still submitted; its runner's start moves them on.
 */
export async function claimSubmitted(
  state: StoreState,
  agentName: string,
  limit: number,
  createdBefore: Date,
): Promise<string[]> {
  const at = state.now();
  const { rows } = await unavailableOr(() =>
    state.pool.query<{ id: string }>({
      ...state.sql.claimSubmitted,
      values: [
        agentName,
        limit,
        state.instance,
        new Date(at + state.leaseMs),
        createdBefore,
        new Date(at),
      ],
    }),
  );
  return rows.map((row) => row.id);
}

/** Renews the leases of the working tasks this store's process runs. */
export async function renewLeases(state: StoreState): Promise<void> {
  if (state.leased.size === 0) return;
  await state.pool.query({
    ...state.sql.renewLeases,
    values: [[...state.leased], state.instance, new Date(state.now() + state.leaseMs)],
  });
}

/** Ends `worker_lost` the working tasks whose lease ran out, but those of `retried` agents; their ids. */
export async function sweepLostTasks(
  state: StoreState,
  update: UpdateTask,
  retried: ReadonlySet<string> = new Set(),
): Promise<string[]> {
  const { rows } = await unavailableOr(() =>
    state.pool.query<{ id: string; agent_name: string }>({
      ...state.sql.lostTasks,
      values: [new Date(state.now())],
    }),
  );
  const ended: string[] = [];
  for (const { id, agent_name: agentName } of rows) {
    if (retried.has(agentName)) continue;
    try {
      await update(
        state,
        id,
        { status: 'failed', error: WORKER_LOST },
        { expectedStatus: 'working' },
      );
      ended.push(id);
    } catch (error) {
      // Another sweeper, or the task's own end, came first.
      if (!(error instanceof TaskConflictError) && !(error instanceof TaskNotFoundError))
        throw error;
    }
  }
  return ended;
}
