import type { TaskStatus } from '../tasks/task-lifecycle.ts';
import { AgentPortError } from './agentport-error.ts';

/** A task update lost a race: the task was no longer in the status the writer expected (409). */
export class TaskConflictError extends AgentPortError {
  /** The task that was being updated. */
  readonly taskId: string;
  /** The status the task is actually in. */
  readonly taskStatus: TaskStatus;

  constructor(taskId: string, taskStatus: TaskStatus) {
    super({
      code: 'task_conflict',
      message: `Task '${taskId}' changed concurrently and is now ${taskStatus}`,
      status: 409,
    });
    this.name = 'TaskConflictError';
    this.taskId = taskId;
    this.taskStatus = taskStatus;
  }
}
