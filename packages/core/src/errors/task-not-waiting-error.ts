import type { TaskStatus } from '../tasks/task-lifecycle.ts';
import { AgentPortError } from './agentport-error.ts';

/** A message was sent to a task that is not waiting for input (finished, or running) (409). */
export class TaskNotWaitingError extends AgentPortError {
  /** The task the message was for. */
  readonly taskId: string;
  /** The status the task is in. */
  readonly taskStatus: TaskStatus;

  constructor(taskId: string, taskStatus: TaskStatus) {
    super({
      code: 'task_not_waiting',
      message: `Task '${taskId}' is ${taskStatus}, not waiting for input`,
      status: 409,
    });
    this.name = 'TaskNotWaitingError';
    this.taskId = taskId;
    this.taskStatus = taskStatus;
  }
}
