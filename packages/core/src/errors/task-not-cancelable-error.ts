import type { TaskStatus } from '../tasks/task-lifecycle.ts';
import { AgentPortError } from './agentport-error.ts';

/** The task has already finished, so it can no longer be canceled (409). */
export class TaskNotCancelableError extends AgentPortError {
  /** The task that was asked to cancel. */
  readonly taskId: string;
  /** The terminal status the task is in. */
  readonly taskStatus: TaskStatus;

  constructor(taskId: string, taskStatus: TaskStatus) {
    super({
      code: 'task_not_cancelable',
      message: `Task '${taskId}' is already ${taskStatus} and cannot be canceled`,
      status: 409,
    });
    this.name = 'TaskNotCancelableError';
    this.taskId = taskId;
    this.taskStatus = taskStatus;
  }
}
