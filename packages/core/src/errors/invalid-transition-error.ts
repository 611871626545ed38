import type { TaskStatus } from '../tasks/task-lifecycle.ts';
import { AgentPortError } from './agentport-error.ts';

/** A task status change that the lifecycle does not allow (409). */
export class InvalidTransitionError extends AgentPortError {
  /** The status the task is in. */
  readonly from: TaskStatus;
  /** The status that was asked for. */
  readonly to: TaskStatus;

  constructor(from: TaskStatus, to: TaskStatus) {
    super({
      code: 'invalid_transition',
      message: `A task cannot move from ${from} to ${to}`,
      status: 409,
    });
    this.name = 'InvalidTransitionError';
    this.from = from;
    this.to = to;
  }
}
