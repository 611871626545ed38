import type { TerminalEvent } from '../agent-output.ts';
import { AgentPortError } from '../errors/agentport-error.ts';
import { TaskNotCancelableError } from '../errors/task-not-cancelable-error.ts';
import { isTerminalStatus, type Task } from './task.ts';
import type { TaskPatch, TaskStore, TaskUpdateOptions } from './task-store.ts';

// The writes every run makes, made once (the store does not keep or change them).
/** A run starts: its task goes to `working`. */
export const START: TaskPatch = Object.freeze({ status: 'working' });
/** The check of a run's start: its task is still `submitted`. */
export const FROM_SUBMITTED: TaskUpdateOptions = Object.freeze({ expectedStatus: 'submitted' });
/** The check of a run's end: its task is still `working`. */
export const FROM_WORKING: TaskUpdateOptions = Object.freeze({ expectedStatus: 'working' });

/**
 * The change that ends a run: completed with its output, or failed with the output produced
 * before the failure (kept, as the progress writes would have).
 */
export function endPatch(end: TerminalEvent, output: string): TaskPatch {
  if (end.type === 'done') return { status: 'completed', output: end.output };
  const error = { code: end.code, message: end.message };
  return output === '' ? { status: 'failed', error } : { status: 'failed', error, output };
}

/** Whether an update lost a race: the task was no longer in the status it expected. */
export function isConflict(error: unknown): boolean {
  return AgentPortError.isInstance(error) && error.code === 'task_conflict';
}

/** Cancels whatever of a task is unfinished; rejects as the store does (a conflict, say). */
export function cancelUnfinished(store: TaskStore, id: string): Promise<Task> {
  return store.update(id, { status: 'canceled' }, { expectedStatus: ['submitted', 'working'] });
}

/**
 * Cancels a submitted or working task; idempotent on a canceled one; TaskNotCancelableError on
 * a completed or failed one. `get` reads the task as the runner does.
 */
export async function cancelTask(
  store: TaskStore,
  get: (id: string) => Promise<Task>,
  id: string,
): Promise<Task> {
  const task = await get(id);
  if (task.status === 'canceled') return task;
  if (isTerminalStatus(task.status)) throw new TaskNotCancelableError(id, task.status);
  try {
    return await cancelUnfinished(store, id);
  } catch (error) {
    if (!isConflict(error)) throw error;
    const now = await get(id);
    if (now.status === 'canceled') return now;
    throw new TaskNotCancelableError(id, now.status);
  }
}
