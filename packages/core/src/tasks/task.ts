import { InvalidTransitionError } from '../errors/invalid-transition-error.ts';

/** Every task status, in lifecycle order. */
export const TASK_STATUSES = ['submitted', 'working', 'completed', 'failed', 'canceled'] as const;

/** Where a task is in its lifecycle. */
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** Why a task failed, safe to send to a caller. */
export interface TaskError {
  code: string;
  message: string;
}

/** A unit of asynchronous work: one agent run for one input. */
export interface Task {
  readonly id: string;
  /** The agent that runs it. */
  readonly agentName: string;
  readonly status: TaskStatus;
  readonly input: string;
  /** The final output once completed; the output so far while working. */
  readonly output?: string;
  /** Why it failed, when failed. */
  readonly error?: TaskError;
  readonly metadata: Readonly<Record<string, unknown>>;
  /** ISO 8601 timestamps. */
  readonly createdAt: string;
  readonly updatedAt: string;
}

const NEXT: Record<TaskStatus, readonly TaskStatus[]> = {
  submitted: ['working', 'canceled'],
  working: ['completed', 'failed', 'canceled'],
  completed: [],
  failed: [],
  canceled: [],
};

/** Whether a status ends the lifecycle (completed, failed or canceled). */
export function isTerminalStatus(status: TaskStatus): boolean {
  return NEXT[status].length === 0;
}

/** Whether the lifecycle allows moving from one status to another. */
export function canTransition(from: TaskStatus, to: TaskStatus): boolean {
  return NEXT[from].includes(to);
}

/** Throws an {@link InvalidTransitionError} unless the lifecycle allows `from` -> `to`. */
export function assertTransition(from: TaskStatus, to: TaskStatus): void {
  if (!canTransition(from, to)) throw new InvalidTransitionError(from, to);
}

/** Whether an object (task metadata, say) has any own enumerable key. Internal to core. */
export function hasOwnKeys(object: Readonly<Record<string, unknown>>): boolean {
  for (const key in object) if (Object.hasOwn(object, key)) return true;
  return false;
}
