import { InvalidTransitionError } from '../errors/invalid-transition-error.ts';

/** Every task status, in lifecycle order: A2A's states, as A2A spells them. */
export const TASK_STATUSES = [
  'submitted',
  'working',
  'input-required',
  'auth-required',
  'completed',
  'failed',
  'canceled',
  'rejected',
] as const;

/** Where a task is in its lifecycle. */
export type TaskStatus = (typeof TASK_STATUSES)[number];

/**
 * The lifecycle: the statuses a task may move to from each one. A task is created `submitted`;
 * a runner takes it up (`working`), or it is canceled, rejected (the agent will not do it) or
 * fails before it starts. A working task pauses for the caller's input or authentication, and
 * ends completed, failed, canceled or rejected (A2A lets an agent decline "later once it has
 * determined it can't or won't proceed"). A paused task resumes working once it gets what it
 * asked for, or is canceled, or fails (its wait gave up, say). Terminal statuses are final.
 */
const NEXT: Readonly<Record<TaskStatus, readonly TaskStatus[]>> = {
  submitted: ['working', 'canceled', 'rejected', 'failed'],
  working: ['input-required', 'auth-required', 'completed', 'failed', 'canceled', 'rejected'],
  'input-required': ['working', 'canceled', 'failed'],
  'auth-required': ['working', 'canceled', 'failed'],
  completed: [],
  failed: [],
  canceled: [],
  rejected: [],
};

/** The statuses a task is not finished in: submitted, working and the two interrupted ones. */
export const UNFINISHED_STATUSES: readonly TaskStatus[] = Object.freeze(
  TASK_STATUSES.filter((status) => NEXT[status].length > 0),
);

/** Whether a status ends the lifecycle (completed, failed, canceled or rejected). */
export function isTerminalStatus(status: TaskStatus): boolean {
  // Compared, not looked up in the table: the stores ask it at every step.
  return (
    status === 'completed' || status === 'failed' || status === 'canceled' || status === 'rejected'
  );
}

/** Whether a status pauses a task for its caller (input-required or auth-required). */
export function isInterruptedStatus(status: TaskStatus): boolean {
  return status === 'input-required' || status === 'auth-required';
}

/**
 * Whether a task in this status needs nothing of its runner for now: it is finished, or paused for
 * its caller. Waits and follows end there.
 */
export function isSettledStatus(status: TaskStatus): boolean {
  return isTerminalStatus(status) || isInterruptedStatus(status);
}

/** Whether the lifecycle allows moving from one status to another (staying is not a move). */
export function canTransition(from: TaskStatus, to: TaskStatus): boolean {
  return NEXT[from].includes(to);
}

/** Throws an {@link InvalidTransitionError} unless the lifecycle allows `from` -> `to`. */
export function assertTransition(from: TaskStatus, to: TaskStatus): void {
  if (!canTransition(from, to)) throw new InvalidTransitionError(from, to);
}
