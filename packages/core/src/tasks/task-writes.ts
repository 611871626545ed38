import type { InputRequiredEvent } from '../agent-event.ts';
import type { TerminalEvent } from '../agent-output.ts';
import { AgentPortError } from '../errors/agentport-error.ts';
import { TaskNotCancelableError } from '../errors/task-not-cancelable-error.ts';
import { randomUuid } from '../internal/random-uuid.ts';
import type { Message } from '../message.ts';
import type { Task } from './task.ts';
import type { TaskProgressEvent } from './task-event.ts';
import { isTerminalStatus, UNFINISHED_STATUSES } from './task-lifecycle.ts';
import type { TaskPatch, TaskStore, TaskUpdateOptions } from './task-store.ts';

// The writes every run makes, made once (the store does not keep or change them).
/** A run starts: its task goes to `working`. */
export const START: TaskPatch = Object.freeze({ status: 'working' });
/** The check of a run's start: its task is still `submitted`. */
export const FROM_SUBMITTED: TaskUpdateOptions = Object.freeze({ expectedStatus: 'submitted' });
/** The check of a run's end: its task is still `working`. */
export const FROM_WORKING: TaskUpdateOptions = Object.freeze({ expectedStatus: 'working' });
/** The check of a cancel, or of a run that failed: its task is not finished. */
export const FROM_UNFINISHED: TaskUpdateOptions = Object.freeze({
  expectedStatus: UNFINISHED_STATUSES,
});
const CANCEL: TaskPatch = Object.freeze({ status: 'canceled' });

/**
 * The change that ends a run: completed with its output, or failed (the output produced before
 * the failure stays: the text deltas made it), with the progress events not appended yet.
 */
export function endPatch(
  end: Exclude<TerminalEvent, { type: 'input-required' }>,
  progress: readonly TaskProgressEvent[] | undefined,
): TaskPatch {
  if (end.type === 'done') {
    return progress === undefined
      ? { status: 'completed', output: end.output }
      : { status: 'completed', output: end.output, progress };
  }
  const error = { code: end.code, message: end.message };
  return progress === undefined
    ? { status: 'failed', error }
    : { status: 'failed', error, progress };
}

/**
 * The change that pauses a run for its caller: `input-required`, the question as the agent's
 * message (the status message, and in the history), and what the pause asked for.
 */
export function pausePatch(end: InputRequiredEvent): TaskPatch & { statusMessage: Message } {
  const question: Message = { messageId: randomUuid(), role: 'agent', parts: end.question };
  const inputRequest: { schema?: typeof end.schema; state?: unknown } = {};
  if (end.schema !== undefined) inputRequest.schema = end.schema;
  if (end.state !== undefined) inputRequest.state = end.state;
  return { status: 'input-required', statusMessage: question, messages: [question], inputRequest };
}

/** Whether an update lost a race: the task was no longer in the status it expected. */
export function isConflict(error: unknown): boolean {
  return AgentPortError.isInstance(error) && error.code === 'task_conflict';
}

/** Cancels whatever of a task is unfinished; rejects as the store does (a conflict, say). */
export function cancelUnfinished(store: TaskStore, id: string): Promise<Task> {
  return store.update(id, CANCEL, FROM_UNFINISHED);
}

/**
 * Cancels an unfinished task (submitted, working, input-required or auth-required); idempotent
 * on a canceled one; TaskNotCancelableError on a completed, failed or rejected one. `get` reads
 * the task as the runner does.
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
